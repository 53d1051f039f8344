// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/plan/predict.h>

#include <cstdint>
#include <vector>

namespace fathom::plan {

/// What `plan::search` enumerates. Every combination of strategy, tensor/pipeline degree, micro-batch and
/// recomputation is evaluated; the base plan supplies everything else (precision, optimizer, GPUs, seq, ...).
struct SearchOptions {
  std::vector<int> microBatches{1, 2, 4, 8, 16, 32};  ///< candidate micro-batch sizes
  bool includeTensorParallel = true;                  ///< try tp = 2, 4, ... up to the GPUs per node
  bool includePipelineParallel = true;                ///< try pp = 2, 4, ... (with ddp, zero1, fsdp)
  bool includeOffload = false;                        ///< also try optimizer/parameter offload
  std::int64_t globalBatch = 0;  ///< sequences per optimizer step; 0 = free (gradient accumulation 1)
  std::size_t limit = 20;        ///< results kept (best first)
  PredictOptions predict;        ///< passed to every evaluation
};

/// One fitting plan and its prediction.
struct SearchResult {
  Plan plan;              ///< the candidate
  Prediction prediction;  ///< its prediction
};

/// Summary of a search.
struct SearchOutcome {
  std::vector<SearchResult> results;  ///< fitting plans, highest tokens/s first, at most options.limit
  std::int64_t evaluated = 0;         ///< candidates predicted
  std::int64_t fitting = 0;           ///< of which fit in memory
};

/// Enumerates strategies (ddp, zero1/2/3, fsdp full_shard/shard_grad_op/hybrid_shard), sharding degrees (tp, pp,
/// sequence parallelism with tp), micro-batches and recomputation; drops plans that do not fit; ranks the rest
/// by predicted tokens/s. Invalid combinations (e.g. tp not dividing the heads) are skipped, not reported.
SearchOutcome search(const ModelSpec& model, const HardwareSpec& hw, const Plan& base,
                     const SearchOptions& options = {});

}  // namespace fathom::plan
