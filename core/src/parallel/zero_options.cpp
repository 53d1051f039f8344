// SPDX-License-Identifier: Apache-2.0
#include <fathom/parallel/zero_options.h>

#include <fathom/common/error.h>

#include "option_text.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <string>

namespace fathom::parallel {
namespace {

using option_text::trimmed;

/// The value of `variable` when it is set and not blank.
std::optional<std::string> valueOf(const runtime::EnvLookup& env, const char* variable) {
  auto value = env(variable);
  if (!value || trimmed(*value).empty()) {
    return std::nullopt;
  }
  return value;
}

OffloadDevice offloadFrom(const char* variable, const std::string& value) {
  try {
    return parseOffloadDevice(value);
  } catch (const ConfigError& e) {
    throw ConfigError(detail::concat(variable, ": ", e.what()));
  }
}

}  // namespace

void validate(const ZeroOptions& options) {
  FATHOM_CHECK(options.stage >= 1 && options.stage <= 3, ConfigError, "zero_stage must be 1, 2 or 3, got ",
               options.stage, " (stage 0 is plain data parallelism: use DDP)");
  FATHOM_CHECK(options.reduceBucketSize >= 1, ConfigError, "reduce_bucket_size must be >= 1 element, got ",
               options.reduceBucketSize);
  FATHOM_CHECK(options.allgatherBucketSize >= 1, ConfigError, "allgather_bucket_size must be >= 1 element, got ",
               options.allgatherBucketSize);
  FATHOM_CHECK(options.offloadParams == OffloadDevice::None || options.stage == 3, ConfigError, "offload_param_device ",
               toString(options.offloadParams), " needs zero_stage 3, got zero_stage ", options.stage,
               " (DeepSpeed offloads parameters only under stage 3)");
}

OffloadDevice parseOffloadDevice(std::string_view text) {
  return config::kOffloadDevices.parse(trimmed(text));
}

std::string_view toString(OffloadDevice device) {
  return config::kOffloadDevices.toString(device);
}

ZeroOptions zeroOptionsFromEnvironment(const runtime::EnvLookup& env, ZeroOptions base) {
  ZeroOptions o = base;
  if (const auto value = valueOf(env, "ACCELERATE_DEEPSPEED_ZERO_STAGE")) {
    const std::string_view t = trimmed(*value);
    int stage = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), stage);
    FATHOM_CHECK(ec == std::errc() && end == t.data() + t.size(), ConfigError, "ACCELERATE_DEEPSPEED_ZERO_STAGE='",
                 *value, "' is not an integer (expected 1, 2 or 3)");
    FATHOM_CHECK(stage >= 1 && stage <= 3, ConfigError, "ACCELERATE_DEEPSPEED_ZERO_STAGE=", stage,
                 " is not supported (expected 1, 2 or 3; stage 0 is plain data parallelism: use DDP)");
    o.stage = stage;
  }
  if (const auto value = valueOf(env, "ACCELERATE_DEEPSPEED_OFFLOAD_OPTIMIZER_DEVICE")) {
    o.offloadOptimizer = offloadFrom("ACCELERATE_DEEPSPEED_OFFLOAD_OPTIMIZER_DEVICE", *value);
  }
  if (const auto value = valueOf(env, "ACCELERATE_DEEPSPEED_OFFLOAD_PARAM_DEVICE")) {
    o.offloadParams = offloadFrom("ACCELERATE_DEEPSPEED_OFFLOAD_PARAM_DEVICE", *value);
  }
  validate(o);
  return o;
}

}  // namespace fathom::parallel
