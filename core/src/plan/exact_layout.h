// SPDX-License-Identifier: Apache-2.0
// Internal: the flat buffers the sharded engines allocate for a model whose parameter tensors are known.
#pragma once

#include <fathom/plan/model_spec.h>
#include <fathom/plan/training_plan.h>

#include <cstdint>
#include <vector>

namespace fathom::plan::detail {

/// FSDP / ZeRO-3 units and ZeRO-1/2 buckets of a built-in model (ModelSpec::parameterTensors and blockElements
/// known), element counts before padding: what core/parallel allocates and communicates (shard_layout.h).
/// `known` is false for every other input, and the planner keeps its approximate formulas then.
struct ExactLayout {
  bool known = false;                 ///< the tensor sizes are known and the plan is one the layout describes
  std::vector<std::int64_t> units;    ///< FSDP / ZeRO-3: the root unit first (when it has parameters), then the
                                      ///< wrapped blocks in forward order
  bool hasRoot = false;               ///< units.front() is the root unit (parameters outside wrapped blocks)
  std::vector<std::int64_t> buckets;  ///< ZeRO-1/2: buckets in reduction order (plan::zeroBuckets)
};

/// The layout for `plan` on `model`: known when the parameter tensors are known, tp = pp = 1, the parameters are
/// fp32 (fp32 or autocast training) and the strategy shards (fsdp, zero1-3). Units follow plan.fsdpWrap:
/// TransformerBased wraps every block, SizeBased the blocks of at least plan.fsdpMinNumParams elements, NoWrap none.
ExactLayout exactLayout(const ModelSpec& model, const Plan& plan);

/// Σ paddedElements(e, ranks) over `elements`.
std::int64_t paddedSum(const std::vector<std::int64_t>& elements, int ranks);
/// Σ shardElements(e, ranks) over `elements`.
std::int64_t shardSum(const std::vector<std::int64_t>& elements, int ranks);
/// max paddedElements(e, ranks) over `elements` (0 when empty).
std::int64_t largestPadded(const std::vector<std::int64_t>& elements, int ranks);

}  // namespace fathom::plan::detail
