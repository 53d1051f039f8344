// SPDX-License-Identifier: Apache-2.0
#include <fathom/common/error.h>
#include <fathom/data/sharding_options.h>

#include <limits>

namespace fathom::data {

void validateShardingOptions(const ShardingOptions& options) {
  FATHOM_CHECK(options.batchSize >= 1, ConfigError, "batch_size must be >= 1, got ", options.batchSize);
  FATHOM_CHECK(options.numProcesses >= 1, ConfigError, "num_processes must be >= 1, got ", options.numProcesses);
  // totalBatchSize() (batch_size x num_processes without split_batches) must fit the sample indices' type.
  FATHOM_CHECK(
      options.splitBatches || options.batchSize <= std::numeric_limits<std::int64_t>::max() / options.numProcesses,
      ConfigError, "batch_size (", options.batchSize, ") x num_processes (", options.numProcesses,
      ") is too large: one global batch would hold more than ", std::numeric_limits<std::int64_t>::max(), " samples");
  // Accelerate: BatchSamplerShard.__init__ (data_loader.py) and IterableDatasetShard.__init__. IterableDatasetShard
  // tolerates batch_size 1 (each rank then receives nothing); Fathom rejects that degenerate case too.
  FATHOM_CHECK(!options.splitBatches || options.batchSize % options.numProcesses == 0, ConfigError,
               "split_batches needs batch_size (", options.batchSize, ") to be a round multiple of num_processes (",
               options.numProcesses, ")");
}

void validateProcessIndex(int processIndex, int numProcesses) {
  FATHOM_CHECK(processIndex >= 0 && processIndex < numProcesses, ConfigError, "process_index must be in [0, ",
               numProcesses, "), got ", processIndex);
}

std::int64_t remainder(std::int64_t numSamples, const ShardingOptions& options) {
  validateShardingOptions(options);
  FATHOM_CHECK(numSamples >= 0, ConfigError, "num_samples must be >= 0, got ", numSamples);
  if (options.dropLast) {
    return -1;
  }
  return numSamples % options.totalBatchSize();
}

}  // namespace fathom::data
