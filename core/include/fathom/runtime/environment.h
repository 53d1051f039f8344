// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/common/build_info.h>
#include <fathom/plan/hardware.h>
#include <fathom/runtime/cuda_probe.h>
#include <fathom/runtime/system_info.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>

namespace fathom::runtime {

/// Everything `fathom env` reports (Accelerate's `accelerate env`, plus the distributed and GPU facts that
/// decide what a run can use). A plain value: collect once, format as text or JSON, show in the Studio.
struct EnvironmentReport {
  BuildInfo build;
  std::string executablePath;  ///< /proc/self/exe of the process that collected the report
  SystemInfo system;

  std::string libtorchVersion;
  bool libtorchCuda = false;        ///< torch::cuda::is_available()
  int libtorchCudaDeviceCount = 0;  ///< torch::cuda::device_count()

  bool glooAvailable = false;
  std::string glooDetail;
  bool ncclInLibtorch = false;  ///< c10d's ProcessGroupNCCL compiled into this LibTorch
  bool ncclAvailable = false;   ///< NCCL in LibTorch, libnccl loadable and at least one CUDA device
  std::string ncclDetail;

  CudaProbe cuda;               ///< driver devices, CUPTI, libnccl
  bool cuptiAvailable = false;  ///< CUPTI loaded and answered cuptiGetVersion

  std::string qtVersion;  ///< empty = CLI-only build

  std::filesystem::path defaultConfigPath;
  bool defaultConfigExists = false;
  std::string defaultConfigContent;  ///< the file's text (at most 64 KiB), empty when absent

  std::filesystem::path hardwareProfilesDir;                ///< plan::userHardwareDir()
  std::vector<plan::UserHardwareProfile> hardwareProfiles;  ///< `fathom calibrate`'s profiles there

  /// Variables that steer a distributed run, as set in this process: RANK, WORLD_SIZE, MASTER_*, CUDA_*,
  /// ACCELERATE_*, FATHOM_*, SLURM_*, OMPI_COMM_WORLD_*, NCCL_*, GLOO_*, OMP_NUM_THREADS.
  std::map<std::string, std::string> relevantVariables;

  int cudaDeviceCount() const { return static_cast<int>(cuda.devices.size()); }
};

struct EnvironmentOptions {
  /// Form a one-rank Gloo group to prove the backend works (about 10 ms). Off: report compile-time support.
  bool checkGloo = true;
  /// Probe libcuda, libcupti and libnccl with dlopen.
  bool probeCuda = true;
};

/// Collects the report. Never throws for a missing component: each absence is a fact with its reason.
EnvironmentReport collectEnvironment(const EnvironmentOptions& options = {});

/// The `fathom env` text: "- key: value" lines in Accelerate's style, the config file indented below.
std::string formatEnvironmentText(const EnvironmentReport& report);

/// One JSON object. Stable keys: fathom_version, git_revision, platform, cpu_cores, ram_bytes,
/// libtorch_version, gloo_available, nccl_available, cuda_device_count, cuda_devices, cupti_available,
/// qt_version (null for a CLI-only build), default_config_path, default_config, hardware_profiles_dir,
/// hardware_profiles ([{name, path, measured_at, error}]), plus detail keys.
std::string formatEnvironmentJson(const EnvironmentReport& report, int indent = 2);

}  // namespace fathom::runtime
