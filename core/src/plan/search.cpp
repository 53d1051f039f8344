// SPDX-License-Identifier: Apache-2.0
#include <fathom/plan/search.h>

#include <fathom/common/error.h>

#include <algorithm>

namespace fathom::plan {
namespace {

struct StrategyChoice {
  Strategy strategy;
  FsdpSharding sharding;
};

std::vector<int> powersOfTwoUpTo(int limit) {
  std::vector<int> out;
  for (int v = 1; v <= limit; v *= 2) {
    out.push_back(v);
  }
  return out;
}

}  // namespace

SearchOutcome search(const ModelSpec& model, const HardwareSpec& hw, const Plan& base, const SearchOptions& options) {
  FATHOM_CHECK(base.numGpus >= 1, ConfigError, "num_gpus must be >= 1, got ", base.numGpus);
  FATHOM_CHECK(options.globalBatch >= 0, ConfigError, "global_batch must be >= 0, got ", options.globalBatch);
  FATHOM_CHECK(!options.microBatches.empty(), ConfigError, "search needs at least one micro-batch size");
  const int gpusPerNode = base.gpusPerNode > 0 ? base.gpusPerNode : hw.gpusPerNode;
  const bool multiNode = base.numGpus > gpusPerNode;
  std::vector<StrategyChoice> strategies{
      {Strategy::Ddp, FsdpSharding::FullShard},   {Strategy::Zero1, FsdpSharding::FullShard},
      {Strategy::Zero2, FsdpSharding::FullShard}, {Strategy::Zero3, FsdpSharding::FullShard},
      {Strategy::Fsdp, FsdpSharding::FullShard},  {Strategy::Fsdp, FsdpSharding::ShardGradOp}};
  if (multiNode) {
    strategies.push_back({Strategy::Fsdp, FsdpSharding::HybridShard});
    strategies.push_back({Strategy::Fsdp, FsdpSharding::HybridShardZero2});
  }
  const bool dims = model.hasDims();
  const std::vector<int> tps = dims && options.includeTensorParallel
                                   ? powersOfTwoUpTo(std::min(gpusPerNode, base.numGpus))
                                   : std::vector<int>{1};
  const std::vector<int> pps =
      dims && options.includePipelineParallel
          ? powersOfTwoUpTo(static_cast<int>(std::min<std::int64_t>(base.numGpus, model.dims.layers)))
          : std::vector<int>{1};
  const Recompute recomputes[] = {Recompute::None, Recompute::Selective, Recompute::Full};
  const int offloads = options.includeOffload ? 3 : 1;  // none, optimizer, optimizer + params

  SearchOutcome outcome;
  std::vector<SearchResult> fitting;
  for (const StrategyChoice& sc : strategies) {
    for (int tp : tps) {
      for (int pp : pps) {
        if (base.numGpus % (tp * pp) != 0) {
          continue;
        }
        const int dp = base.numGpus / (tp * pp);
        for (int mb : options.microBatches) {
          int accum = base.gradAccum;
          if (options.globalBatch > 0) {
            const std::int64_t perStep = static_cast<std::int64_t>(mb) * dp;
            if (options.globalBatch % perStep != 0) {
              continue;
            }
            accum = static_cast<int>(options.globalBatch / perStep);
          }
          for (Recompute rc : recomputes) {
            if (!dims && rc == Recompute::Selective) {
              continue;  // without dimensions selective recomputation changes nothing
            }
            for (int off = 0; off < offloads; ++off) {
              Plan p = base;
              p.strategy = sc.strategy;
              p.fsdpSharding = sc.sharding;
              p.tp = tp;
              p.pp = pp;
              p.sequenceParallel = tp > 1;
              p.microBatch = mb;
              p.gradAccum = accum;
              p.recompute = rc;
              p.offloadOptimizer = off >= 1;
              p.offloadParams = off >= 2;
              if (p.strategy == Strategy::Fsdp && p.offloadOptimizer) {
                p.offloadParams = true;
              }
              Prediction pred;
              try {
                pred = predict(model, hw, p, options.predict);
              } catch (const ConfigError&) {
                continue;  // combination not allowed (tp vs heads, pp with zero2/3, offload rules)
              }
              ++outcome.evaluated;
              if (pred.fits) {
                ++outcome.fitting;
                fitting.push_back({p, std::move(pred)});
              }
            }
          }
        }
      }
    }
  }
  std::stable_sort(fitting.begin(), fitting.end(), [](const SearchResult& a, const SearchResult& b) {
    return a.prediction.time.tokensPerS > b.prediction.time.tokensPerS;
  });
  if (fitting.size() > options.limit) {
    fitting.resize(options.limit);
  }
  outcome.results = std::move(fitting);
  return outcome;
}

}  // namespace fathom::plan
