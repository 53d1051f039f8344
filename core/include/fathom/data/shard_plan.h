// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/data/sharding_options.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace fathom::data {

/// What to shard: a dataset of `numSamples` indices, how, and from where in the epoch. `fathom shard` fills one
/// from its flags; the Accelerator's data loaders will compute their rank's batches from the same request.
struct ShardRequest {
  std::int64_t numSamples = 0;               ///< dataset length (>= 0)
  ShardingOptions sharding;                  ///< batch size, processes, split/even/drop_last
  bool iterable = false;                     ///< IterableDatasetShard instead of BatchSamplerShard
  std::int64_t skipBatches = 0;              ///< skip_first_batches: batches each rank skips (>= 0)
  std::optional<std::uint64_t> shuffleSeed;  ///< shuffle with SeedableRandomSampler(seed) when set
  std::int64_t epoch = 0;                    ///< set_epoch for the shuffling sampler
};

/// One rank's epoch: the batches it yields after skipping.
struct RankBatches {
  int rank = 0;                     ///< process index
  std::vector<IndexBatch> batches;  ///< sample indices, batch by batch

  /// Accelerate's GradientState.end_of_dataloader while batch `i` is being processed: true exactly on the last
  /// batch this rank yields.
  bool endOfDataloader(std::size_t i) const { return i + 1 == batches.size(); }
};

/// Every rank's batches plus the bookkeeping gather_for_metrics needs.
struct ShardPlan {
  ShardRequest request;  ///< what was asked
  /// remainder(numSamples, sharding): the real samples in the last global batch, -1 with drop_last.
  std::int64_t remainder = 0;
  std::vector<RankBatches> ranks;  ///< one per process, rank order
};

/// Checks a request (ConfigError naming the bad value): the sharding options, num_samples >= 0,
/// skip_batches >= 0.
void validateShardRequest(const ShardRequest& request);

/// The order the sampler yields for the request: 0..n-1, or the SeedableRandomSampler permutation for
/// (shuffleSeed + epoch).
std::vector<std::int64_t> sampleOrder(const ShardRequest& request);

/// Drops the first `count` batches (Accelerate's skip_first_batches / SkipBatchSampler, applied per rank to the
/// sharded loader; resuming mid-epoch). Skipping past the end leaves nothing. ConfigError if count < 0.
std::vector<IndexBatch> skipFirstBatches(std::vector<IndexBatch> batches, std::int64_t count);

/// The batches rank `processIndex` yields for the request.
std::vector<IndexBatch> rankBatches(const ShardRequest& request, int processIndex);

/// The most sample indices planShards() computes: (num_samples + one global batch) x num_processes.
inline constexpr std::int64_t kMaxPreviewIndices = 10'000'000;

/// Every rank's batches and the remainder (what `fathom shard` prints). ConfigError for a request beyond
/// kMaxPreviewIndices, besides validateShardRequest()'s.
ShardPlan planShards(const ShardRequest& request);

}  // namespace fathom::data
