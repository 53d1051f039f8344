// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <vector>

namespace fathom::data {

/// One batch of sample indices, in the order a loader yields them.
using IndexBatch = std::vector<std::int64_t>;

/// How a data loader is split across processes: Accelerate's DataLoaderConfiguration plus the loader's own
/// batch_size and drop_last (see docs/data.md). `batchSize` means what it means for the user's DataLoader: the
/// per-process batch normally, the global batch (split across processes) with `splitBatches`.
struct ShardingOptions {
  std::int64_t batchSize = 1;  ///< the wrapped loader's batch_size (>= 1)
  int numProcesses = 1;        ///< world size (>= 1)
  bool splitBatches = false;   ///< each base batch is cut into numProcesses slices (batchSize % numProcesses == 0)
  bool evenBatches = true;     ///< top up the tail from the start of the data so every rank gets as many batches
  bool dropLast = false;       ///< drop incomplete batches (and, without split, incomplete rounds)

  /// Samples one optimizer step consumes across all ranks: batchSize with splitBatches, else
  /// batchSize * numProcesses (Accelerate's DataLoaderShard.total_batch_size).
  std::int64_t totalBatchSize() const { return splitBatches ? batchSize : batchSize * numProcesses; }

  /// Samples one rank receives per batch: batchSize / numProcesses with splitBatches, else batchSize.
  std::int64_t processBatchSize() const { return splitBatches ? batchSize / numProcesses : batchSize; }
};

/// Checks the options at the front door. Throws ConfigError naming the bad value: batch_size < 1,
/// num_processes < 1, or split_batches with a batch_size that is not a round multiple of num_processes (the
/// ValueError Accelerate's BatchSamplerShard raises).
void validateShardingOptions(const ShardingOptions& options);

/// Checks that `processIndex` is a rank of `numProcesses` (ConfigError otherwise).
void validateProcessIndex(int processIndex, int numProcesses);

/// The samples of the last global batch that are real data, for gather_for_metrics: numSamples % totalBatchSize
/// when the loader does not drop the last batch, -1 when it does (Accelerate's DataLoaderShard.begin()). 0 means
/// the data divides evenly and nothing is duplicated.
std::int64_t remainder(std::int64_t numSamples, const ShardingOptions& options);

}  // namespace fathom::data
