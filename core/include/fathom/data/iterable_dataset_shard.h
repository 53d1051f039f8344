// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/data/sharding_options.h>

#include <cstdint>
#include <vector>

namespace fathom::data {

/// The elements one rank draws from an iterable dataset: Accelerate's IterableDatasetShard
/// (accelerate/data_loader.py), grouped into the batches the rank's DataLoader then forms.
///
/// Every rank reads the whole stream in buffers of totalBatchSize() elements and keeps its slice
/// [rank * processBatchSize(), (rank + 1) * processBatchSize()). A short final buffer is dropped with dropLast;
/// otherwise it is filled by appending the first full buffer (or, if there is none, itself) until full. So all
/// ranks get the same number of batches; evenBatches does not apply.
class IterableDatasetShard {
public:
  /// `stream` is the dataset's elements in iteration order (here: sample indices). Throws ConfigError on bad
  /// options or a process index outside [0, numProcesses).
  IterableDatasetShard(std::vector<std::int64_t> stream, const ShardingOptions& options, int processIndex);

  /// This rank's batches of processBatchSize() elements each, in order.
  std::vector<IndexBatch> batches() const;

  /// Accelerate's `__len__`: floor (dropLast) or ceil of n / (batchSize * numProcesses), times batchSize. Without
  /// split that is the number of elements this rank yields; with split it over-reports, as upstream does.
  std::int64_t length() const;

private:
  std::vector<std::int64_t> m_stream;
  ShardingOptions m_options;
  int m_processIndex = 0;
};

}  // namespace fathom::data
