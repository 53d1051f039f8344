// SPDX-License-Identifier: Apache-2.0
#include "exact_layout.h"

#include <fathom/plan/shard_layout.h>

#include <algorithm>
#include <numeric>

namespace fathom::plan::detail {

ExactLayout exactLayout(const ModelSpec& model, const Plan& plan) {
  ExactLayout layout;
  const bool sharded = plan.strategy != Strategy::Ddp;
  const bool fp32Params = plan.precision == Precision::Fp32 || plan.masterWeights == MasterWeights::Autocast;
  if (!sharded || !fp32Params || model.parameterTensors.empty() || plan.tp != 1 || plan.pp != 1) {
    return layout;
  }
  layout.known = true;
  if (plan.strategy == Strategy::Zero1 || plan.strategy == Strategy::Zero2) {
    layout.buckets = zeroBuckets(model.parameterTensors, plan.zeroBucketElements);
    return layout;
  }
  const std::int64_t total =
      std::accumulate(model.parameterTensors.begin(), model.parameterTensors.end(), std::int64_t{0});
  std::vector<std::int64_t> wrapped;
  for (const std::int64_t block : model.blockElements) {
    const bool wrap = plan.fsdpWrap == FsdpWrap::TransformerBased ||
                      (plan.fsdpWrap == FsdpWrap::SizeBased && block >= plan.fsdpMinNumParams);
    if (wrap && block > 0) {
      wrapped.push_back(block);
    }
  }
  const std::int64_t root = total - std::accumulate(wrapped.begin(), wrapped.end(), std::int64_t{0});
  layout.hasRoot = root > 0;
  if (layout.hasRoot) {
    layout.units.push_back(root);
  }
  layout.units.insert(layout.units.end(), wrapped.begin(), wrapped.end());
  return layout;
}

std::int64_t paddedSum(const std::vector<std::int64_t>& elements, int ranks) {
  std::int64_t sum = 0;
  for (const std::int64_t e : elements) {
    sum += paddedElements(e, ranks);
  }
  return sum;
}

std::int64_t shardSum(const std::vector<std::int64_t>& elements, int ranks) {
  std::int64_t sum = 0;
  for (const std::int64_t e : elements) {
    sum += shardElements(e, ranks);
  }
  return sum;
}

std::int64_t largestPadded(const std::vector<std::int64_t>& elements, int ranks) {
  std::int64_t largest = 0;
  for (const std::int64_t e : elements) {
    largest = std::max(largest, paddedElements(e, ranks));
  }
  return largest;
}

}  // namespace fathom::plan::detail
