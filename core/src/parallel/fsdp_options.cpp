// SPDX-License-Identifier: Apache-2.0
#include <fathom/parallel/fsdp_options.h>

#include <fathom/common/error.h>
#include <fathom/config/config_schema.h>

#include "option_text.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <string>
#include <utility>

namespace fathom::parallel {
namespace {

using option_text::trimmed;
using option_text::upperKey;

/// Looks `text` up by Accelerate's name (any case, '-' for '_') or by its 1-based position in `table` (the legacy
/// integer spelling of torch's enums); `accepted` lists the names for the error message.
template <typename E, std::size_t N>
E lookup(std::string_view what, std::string_view text, const std::array<std::pair<const char*, E>, N>& table,
         std::size_t legacyCount, std::string_view accepted) {
  const std::string key = upperKey(trimmed(text));
  for (const auto& [name, value] : table) {
    if (key == name) {
      return value;
    }
  }
  int index = 0;
  const auto [end, ec] = std::from_chars(key.data(), key.data() + key.size(), index);
  if (ec == std::errc() && end == key.data() + key.size() && index >= 1 &&
      static_cast<std::size_t>(index) <= legacyCount) {
    return table[static_cast<std::size_t>(index - 1)].second;
  }
  throw ConfigError(detail::concat("invalid ", what, " '", text, "' (expected ", accepted, ")"));
}

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
  for (const std::string& name : options.transformerLayerClsToWrap) {
    FATHOM_CHECK(!name.empty(), ConfigError, "fsdp_transformer_layer_cls_to_wrap holds an empty class name");
  }
}

FsdpShardingStrategy parseFsdpShardingStrategy(std::string_view text) {
  // torch.distributed.fsdp.ShardingStrategy's values, 1-based as Accelerate's legacy configs write them (the first
  // five entries); torch's own spelling of the fifth last.
  static constexpr std::array<std::pair<const char*, FsdpShardingStrategy>, 6> table{
      {{"FULL_SHARD", FsdpShardingStrategy::FullShard},
       {"SHARD_GRAD_OP", FsdpShardingStrategy::ShardGradOp},
       {"NO_SHARD", FsdpShardingStrategy::NoShard},
       {"HYBRID_SHARD", FsdpShardingStrategy::HybridShard},
       {"HYBRID_SHARD_ZERO2", FsdpShardingStrategy::HybridShardZero2},
       {"_HYBRID_SHARD_ZERO2", FsdpShardingStrategy::HybridShardZero2}}};
  return lookup("fsdp_sharding_strategy", text, table, 5,
                "FULL_SHARD, SHARD_GRAD_OP, NO_SHARD, HYBRID_SHARD, HYBRID_SHARD_ZERO2 or 1-5");
}

FsdpWrapPolicy parseFsdpWrapPolicy(std::string_view text) {
  // Accelerate has no integer spelling for the wrap policy.
  static constexpr std::array<std::pair<const char*, FsdpWrapPolicy>, 3> table{
      {{"TRANSFORMER_BASED_WRAP", FsdpWrapPolicy::TransformerBased},
       {"SIZE_BASED_WRAP", FsdpWrapPolicy::SizeBased},
       {"NO_WRAP", FsdpWrapPolicy::NoWrap}}};
  return lookup("fsdp_auto_wrap_policy", text, table, 0, "TRANSFORMER_BASED_WRAP, SIZE_BASED_WRAP or NO_WRAP");
}

FsdpBackwardPrefetch parseFsdpBackwardPrefetch(std::string_view text) {
  // torch.distributed.fsdp.BackwardPrefetch: BACKWARD_PRE = 1, BACKWARD_POST = 2; NO_PREFETCH is Accelerate's.
  static constexpr std::array<std::pair<const char*, FsdpBackwardPrefetch>, 3> table{
      {{"BACKWARD_PRE", FsdpBackwardPrefetch::BackwardPre},
       {"BACKWARD_POST", FsdpBackwardPrefetch::BackwardPost},
       {"NO_PREFETCH", FsdpBackwardPrefetch::NoPrefetch}}};
  return lookup("fsdp_backward_prefetch", text, table, 2, "BACKWARD_PRE, BACKWARD_POST, NO_PREFETCH or 1-2");
}

FsdpStateDictType parseFsdpStateDictType(std::string_view text) {
  const std::string key = upperKey(trimmed(text));
  FATHOM_CHECK(key != "LOCAL_STATE_DICT" && key != "2", ConfigError, "fsdp_state_dict_type '", text,
               "' (LOCAL_STATE_DICT) is not supported by Fathom; use FULL_STATE_DICT or SHARDED_STATE_DICT");
  // StateDictType: FULL_STATE_DICT = 1, LOCAL_STATE_DICT = 2, SHARDED_STATE_DICT = 3.
  if (key == "1") {
    return FsdpStateDictType::FullStateDict;
  }
  if (key == "3") {
    return FsdpStateDictType::ShardedStateDict;
  }
  static constexpr std::array<std::pair<const char*, FsdpStateDictType>, 2> table{
      {{"FULL_STATE_DICT", FsdpStateDictType::FullStateDict},
       {"SHARDED_STATE_DICT", FsdpStateDictType::ShardedStateDict}}};
  return lookup("fsdp_state_dict_type", text, table, 0, "FULL_STATE_DICT, SHARDED_STATE_DICT, 1 or 3");
}

std::string_view toString(FsdpWrapPolicy policy) {
  switch (policy) {
  case FsdpWrapPolicy::TransformerBased: return "TRANSFORMER_BASED_WRAP";
  case FsdpWrapPolicy::SizeBased: return "SIZE_BASED_WRAP";
  case FsdpWrapPolicy::NoWrap: return "NO_WRAP";
  }
  return "UNKNOWN";
}

std::string_view toString(FsdpBackwardPrefetch prefetch) {
  switch (prefetch) {
  case FsdpBackwardPrefetch::BackwardPre: return "BACKWARD_PRE";
  case FsdpBackwardPrefetch::BackwardPost: return "BACKWARD_POST";
  case FsdpBackwardPrefetch::NoPrefetch: return "NO_PREFETCH";
  }
  return "UNKNOWN";
}

std::string_view toString(FsdpStateDictType type) {
  switch (type) {
  case FsdpStateDictType::FullStateDict: return "FULL_STATE_DICT";
  case FsdpStateDictType::ShardedStateDict: return "SHARDED_STATE_DICT";
  }
  return "UNKNOWN";
}

std::string_view fsdpShardingName(FsdpShardingStrategy strategy) {
  switch (strategy) {
  case FsdpShardingStrategy::FullShard: return "FULL_SHARD";
  case FsdpShardingStrategy::ShardGradOp: return "SHARD_GRAD_OP";
  case FsdpShardingStrategy::HybridShard: return "HYBRID_SHARD";
  case FsdpShardingStrategy::HybridShardZero2: return "HYBRID_SHARD_ZERO2";
  case FsdpShardingStrategy::NoShard: return "NO_SHARD";
  }
  return "UNKNOWN";
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
    if (const auto flag = config::parseBool(trimmed(v)); flag && upperKey(trimmed(v)) != "1") {
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
