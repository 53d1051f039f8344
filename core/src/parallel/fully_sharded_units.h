// SPDX-License-Identifier: Apache-2.0
// Internal to the fully sharded engine: which modules become units, and one unit's runtime state.
#pragma once

#include "flat_param.h"

#include <fathom/parallel/fully_sharded_engine.h>

#include <torch/csrc/autograd/function.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace fathom::parallel::detail {

/// One unit: the module it wraps (null for the root), its flat parameter and its backward bookkeeping.
struct ShardedUnit {
  bool root = false;
  const torch::nn::Module* module = nullptr;
  std::unique_ptr<FlatParam> flat;
  /// ZeRO-3 offload_optimizer: the host fp32 copy of the shard the optimizer steps (undefined otherwise).
  at::Tensor master;
  /// Gradient accumulators of the unit's parameters with our post-hook's key. Held strongly on purpose: a
  /// parameter keeps its accumulator only weakly, and a fresh one would have no hook.
  std::vector<std::pair<std::shared_ptr<torch::autograd::Node>, std::uintptr_t>> accumulators;
  std::size_t pending = 0;  ///< parameters whose gradient has not arrived in this backward pass
  bool done = false;        ///< post-backward ran in this pass
};

/// The last `::` component of a module's name ("fathom::models::GptBlock" -> "GptBlock").
std::string className(const torch::nn::Module& module);

/// Chooses the units of `module` under `config`'s wrap policy and builds their flat parameters (root first,
/// when parameters are left outside every wrapped module; then the wrapped modules in registration order).
/// `base` carries rank, world and offload; labels are module paths ("root" for the root). ConfigError when the
/// policy finds no module to wrap, a parameter is shared between two units, or a unit mixes parameters that do
/// and do not require grad.
std::vector<ShardedUnit> buildUnits(torch::nn::Module& module, const FullyShardedConfig& config,
                                    const FlatParam::Options& base, const std::string& prefix);

}  // namespace fathom::parallel::detail
