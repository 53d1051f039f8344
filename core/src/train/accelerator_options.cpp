// SPDX-License-Identifier: Apache-2.0
#include <fathom/common/error.h>
#include <fathom/train/accelerator_options.h>

#include <charconv>
#include <string>

namespace fathom::train {

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

  parallel::validate(options.ddp);
  precision::validate(options.gradScaler);
  return resolved;
}

}  // namespace fathom::train
