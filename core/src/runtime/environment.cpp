// SPDX-License-Identifier: Apache-2.0
#include <fathom/runtime/environment.h>

#include <fathom/config/config_paths.h>
#include <fathom/runtime/process_group.h>

#include <torch/cuda.h>
#include <torch/version.h>

#include <array>
#include <fstream>
#include <iterator>
#include <string_view>
#include <system_error>
#include <unistd.h>

extern char** environ;

namespace fathom::runtime {
namespace {

constexpr std::size_t kMaxConfigBytes = 64 * 1024;

std::string selfExecutable() {
  std::error_code ec;
  auto path = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string{} : path.string();
}

bool isRelevantVariable(std::string_view name) {
  static constexpr std::array<std::string_view, 8> kExact = {
      "RANK",        "WORLD_SIZE",  "LOCAL_RANK",      "LOCAL_WORLD_SIZE",
      "MASTER_ADDR", "MASTER_PORT", "OMP_NUM_THREADS", "HF_HOME"};
  static constexpr std::array<std::string_view, 8> kPrefixes = {"ACCELERATE_",      "FATHOM_", "CUDA_", "SLURM_",
                                                                "OMPI_COMM_WORLD_", "NCCL_",   "GLOO_", "TORCH_"};
  for (auto exact : kExact) {
    if (name == exact) {
      return true;
    }
  }
  for (auto prefix : kPrefixes) {
    if (name.substr(0, prefix.size()) == prefix) {
      return true;
    }
  }
  return false;
}

std::map<std::string, std::string> relevantVariables() {
  std::map<std::string, std::string> out;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    std::string_view kv(*entry);
    auto eq = kv.find('=');
    if (eq == std::string_view::npos) {
      continue;
    }
    auto name = kv.substr(0, eq);
    if (isRelevantVariable(name)) {
      out.emplace(std::string(name), std::string(kv.substr(eq + 1)));
    }
  }
  return out;
}

void readDefaultConfig(EnvironmentReport& report) {
  report.defaultConfigPath = config::defaultConfigFile();
  std::ifstream in(report.defaultConfigPath, std::ios::binary);
  if (!in) {
    return;
  }
  report.defaultConfigExists = true;
  std::string text;
  text.resize(kMaxConfigBytes);
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  report.defaultConfigContent = std::move(text);
}

}  // namespace

EnvironmentReport collectEnvironment(const EnvironmentOptions& options) {
  EnvironmentReport report;
  report.build = buildInfo();
  report.executablePath = selfExecutable();
  report.system = readSystemInfo();

  report.libtorchVersion = TORCH_VERSION;
  report.libtorchCuda = torch::cuda::is_available();
  report.libtorchCudaDeviceCount = static_cast<int>(torch::cuda::device_count());

  if (options.checkGloo) {
    report.glooAvailable = ProcessGroup::backendAvailable(CommBackend::Gloo, &report.glooDetail);
  } else {
#ifdef FATHOM_HAVE_GLOO
    report.glooAvailable = true;
    report.glooDetail = "compiled into LibTorch (not exercised)";
#else
    report.glooDetail = "LibTorch was built without c10d Gloo";
#endif
  }
  std::string ncclCompiled;
  report.ncclInLibtorch = ProcessGroup::backendAvailable(CommBackend::Nccl, &ncclCompiled);

  if (options.probeCuda) {
    report.cuda = probeCuda();
  } else {
    report.cuda.driverDetail = report.cuda.cuptiDetail = report.cuda.ncclDetail = "not probed";
  }
  report.cuptiAvailable = report.cuda.cuptiLoaded;

  // NCCL is usable only when all three hold; the detail names the first that does not.
  report.ncclAvailable = report.ncclInLibtorch && report.cuda.ncclLoaded && report.cudaDeviceCount() > 0;
  if (!report.ncclInLibtorch) {
    report.ncclDetail = ncclCompiled;
  } else if (!report.cuda.ncclLoaded) {
    report.ncclDetail = report.cuda.ncclDetail;
  } else if (report.cudaDeviceCount() == 0) {
    report.ncclDetail = "no CUDA device";
  } else {
    report.ncclDetail = report.cuda.ncclDetail;
  }
  if (!report.ncclInLibtorch && report.cuda.ncclLoaded) {
    report.ncclDetail += "; " + report.cuda.ncclDetail + " is present";
  }

  report.qtVersion = report.build.qtVersion;
  readDefaultConfig(report);
  report.hardwareProfilesDir = plan::userHardwareDir();
  report.hardwareProfiles = plan::userHardwareProfiles();
  report.relevantVariables = relevantVariables();
  return report;
}

}  // namespace fathom::runtime
