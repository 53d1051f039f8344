// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/common/error.h>

#include <cstdint>
#include <exception>
#include <functional>
#include <type_traits>

namespace fathom::train {

/// Whether `error` means "out of memory": c10::OutOfMemoryError, std::bad_alloc, or a LibTorch error whose
/// message contains one of those Accelerate's should_reduce_batch_size() recognizes (" out of memory.",
/// "cuDNN error: CUDNN_STATUS_NOT_SUPPORTED.", "DefaultCPUAllocator: can't allocate memory", the HPU one).
bool isOutOfMemory(const std::exception& error);
/// Frees what the caching allocators hold (CUDA's, when there is one), so the retry starts clean.
void releaseCachedMemory();

/// Accelerate's find_executable_batch_size: calls `fn(batchSize)` starting at `startingBatchSize` and, each time
/// it fails with an out-of-memory error, frees cached memory and retries with half the batch size. Other
/// errors propagate. Throws fathom::Error "No executable batch size found, reached zero." when halving reaches
/// 0, and ConfigError for a starting size < 1.
template <typename F>
auto findExecutableBatchSize(F&& fn, std::int64_t startingBatchSize = 128) -> std::invoke_result_t<F&, std::int64_t> {
  FATHOM_CHECK(startingBatchSize >= 1, ConfigError,
               "find_executable_batch_size: starting_batch_size must be >= 1 (got ", startingBatchSize, ")");
  for (std::int64_t batchSize = startingBatchSize; batchSize > 0; batchSize /= 2) {
    try {
      return std::invoke(fn, batchSize);
    } catch (const std::exception& e) {
      if (!isOutOfMemory(e))
        throw;
      releaseCachedMemory();
    }
  }
  throw Error("No executable batch size found, reached zero.");
}

}  // namespace fathom::train
