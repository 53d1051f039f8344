// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/config/vocabulary.h>
#include <fathom/runtime/process_state.h>

#include <c10/core/ScalarType.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fathom::parallel {

/// torch.distributed.fsdp.ShardingStrategy, Accelerate's fsdp_auto_wrap_policy, BackwardPrefetch and
/// fsdp_state_dict_type: the run configuration's vocabulary (config/vocabulary.h), which the planner shares, so a
/// run and its plan name the same thing. Everything not inside a wrapped unit belongs to the root unit.
using FsdpShardingStrategy = config::FsdpShardingStrategy;
using FsdpWrapPolicy = config::FsdpWrapPolicy;
using FsdpBackwardPrefetch = config::FsdpBackwardPrefetch;
using FsdpStateDictType = config::FsdpStateDictType;

/// torch.distributed.fsdp.MixedPrecision: dtypes FSDP casts to. std::nullopt = keep the parameter's dtype
/// (float32), which is also what the planner assumes for Accelerate's autocast mixed precision.
struct FsdpMixedPrecision {
  std::optional<c10::ScalarType> paramDtype;   ///< dtype parameters are gathered and computed in
  std::optional<c10::ScalarType> reduceDtype;  ///< dtype gradients are reduce-scattered in
  std::optional<c10::ScalarType> bufferDtype;  ///< dtype buffers are cast to
};

/// FullyShardedDataParallel's settings, with Accelerate's FullyShardedDataParallelPlugin defaults. Each field
/// names its fsdp_config key / FSDP_* variable (docs/sharding.md has the table).
struct FsdpOptions {
  FsdpShardingStrategy shardingStrategy = FsdpShardingStrategy::FullShard;  ///< fsdp_sharding_strategy
  FsdpWrapPolicy autoWrapPolicy = FsdpWrapPolicy::TransformerBased;         ///< fsdp_auto_wrap_policy
  /// fsdp_transformer_layer_cls_to_wrap: class names (the last `::` component of torch::nn::Module::name()).
  /// Empty = the model's own block type (models::Model::repeatedBlockType()), as Accelerate's
  /// `_no_split_modules` default.
  std::vector<std::string> transformerLayerClsToWrap;
  std::int64_t minNumParams = 100'000'000;                                    ///< fsdp_min_num_params (SIZE_BASED_WRAP)
  FsdpBackwardPrefetch backwardPrefetch = FsdpBackwardPrefetch::BackwardPre;  ///< fsdp_backward_prefetch
  bool forwardPrefetch = false;  ///< fsdp_forward_prefetch: issue the next unit's all-gather in forward
  /// limit_all_gathers: at most this many units gathered ahead of the one running (>= 1).
  int limitAllGathers = 2;
  FsdpMixedPrecision mixedPrecision;  ///< mixed_precision_policy
  bool offloadParams = false;         ///< fsdp_offload_params: shards, gradients and the step on the CPU
  bool syncModuleStates = true;       ///< fsdp_sync_module_states: broadcast rank 0's state first
  FsdpStateDictType stateDictType = FsdpStateDictType::FullStateDict;  ///< fsdp_state_dict_type
  /// HYBRID_SHARD, HYBRID_SHARD_ZERO2: ranks per shard group ("node"); 0 = LOCAL_WORLD_SIZE (the launcher's ranks
  /// per machine).
  int shardGroupSize = 0;
};

/// Throws ConfigError naming the value: limitAllGathers < 1, minNumParams < 0, shardGroupSize < 0, a sharding strategy
/// or state-dict type Fathom does not run (config::NamedValue::supported).
void validate(const FsdpOptions& options);

/// FSDP options from Accelerate's FSDP_* environment variables (what `fathom launch` / `accelerate launch` set
/// for fsdp_config keys), starting from `base`. ConfigError names the variable and value that does not parse.
FsdpOptions fsdpOptionsFromEnvironment(const runtime::EnvLookup& env, FsdpOptions base = {});

/// Parsers accepting Accelerate's spellings (config/vocabulary.h: upper case, or the 1-based integers of older
/// configs), case-insensitive; ConfigError naming the value and the accepted ones, or a value Fathom does not run.
FsdpShardingStrategy parseFsdpShardingStrategy(std::string_view text);
FsdpWrapPolicy parseFsdpWrapPolicy(std::string_view text);
FsdpBackwardPrefetch parseFsdpBackwardPrefetch(std::string_view text);
FsdpStateDictType parseFsdpStateDictType(std::string_view text);

/// Accelerate's spellings: "FULL_SHARD", "TRANSFORMER_BASED_WRAP", "BACKWARD_PRE", "FULL_STATE_DICT", ...
std::string_view toString(FsdpWrapPolicy policy);
std::string_view toString(FsdpBackwardPrefetch prefetch);
std::string_view toString(FsdpStateDictType type);
/// "FULL_SHARD", "SHARD_GRAD_OP", "NO_SHARD", "HYBRID_SHARD", "HYBRID_SHARD_ZERO2".
std::string_view fsdpShardingName(FsdpShardingStrategy strategy);

}  // namespace fathom::parallel
