// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/plan/hardware_calibration.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fathom::plan {

/// A link's alpha-beta parameters: per-message latency alpha (s) and per-GPU unidirectional bandwidth (bytes/s).
struct LinkSpec {
  double bandwidth = 0.0;  ///< bytes/s one GPU can push in one direction over this link
  double latency = 0.0;    ///< seconds per message step (alpha)
};

/// Dense (non-sparse) peak throughput per dtype in FLOP/s; 0 where the device has no such path.
struct PeakFlops {
  double fp32 = 0.0;  ///< plain fp32 (CUDA cores; PyTorch's default for fp32 matmul is not TF32)
  double tf32 = 0.0;  ///< TF32 tensor cores
  double fp16 = 0.0;  ///< fp16 tensor cores, fp32 accumulate
  double bf16 = 0.0;  ///< bf16 tensor cores, fp32 accumulate
  double fp8 = 0.0;   ///< fp8 tensor cores, fp32 accumulate (0 before Hopper/Ada)
  double int8 = 0.0;  ///< int8 tensor ops
};

/// What one rank runs on: an accelerator, or a CPU process (Gloo ranks on a host, e.g. the cpu-host preset).
enum class DeviceKind { Gpu, Cpu };

/// "gpu", "cpu": the preset's `device` key.
std::string_view toString(DeviceKind kind);

/// One accelerator (and the node it sits in), as the planner sees it. Loaded from a preset in
/// resources/hardware/ or a user's YAML/JSON file with the same keys; every value is validated on load.
struct HardwareSpec {
  std::string name;                         ///< preset name ("h100-sxm-80gb")
  std::string description;                  ///< human-readable model and form factor
  DeviceKind device = DeviceKind::Gpu;      ///< `device: gpu|cpu` (gpu when absent); a CPU rank is a process
  std::int64_t memoryBytes = 0;             ///< device memory as the driver reports it
  PeakFlops peak;                           ///< dense peak per dtype
  double memoryBandwidth = 0.0;             ///< device memory bandwidth, bytes/s
  int gpusPerNode = 1;                      ///< accelerators per node (ranks per node)
  LinkSpec intraNode;                       ///< GPU-to-GPU inside a node (NVLink, PCIe)
  LinkSpec interNode;                       ///< between nodes, per GPU (NIC bandwidth / GPUs sharing it)
  std::int64_t hostMemoryBytes = 0;         ///< CPU RAM per node, for offload checks
  double hostToDeviceBandwidth = 0.0;       ///< PCIe host<->device bytes/s per GPU, for offload transfers
  std::int64_t frameworkOverheadBytes = 0;  ///< CUDA context, cuBLAS/cuDNN workspaces, allocator slack per rank
  std::string source;                       ///< the file it was read from
  /// What `fathom calibrate` measured (the optional `calibration:` section); absent for the shipped presets.
  std::optional<HardwareCalibration> calibration;
};

/// The name `fathom calibrate` gives the profile of the machine it ran on.
inline constexpr const char* kThisMachineProfile = "this-machine";

/// Folder of the shipped presets: $FATHOM_HARDWARE_DIR when set, else the compiled-in resources/hardware path.
std::filesystem::path hardwareDir();

/// Names of the presets found in hardwareDir(), sorted.
std::vector<std::string> hardwarePresetNames();

/// The user's hardware profiles: $XDG_CONFIG_HOME/fathom/hardware when XDG_CONFIG_HOME is set and absolute, else
/// ~/.config/fathom/hardware. `fathom calibrate` writes this-machine.yaml there.
std::filesystem::path userHardwareDir();

/// A profile file in userHardwareDir().
struct UserHardwareProfile {
  std::string name;            ///< the file's stem ("this-machine")
  std::filesystem::path path;  ///< the file
  std::string measuredAt;      ///< calibration.measured_at, empty when the file has no calibration
  std::string error;           ///< why the file does not load, empty when it does
};

/// Every *.yaml / *.yml / *.json file in userHardwareDir(), sorted by name, each loaded to report its measured-at
/// time or its error (never throws).
std::vector<UserHardwareProfile> userHardwareProfiles();

/// Loads a preset by name or alias ("h100", "h100-sxm-80gb"), then a profile in userHardwareDir() by name
/// ("this-machine"), or a YAML/JSON file by path. Throws ConfigError listing the known presets when nothing matches
/// (for "this-machine": that `fathom calibrate` writes it), or naming the bad key.
HardwareSpec loadHardware(std::string_view nameOrPath);

/// The profile as a hardware YAML file that parseHardware() reads back to the same values (doubles written with 17
/// significant digits), its calibration section included.
std::string formatHardwareYaml(const HardwareSpec& hw);

/// Parses preset YAML/JSON text; `origin` names it in messages.
HardwareSpec parseHardware(std::string_view text, const std::string& origin);

/// Checks every field (ConfigError naming the bad one).
void validateHardware(const HardwareSpec& hw);

}  // namespace fathom::plan
