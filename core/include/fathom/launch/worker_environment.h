// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/launch/launch_options.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace fathom::launch {

/// Where one worker sits in the group being launched.
struct WorkerSlot {
  int localRank = 0;             ///< index on this machine
  std::uint16_t masterPort = 0;  ///< the port chosen for this attempt (never 0 here)
  int restartCount = 0;          ///< 0 for the first attempt
};

/// The variables one worker gets on top of the launcher's own environment, in a fixed order:
/// RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, GROUP_RANK, MASTER_ADDR, MASTER_PORT,
/// TORCHELASTIC_RESTART_COUNT, TORCHELASTIC_MAX_RESTARTS (as torchrun), OMP_NUM_THREADS (when the rule in
/// LaunchOptions::numCpuThreadsPerProcess gives one), CUDA_VISIBLE_DEVICES (with gpuIds), then Accelerate's:
/// ACCELERATE_MIXED_PRECISION, ACCELERATE_USE_CPU, ACCELERATE_DEBUG_MODE, ACCELERATE_GRADIENT_ACCUMULATION_STEPS,
/// ACCELERATE_USE_FSDP with the FSDP_* variables, ACCELERATE_USE_MEGATRON_LM, ACCELERATE_USE_DEEPSPEED with
/// ACCELERATE_DEEPSPEED_ZERO_STAGE, and last LaunchOptions::fathomVariables.
/// `launcherOmpThreads` is the launcher's OMP_NUM_THREADS (std::nullopt when unset). `options` must have passed
/// validate().
std::vector<std::pair<std::string, std::string>> workerVariables(const LaunchOptions& options, const WorkerSlot& slot,
                                                                 const std::optional<std::string>& launcherOmpThreads);

/// Processes this machine runs: numProcesses / numMachines.
int localWorldSize(const LaunchOptions& options);

}  // namespace fathom::launch
