// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/calibrate/calibration_options.h>
#include <fathom/plan/hardware.h>

#include <nlohmann/json_fwd.hpp>

#include <filesystem>
#include <string>

namespace fathom::calibrate {

/// Measures this machine (`fathom calibrate`): starts options.maxProcesses copies of options.workerCommand through
/// launch::LocalLauncher (runCalibrationWorker() in each), reports progress on the calling thread, reads rank 0's
/// result, fits the collectives' alpha/beta and returns the profile (profileFromCalibration()) named
/// plan::kThisMachineProfile. Blocks (about a minute by default on 2 cores). ConfigError for bad options (no worker
/// command, one process, CUDA asked for and absent), Error naming the failed rank and its exit when a worker fails.
plan::HardwareSpec calibrate(const CalibrationOptions& options);

/// Facts about the machine that the profile needs besides the measurements.
struct MachineFacts {
  int processesPerNode = 1;                 ///< the profile's gpus_per_node: the most processes measured
  std::int64_t memoryBytes = 0;             ///< per-rank memory: the RAM on the CPU, one GPU's memory on CUDA
  std::int64_t hostMemoryBytes = 0;         ///< the RAM
  std::int64_t frameworkOverheadBytes = 0;  ///< a worker's resident memory after LibTorch and the group started
};

/// The profile a calibration makes: peak_flops per dtype = the per-process rate measured with processesPerNode
/// processes each on its share of the cores (the node full, as a local run of that many ranks is), the best shape;
/// memory_bandwidth = the copy bandwidth; intra_node = the all_reduce fit at the most ranks (bandwidth = beta, the
/// bus bandwidth; latency = alpha / (2(N-1)), the planner's per-step alpha of a ring); inter_node repeats intra_node
/// (only this machine was measured; the description says so). Without collectives (a single GPU) the links take the
/// memory copy bandwidth and zero latency, which a one-rank plan never uses. Validated (validateHardware()).
plan::HardwareSpec profileFromCalibration(const plan::HardwareCalibration& calibration, const MachineFacts& facts);

/// The time now, UTC, as a profile's measured_at and fitted_at spell it ("2026-11-28T04:50:12Z").
std::string utcNow();

/// $XDG_CONFIG_HOME/fathom/hardware/this-machine.yaml (plan::userHardwareDir()).
std::filesystem::path defaultProfilePath();

/// Writes `profile` as YAML (plan::formatHardwareYaml) atomically, creating the folder: readers see the old file or
/// the new one. StorageError naming the path on failure.
void writeHardwareProfile(const plan::HardwareSpec& profile, const std::filesystem::path& path);

/// The calibration as JSON (`fathom calibrate --json`): the same keys as the YAML section.
nlohmann::ordered_json toJson(const plan::HardwareCalibration& calibration);

}  // namespace fathom::calibrate
