// SPDX-License-Identifier: Apache-2.0
#include <fathom/data/shard_plan.h>

#include <fathom/common/error.h>
#include <fathom/data/batch_sampler_shard.h>
#include <fathom/data/iterable_dataset_shard.h>
#include <fathom/data/seedable_random_sampler.h>

#include <numeric>
#include <utility>

namespace fathom::data {

void validateShardRequest(const ShardRequest& request) {
  validateShardingOptions(request.sharding);
  FATHOM_CHECK(request.numSamples >= 0, ConfigError, "num_samples must be >= 0, got ", request.numSamples);
  FATHOM_CHECK(request.skipBatches >= 0, ConfigError, "skip_batches must be >= 0, got ", request.skipBatches);
}

std::vector<std::int64_t> sampleOrder(const ShardRequest& request) {
  if (request.shuffleSeed) {
    SeedableRandomSampler sampler(request.numSamples, *request.shuffleSeed);
    sampler.setEpoch(request.epoch);
    return sampler.indices();
  }
  std::vector<std::int64_t> order(static_cast<std::size_t>(request.numSamples));
  std::iota(order.begin(), order.end(), std::int64_t{0});
  return order;
}

std::vector<IndexBatch> skipFirstBatches(std::vector<IndexBatch> batches, std::int64_t count) {
  FATHOM_CHECK(count >= 0, ConfigError, "skip_batches must be >= 0, got ", count);
  if (count >= static_cast<std::int64_t>(batches.size())) {
    return {};
  }
  batches.erase(batches.begin(), batches.begin() + count);
  return batches;
}

std::vector<IndexBatch> rankBatches(const ShardRequest& request, int processIndex) {
  validateShardRequest(request);
  auto order = sampleOrder(request);
  auto batches = request.iterable ? IterableDatasetShard(std::move(order), request.sharding, processIndex).batches()
                                  : BatchSamplerShard(std::move(order), request.sharding, processIndex).batches();
  return skipFirstBatches(std::move(batches), request.skipBatches);
}

ShardPlan planShards(const ShardRequest& request) {
  validateShardRequest(request);
  // Every rank's batches are computed and kept (`fathom shard` prints them all): each rank walks the samples plus up
  // to one global batch of padding (even_batches). Beyond the limit that is minutes and gigabytes for a table nobody
  // reads, or an allocation that fails; the pattern repeats with period batch_size x num_processes anyway.
  const std::int64_t total = request.sharding.totalBatchSize();
  const std::int64_t ranks = request.sharding.numProcesses;
  FATHOM_CHECK(request.numSamples <= kMaxPreviewIndices && total <= kMaxPreviewIndices &&
                   (request.numSamples + total) * ranks <= kMaxPreviewIndices,
               ConfigError, "the shard preview holds at most ", kMaxPreviewIndices,
               " sample indices ((num_samples + one global batch) x num_processes), got num_samples ",
               request.numSamples, ", batch_size ", request.sharding.batchSize, ", num_processes ", ranks,
               ": preview a smaller dataset (the pattern repeats every batch_size x num_processes samples)");
  ShardPlan plan;
  plan.request = request;
  plan.remainder = remainder(request.numSamples, request.sharding);
  for (int rank = 0; rank < request.sharding.numProcesses; ++rank) {
    plan.ranks.push_back(RankBatches{rank, rankBatches(request, rank)});
  }
  return plan;
}

}  // namespace fathom::data
