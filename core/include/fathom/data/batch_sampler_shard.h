// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/data/sharding_options.h>

#include <cstdint>
#include <vector>

namespace fathom::data {

/// Cuts a sample order into batches of `batchSize`, as torch.utils.data.BatchSampler does: the last batch is
/// short, or dropped when `dropLast`.
std::vector<IndexBatch> makeBatches(const std::vector<std::int64_t>& order, std::int64_t batchSize, bool dropLast);

/// The batches one rank draws from a map-style dataset: Accelerate's BatchSamplerShard
/// (accelerate/data_loader.py, `_iter_with_no_split` and `_iter_with_split`), index for index.
///
/// Without split, base batch i goes to rank i % numProcesses and a round is yielded only once its last batch is
/// full. With split, every base batch is cut into numProcesses equal slices. The tail follows dropLast and
/// evenBatches exactly as Accelerate does (docs/data.md has the rules and worked examples).
class BatchSamplerShard {
public:
  /// `order` is the sampler's output (0..n-1 for a sequential sampler). Throws ConfigError on bad options or a
  /// process index outside [0, numProcesses).
  BatchSamplerShard(std::vector<std::int64_t> order, const ShardingOptions& options, int processIndex);

  /// The batches this rank yields, in order.
  std::vector<IndexBatch> batches() const;

  /// What Accelerate's `__len__` reports. Without split it equals batches().size(); with split it is the number of
  /// base batches, which over-reports by one for trailing ranks when evenBatches is false (an upstream quirk).
  std::int64_t length() const;

  /// The options it was built with.
  const ShardingOptions& options() const { return m_options; }

  /// This rank.
  int processIndex() const { return m_processIndex; }

private:
  std::vector<IndexBatch> iterWithSplit() const;
  std::vector<IndexBatch> iterWithNoSplit() const;

  std::vector<IndexBatch> m_base;  ///< the wrapped BatchSampler's batches
  ShardingOptions m_options;
  int m_processIndex = 0;
};

}  // namespace fathom::data
