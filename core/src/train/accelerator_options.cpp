// SPDX-License-Identifier: Apache-2.0
#include <fathom/common/error.h>
#include <fathom/config/config_resolver.h>
#include <fathom/config/config_schema.h>
#include <fathom/train/accelerator_options.h>

#include <charconv>
#include <string>

namespace fathom::train {
namespace {

/// ACCELERATE_USE_FSDP / ACCELERATE_USE_DEEPSPEED as Accelerate reads them (str_to_bool; unset or empty = false).
bool useFlag(const runtime::EnvLookup& env, const char* variable) {
  const auto value = env(variable);
  if (!value || value->empty()) {
    return false;
  }
  const auto flag = config::parseBool(*value);
  FATHOM_CHECK(flag.has_value(), ConfigError, variable, "='", *value, "' is not a boolean (true or false)");
  return *flag;
}

/// FSDP or ZeRO: options given in code win (Accelerate's plugin passed to the constructor); otherwise the launcher's
/// ACCELERATE_USE_FSDP / ACCELERATE_USE_DEEPSPEED select the strategy and its variables fill it in.
void resolveShardingOptions(const AcceleratorOptions& options, const runtime::EnvLookup& env,
                            ResolvedAcceleratorOptions& resolved) {
  FATHOM_CHECK(!(options.fsdp && options.deepspeed), ConfigError,
               "AcceleratorOptions: fsdp and deepspeed are both set; choose one sharding strategy");
  if (options.fsdp) {
    resolved.fsdp = options.fsdp;
  } else if (options.deepspeed) {
    resolved.zero = options.deepspeed;
  } else {
    const bool useFsdp = useFlag(env, "ACCELERATE_USE_FSDP");
    const bool useDeepSpeed = useFlag(env, "ACCELERATE_USE_DEEPSPEED");
    FATHOM_CHECK(!(useFsdp && useDeepSpeed), ConfigError,
                 "ACCELERATE_USE_FSDP and ACCELERATE_USE_DEEPSPEED are both true; a run uses one of them");
    if (useFsdp) {
      resolved.fsdp = parallel::fsdpOptionsFromEnvironment(env);
    } else if (useDeepSpeed) {
      resolved.zero = parallel::zeroOptionsFromEnvironment(env);
    }
  }
  if (resolved.fsdp) {
    parallel::validate(*resolved.fsdp);
  }
  if (resolved.zero) {
    parallel::validate(*resolved.zero);
  }
}

}  // namespace

ResolvedAcceleratorOptions resolveAcceleratorOptions(const AcceleratorOptions& options, const runtime::EnvLookup& env) {
  ResolvedAcceleratorOptions resolved;
  resolved.raw = options;

  if (options.mixedPrecision) {
    resolved.mixedPrecision = *options.mixedPrecision;
  } else if (auto value = env("ACCELERATE_MIXED_PRECISION"); value && !value->empty()) {
    try {
      resolved.mixedPrecision = precision::parseMixedPrecision(*value);
    } catch (const ConfigError& e) {
      throw ConfigError(detail::concat("ACCELERATE_MIXED_PRECISION: ", e.what()));
    }
  }
  FATHOM_CHECK(resolved.mixedPrecision != precision::MixedPrecision::Fp8, ConfigError,
               "mixed_precision 'fp8' is not supported: Fathom has no fp8 backend (use 'bf16' or 'fp16')");

  // Accelerate reads ACCELERATE_GRADIENT_ACCUMULATION_STEPS with the constructor's value as the fallback, so the
  // environment `accelerate launch --gradient_accumulation_steps` sets wins over the code (unlike mixed precision).
  if (auto value = env("ACCELERATE_GRADIENT_ACCUMULATION_STEPS"); value && !value->empty()) {
    int steps = 0;
    const auto [end, ec] = std::from_chars(value->data(), value->data() + value->size(), steps);
    FATHOM_CHECK(ec == std::errc() && end == value->data() + value->size(), ConfigError,
                 "ACCELERATE_GRADIENT_ACCUMULATION_STEPS='", *value, "' is not an integer");
    resolved.gradientAccumulationSteps = steps;
  } else if (options.gradientAccumulationSteps) {
    resolved.gradientAccumulationSteps = *options.gradientAccumulationSteps;
  }
  FATHOM_CHECK(resolved.gradientAccumulationSteps >= 1, ConfigError, "gradient_accumulation_steps must be >= 1 (got ",
               resolved.gradientAccumulationSteps, ")");

  resolveShardingOptions(options, env, resolved);

  if (options.workspace) {
    resolved.workspace = *options.workspace;
  } else {
    config::ResolveInputs inputs;
    inputs.environment.emplace();
    for (const std::string& name : config::environmentNamesFor("fathom.workspace")) {
      if (auto value = env(name)) {
        inputs.environment->emplace(name, *value);
      }
    }
    resolved.workspace = config::resolveWorkspace(std::nullopt, std::move(inputs)).path;
  }

  parallel::validate(options.ddp);
  precision::validate(options.gradScaler);
  return resolved;
}

}  // namespace fathom::train
