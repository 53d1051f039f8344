// SPDX-License-Identifier: Apache-2.0
#include <fathom/launch/launch_options.h>

#include <fathom/common/error.h>
#include <fathom/config/config_schema.h>

#include <algorithm>
#include <array>

namespace fathom::launch {
namespace {

constexpr std::array kFsdpFlags{
    FsdpFlag{"fsdp_version", "FSDP_VERSION", "1", false},
    FsdpFlag{"fsdp_sharding_strategy", "FSDP_SHARDING_STRATEGY", "FULL_SHARD", false},
    FsdpFlag{"fsdp_reshard_after_forward", "FSDP_RESHARD_AFTER_FORWARD", "true", false},
    FsdpFlag{"fsdp_offload_params", "FSDP_OFFLOAD_PARAMS", "false", true},
    FsdpFlag{"fsdp_min_num_params", "FSDP_MIN_NUM_PARAMS", "100000000", false},
    FsdpFlag{"fsdp_auto_wrap_policy", "FSDP_AUTO_WRAP_POLICY", nullptr, false},
    // Accelerate's one irregular name: the flag says "layer", the variable does not.
    FsdpFlag{"fsdp_transformer_layer_cls_to_wrap", "FSDP_TRANSFORMER_CLS_TO_WRAP", nullptr, false},
    FsdpFlag{"fsdp_backward_prefetch", "FSDP_BACKWARD_PREFETCH", nullptr, false},
    FsdpFlag{"fsdp_state_dict_type", "FSDP_STATE_DICT_TYPE", nullptr, false},
    FsdpFlag{"fsdp_forward_prefetch", "FSDP_FORWARD_PREFETCH", "false", true},
    FsdpFlag{"fsdp_use_orig_params", "FSDP_USE_ORIG_PARAMS", "true", true},
    FsdpFlag{"fsdp_cpu_ram_efficient_loading", "FSDP_CPU_RAM_EFFICIENT_LOADING", "true", true},
    FsdpFlag{"fsdp_sync_module_states", "FSDP_SYNC_MODULE_STATES", "true", true},
    FsdpFlag{"fsdp_activation_checkpointing", "FSDP_ACTIVATION_CHECKPOINTING", "false", true},
};

std::optional<bool> parseBool(std::string_view text) {
  return text.empty() ? std::optional<bool>(false) : config::parseBool(text);
}

}  // namespace

std::span<const FsdpFlag> fsdpFlags() {
  return kFsdpFlags;
}

std::optional<std::string> fsdpValue(const LaunchOptions& options, std::string_view key) {
  if (const auto given = options.fsdp.find(std::string(key)); given != options.fsdp.end()) {
    return given->second;
  }
  for (const FsdpFlag& flag : kFsdpFlags) {
    if (flag.key == key && flag.defaultValue != nullptr) {
      return std::string(flag.defaultValue);
    }
  }
  return std::nullopt;
}

std::optional<MixedPrecision> mixedPrecisionFromString(std::string_view text) {
  return config::kMixedPrecisions.find(text);
}

void validate(const LaunchOptions& o) {
  FATHOM_CHECK(!o.command.empty() && !o.command.front().empty(), ConfigError,
               "no program given: use `fathom launch [flags] PROGRAM [ARGS...]`");
  FATHOM_CHECK(o.numProcesses >= 1, ConfigError, "--num_processes must be >= 1, got ", o.numProcesses);
  FATHOM_CHECK(o.numMachines >= 1, ConfigError, "--num_machines must be >= 1, got ", o.numMachines);
  FATHOM_CHECK(o.numProcesses % o.numMachines == 0, ConfigError, "--num_processes (", o.numProcesses,
               ", the total over all machines) must be a multiple of --num_machines (", o.numMachines, ")");
  FATHOM_CHECK(o.machineRank >= 0 && o.machineRank < o.numMachines, ConfigError, "--machine_rank must be in [0, ",
               o.numMachines, "), got ", o.machineRank);
  if (o.numMachines > 1) {
    FATHOM_CHECK(!o.mainProcessIp.empty(), ConfigError, "--main_process_ip is required with --num_machines ",
                 o.numMachines, ": every machine must reach machine 0's rendezvous store");
    FATHOM_CHECK(o.mainProcessPort != 0, ConfigError, "--main_process_port is required with --num_machines ",
                 o.numMachines, " (a free port cannot be agreed between machines)");
  }
  const int modes = int(o.cpu) + int(o.useFsdp) + int(o.useDeepSpeed) + int(o.useMegatronLm);
  FATHOM_CHECK(modes <= 1, ConfigError,
               "You can only use one of `--cpu`, `--use_deepspeed`, `--use_fsdp` at a time (as accelerate launch)");
  if (o.gradientAccumulationSteps) {
    FATHOM_CHECK(*o.gradientAccumulationSteps >= 1, ConfigError, "--gradient_accumulation_steps must be >= 1, got ",
                 *o.gradientAccumulationSteps);
  }
  if (o.zeroStage) {
    FATHOM_CHECK(*o.zeroStage >= 0 && *o.zeroStage <= 3, ConfigError, "--zero_stage must be 0, 1, 2 or 3, got ",
                 *o.zeroStage);
  }
  if (o.numCpuThreadsPerProcess) {
    FATHOM_CHECK(*o.numCpuThreadsPerProcess >= 1, ConfigError, "--num_cpu_threads_per_process must be >= 1, got ",
                 *o.numCpuThreadsPerProcess);
  }
  for (const auto& [key, value] : o.fsdp) {
    const auto flag =
        std::find_if(kFsdpFlags.begin(), kFsdpFlags.end(), [&key = key](const FsdpFlag& f) { return key == f.key; });
    FATHOM_CHECK(flag != kFsdpFlags.end(), ConfigError, "unknown FSDP option --", key);
    if (flag->isBool) {
      FATHOM_CHECK(parseBool(value).has_value() && !value.empty(), ConfigError, "--", key,
                   " must be true or false, got ", value);
    }
  }
  const auto fsdpBool = [&](const char* key, bool fallback) {
    const auto it = o.fsdp.find(key);
    return it == o.fsdp.end() ? fallback : parseBool(it->second).value_or(fallback);
  };
  FATHOM_CHECK(!o.useFsdp || !fsdpBool("fsdp_cpu_ram_efficient_loading", true) ||
                   fsdpBool("fsdp_sync_module_states", true),
               ConfigError, "When using `--fsdp_cpu_ram_efficient_loading` set `--fsdp_sync_module_states` to `True`");
  FATHOM_CHECK(o.maxRestarts >= 0, ConfigError, "--max_restarts must be >= 0, got ", o.maxRestarts);
  FATHOM_CHECK(o.monitorInterval.count() > 0, ConfigError, "--monitor_interval must be positive, got ",
               o.monitorInterval.count(), " ms");
  FATHOM_CHECK(o.terminateGracePeriod.count() >= 0, ConfigError, "--terminate_grace_period must be >= 0, got ",
               o.terminateGracePeriod.count(), " ms");
  FATHOM_CHECK(o.tailLines >= 0, ConfigError, "the log tail length must be >= 0, got ", o.tailLines);
  FATHOM_CHECK(!o.tee || *o.tee == TeeStreams::None || !o.logDir.empty(), ConfigError, "--tee ",
               static_cast<int>(*o.tee), " needs --log_dir: the log files are written there");
}

}  // namespace fathom::launch
