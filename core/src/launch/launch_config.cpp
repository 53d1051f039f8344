// SPDX-License-Identifier: Apache-2.0
#include <fathom/launch/launch_config.h>

#include <fathom/common/error.h>

#include <type_traits>
#include <variant>

namespace fathom::launch {
namespace {

/// A value as a worker variable spells it: booleans lower-case, lists comma-separated.
std::string variableText(const config::ConfigValue& value) {
  return std::visit(
      [](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, bool>) {
          return v ? "true" : "false";
        } else if constexpr (std::is_same_v<T, std::string>) {
          return v;
        } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
          std::string joined;
          for (const auto& item : v) {
            if (!joined.empty()) {
              joined.push_back(',');
            }
            joined.append(item);
          }
          return joined;
        } else if constexpr (std::is_same_v<T, std::vector<bool>>) {
          std::string joined;
          for (bool item : v) {
            if (!joined.empty()) {
              joined.push_back(',');
            }
            joined.append(item ? "true" : "false");
          }
          return joined;
        } else {
          return std::to_string(v);
        }
      },
      value);
}

/// The value at `path` unless it is only Accelerate's default.
const config::ResolvedValue* chosen(const config::EffectiveConfig& effective, const std::string& path) {
  const config::ResolvedValue* value = effective.find(path);
  return value != nullptr && value->source != config::ValueSource::Default ? value : nullptr;
}

}  // namespace

LaunchOptions launchOptionsFromConfig(const config::EffectiveConfig& effective) {
  const config::AccelerateConfig& c = effective.config;
  LaunchOptions o;
  // -1 is Accelerate's "not set" (the launcher then runs one process); anything else below 1 is a mistake.
  if (const auto n = c.numProcesses(); n >= 1) {
    o.numProcesses = static_cast<int>(n);
  } else if (const auto* given = chosen(effective, "num_processes"); given != nullptr && n != -1) {
    throw ConfigError(detail::concat("num_processes must be >= 1, got ", n, " (", given->origin, ")"));
  }
  o.numMachines = static_cast<int>(c.numMachines());
  o.machineRank = static_cast<int>(c.machineRank());
  o.mainProcessIp = c.mainProcessIp().value_or("");
  if (const auto port = c.mainProcessPort()) {
    FATHOM_CHECK(*port >= 0 && *port <= 65535, ConfigError, "main_process_port must be a port number, got ", *port);
    o.mainProcessPort = static_cast<std::uint16_t>(*port);
  }
  const std::string precision = c.mixedPrecision();
  const auto parsed = mixedPrecisionFromString(precision);
  FATHOM_CHECK(parsed.has_value(), ConfigError, "mixed_precision ", precision, " is not supported by fathom launch");
  o.mixedPrecision = *parsed;
  o.cpu = c.useCpu();
  o.debug = c.getBool("debug").value_or(false);

  const std::string type = c.distributedType();
  FATHOM_CHECK(
      type == "NO" || type == "MULTI_CPU" || type == "MULTI_GPU" || type == "FSDP" || type == "DEEPSPEED" ||
          type == "MEGATRON_LM",
      ConfigError, "distributed_type ", type,
      " is not supported by fathom launch (supported: NO, MULTI_CPU, MULTI_GPU, FSDP, DEEPSPEED, MEGATRON_LM)");
  // As accelerate launch: with use_cpu the simple launcher runs, whatever the distributed type says.
  o.useFsdp = !o.cpu && type == "FSDP";
  o.useDeepSpeed = !o.cpu && type == "DEEPSPEED";
  o.useMegatronLm = !o.cpu && type == "MEGATRON_LM";
  for (const FsdpFlag& flag : fsdpFlags()) {
    if (const auto* value = chosen(effective, std::string("fsdp_config.") + flag.key)) {
      o.fsdp[flag.key] = variableText(value->value);
    }
  }
  if (const auto* stage = chosen(effective, "deepspeed_config.zero_stage")) {
    o.zeroStage = static_cast<int>(std::get<std::int64_t>(stage->value));
  }
  if (const auto* device = chosen(effective, "deepspeed_config.offload_optimizer_device")) {
    o.offloadOptimizerDevice = variableText(device->value);
  }
  if (const auto* device = chosen(effective, "deepspeed_config.offload_param_device")) {
    o.offloadParamDevice = variableText(device->value);
  }
  if (const auto* steps = chosen(effective, "gradient_accumulation_steps")) {
    o.gradientAccumulationSteps = static_cast<int>(std::get<std::int64_t>(steps->value));
  } else if (const auto* dsSteps = chosen(effective, "deepspeed_config.gradient_accumulation_steps");
             dsSteps != nullptr && o.useDeepSpeed) {
    o.gradientAccumulationSteps = static_cast<int>(std::get<std::int64_t>(dsSteps->value));
  }
  return o;
}

}  // namespace fathom::launch
