// SPDX-License-Identifier: Apache-2.0
#include <fathom/parallel/fsdp_options.h>

#include <fathom/common/error.h>
#include <fathom/config/config_schema.h>

#include "option_text.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <string>
#include <utility>

namespace fathom::parallel {
namespace {

using option_text::trimmed;

bool parseBoolText(std::string_view variable, std::string_view text) {
  const auto value = config::parseBool(trimmed(text));
  FATHOM_CHECK(value.has_value(), ConfigError, variable, "='", text, "' is not a boolean (true or false)");
  return *value;
}

/// Runs `parse` on the variable's value when it is set and not empty; a ConfigError names the variable.
template <typename F> void fromVariable(const runtime::EnvLookup& env, const char* variable, F&& parse) {
  const auto value = env(variable);
  if (!value || trimmed(*value).empty()) {
    return;
  }
  try {
    parse(*value);
  } catch (const ConfigError& e) {
    const std::string message = e.what();
    if (message.find(variable) != std::string::npos) {
      throw;
    }
    throw ConfigError(detail::concat(variable, ": ", message));
  }
}

std::vector<std::string> splitClassNames(std::string_view text) {
  std::vector<std::string> names;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = text.find(',', start);
    const std::string_view item =
        trimmed(text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (!item.empty()) {
      names.emplace_back(item);
    }
    if (comma == std::string_view::npos) {
      break;
    }
    start = comma + 1;
  }
  return names;
}

}  // namespace

void validate(const FsdpOptions& options) {
  FATHOM_CHECK(options.limitAllGathers >= 1, ConfigError, "FSDP limit_all_gathers must be >= 1, got ",
               options.limitAllGathers);
  FATHOM_CHECK(options.minNumParams >= 0, ConfigError, "fsdp_min_num_params must be >= 0, got ", options.minNumParams);
  FATHOM_CHECK(options.shardGroupSize >= 0, ConfigError,
               "FSDP shard group size (--fsdp_hybrid_group_size) must be >= 0 (0 = LOCAL_WORLD_SIZE), got ",
               options.shardGroupSize);
  config::kFsdpShardingStrategies.requireSupported(options.shardingStrategy, "fsdp_sharding_strategy");
  config::kFsdpStateDictTypes.requireSupported(options.stateDictType, "fsdp_state_dict_type");
  for (const std::string& name : options.transformerLayerClsToWrap) {
    FATHOM_CHECK(!name.empty(), ConfigError, "fsdp_transformer_layer_cls_to_wrap holds an empty class name");
  }
}

FsdpShardingStrategy parseFsdpShardingStrategy(std::string_view text) {
  return config::kFsdpShardingStrategies.parseSupported(trimmed(text));
}

FsdpWrapPolicy parseFsdpWrapPolicy(std::string_view text) {
  return config::kFsdpWrapPolicies.parseSupported(trimmed(text));
}

FsdpBackwardPrefetch parseFsdpBackwardPrefetch(std::string_view text) {
  return config::kFsdpBackwardPrefetches.parseSupported(trimmed(text));
}

FsdpStateDictType parseFsdpStateDictType(std::string_view text) {
  return config::kFsdpStateDictTypes.parseSupported(trimmed(text));
}

std::string_view toString(FsdpWrapPolicy policy) {
  return config::kFsdpWrapPolicies.toString(policy);
}

std::string_view toString(FsdpBackwardPrefetch prefetch) {
  return config::kFsdpBackwardPrefetches.toString(prefetch);
}

std::string_view toString(FsdpStateDictType type) {
  return config::kFsdpStateDictTypes.toString(type);
}

std::string_view fsdpShardingName(FsdpShardingStrategy strategy) {
  return config::kFsdpShardingStrategies.toString(strategy);
}

FsdpOptions fsdpOptionsFromEnvironment(const runtime::EnvLookup& env, FsdpOptions base) {
  FsdpOptions o = std::move(base);
  bool strategyGiven = false;
  fromVariable(env, "FSDP_SHARDING_STRATEGY", [&](const std::string& v) {
    o.shardingStrategy = parseFsdpShardingStrategy(v);
    strategyGiven = true;
  });
  // FSDP_RESHARD_AFTER_FORWARD is a sharding strategy name for FSDP1 (used when FSDP_SHARDING_STRATEGY is
  // absent, as Accelerate's plugin does) and a bool for FSDP2: false = parameters stay gathered from forward to
  // backward, which turns FULL_SHARD into SHARD_GRAD_OP and HYBRID_SHARD into HYBRID_SHARD_ZERO2; true keeps the
  // sharding strategy (`fathom launch` always sets it).
  fromVariable(env, "FSDP_RESHARD_AFTER_FORWARD", [&](const std::string& v) {
    if (const auto flag = config::parseBool(trimmed(v)); flag && trimmed(v) != "1") {
      if (!*flag && o.shardingStrategy == FsdpShardingStrategy::FullShard) {
        o.shardingStrategy = FsdpShardingStrategy::ShardGradOp;
      } else if (!*flag && o.shardingStrategy == FsdpShardingStrategy::HybridShard) {
        o.shardingStrategy = FsdpShardingStrategy::HybridShardZero2;
      }
      return;
    }
    const FsdpShardingStrategy strategy = parseFsdpShardingStrategy(v);
    if (!strategyGiven) {
      o.shardingStrategy = strategy;
    }
  });
  fromVariable(env, "FSDP_OFFLOAD_PARAMS",
               [&](const std::string& v) { o.offloadParams = parseBoolText("FSDP_OFFLOAD_PARAMS", v); });
  fromVariable(env, "FSDP_AUTO_WRAP_POLICY", [&](const std::string& v) { o.autoWrapPolicy = parseFsdpWrapPolicy(v); });
  fromVariable(env, "FSDP_TRANSFORMER_CLS_TO_WRAP",
               [&](const std::string& v) { o.transformerLayerClsToWrap = splitClassNames(v); });
  fromVariable(env, "FSDP_MIN_NUM_PARAMS", [&](const std::string& v) {
    const std::string_view t = trimmed(v);
    std::int64_t n = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), n);
    FATHOM_CHECK(ec == std::errc() && end == t.data() + t.size() && n >= 0, ConfigError, "FSDP_MIN_NUM_PARAMS='", v,
                 "' is not a non-negative integer");
    o.minNumParams = n;
  });
  fromVariable(env, "FSDP_BACKWARD_PREFETCH",
               [&](const std::string& v) { o.backwardPrefetch = parseFsdpBackwardPrefetch(v); });
  fromVariable(env, "FSDP_FORWARD_PREFETCH",
               [&](const std::string& v) { o.forwardPrefetch = parseBoolText("FSDP_FORWARD_PREFETCH", v); });
  fromVariable(env, "FSDP_STATE_DICT_TYPE", [&](const std::string& v) { o.stateDictType = parseFsdpStateDictType(v); });
  fromVariable(env, "FSDP_SYNC_MODULE_STATES",
               [&](const std::string& v) { o.syncModuleStates = parseBoolText("FSDP_SYNC_MODULE_STATES", v); });
  validate(o);
  return o;
}

}  // namespace fathom::parallel
