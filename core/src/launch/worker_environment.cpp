// SPDX-License-Identifier: Apache-2.0
#include <fathom/launch/worker_environment.h>

#include <algorithm>
#include <cctype>

namespace fathom::launch {

int localWorldSize(const LaunchOptions& options) {
  return options.numProcesses / options.numMachines;
}

std::vector<std::pair<std::string, std::string>> workerVariables(const LaunchOptions& o, const WorkerSlot& slot,
                                                                 const std::optional<std::string>& launcherOmpThreads) {
  const int local = localWorldSize(o);
  std::vector<std::pair<std::string, std::string>> vars{
      {"RANK", std::to_string(o.machineRank * local + slot.localRank)},
      {"LOCAL_RANK", std::to_string(slot.localRank)},
      {"WORLD_SIZE", std::to_string(o.numProcesses)},
      {"LOCAL_WORLD_SIZE", std::to_string(local)},
      {"GROUP_RANK", std::to_string(o.machineRank)},
      {"MASTER_ADDR", o.mainProcessIp.empty() ? std::string("127.0.0.1") : o.mainProcessIp},
      {"MASTER_PORT", std::to_string(slot.masterPort)},
      {"TORCHELASTIC_RESTART_COUNT", std::to_string(slot.restartCount)},
      {"TORCHELASTIC_MAX_RESTARTS", std::to_string(o.maxRestarts)},
  };
  if (o.numCpuThreadsPerProcess) {
    vars.emplace_back("OMP_NUM_THREADS", std::to_string(*o.numCpuThreadsPerProcess));
  } else if (!launcherOmpThreads && local > 1) {
    // torchrun: several processes each starting one OpenMP thread per core oversubscribe the machine.
    vars.emplace_back("OMP_NUM_THREADS", "1");
  }
  if (!o.gpuIds.empty()) {
    vars.emplace_back("CUDA_VISIBLE_DEVICES", o.gpuIds);  // Accelerate's launcher does the same for --gpu_ids
  }
  vars.emplace_back("ACCELERATE_MIXED_PRECISION", toString(o.mixedPrecision));
  if (o.cpu) {
    vars.emplace_back("ACCELERATE_USE_CPU", "True");  // Python's str(True), as Accelerate writes it
  }
  if (o.debug) {
    vars.emplace_back("ACCELERATE_DEBUG_MODE", "true");
  }
  if (o.gradientAccumulationSteps) {
    vars.emplace_back("ACCELERATE_GRADIENT_ACCUMULATION_STEPS", std::to_string(*o.gradientAccumulationSteps));
  }
  if (o.useFsdp) {
    vars.emplace_back("ACCELERATE_USE_FSDP", "true");
    for (const FsdpFlag& flag : fsdpFlags()) {
      std::optional<std::string> given = fsdpValue(o, flag.key);
      if (!given) {
        continue;
      }
      std::string value = std::move(*given);
      if (flag.isBool) {
        std::transform(value.begin(), value.end(), value.begin(), [](unsigned char c) { return std::tolower(c); });
      }
      vars.emplace_back(flag.variable, value);
    }
  }
  if (o.useMegatronLm) {
    vars.emplace_back("ACCELERATE_USE_MEGATRON_LM", "true");
  }
  if (o.useDeepSpeed) {
    vars.emplace_back("ACCELERATE_USE_DEEPSPEED", "true");
    vars.emplace_back("ACCELERATE_DEEPSPEED_ZERO_STAGE", std::to_string(o.zeroStage.value_or(2)));
    // Accelerate writes the devices lower-case (str(value).lower()).
    const auto device = [&](const char* variable, const std::optional<std::string>& value) {
      if (value) {
        std::string text = *value;
        std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
        vars.emplace_back(variable, text);
      }
    };
    device("ACCELERATE_DEEPSPEED_OFFLOAD_OPTIMIZER_DEVICE", o.offloadOptimizerDevice);
    device("ACCELERATE_DEEPSPEED_OFFLOAD_PARAM_DEVICE", o.offloadParamDevice);
  }
  vars.insert(vars.end(), o.fathomVariables.begin(), o.fathomVariables.end());
  return vars;
}

}  // namespace fathom::launch
