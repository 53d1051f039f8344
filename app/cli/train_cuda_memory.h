// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <c10/core/Device.h>
#include <nlohmann/json.hpp>

namespace fathom::cli {

/// The CUDA caching allocator's numbers for `device` since the process started, what torch.cuda's
/// max_memory_allocated(), max_memory_reserved() and memory_allocated() return:
///
///     {"available": true, "device": "cuda:0", "max_memory_allocated": B, "max_memory_reserved": B,
///      "memory_allocated": B}
///
/// and where there are none, {"available": false, "reason": "..."}: the device is not CUDA ("the device is cpu"),
/// or this LibTorch has no CUDA allocator. `fathom train --json` reports it as the summary's "cuda_memory", and
/// --stats_json per rank. Reading it synchronizes nothing.
nlohmann::json cudaMemoryPeaks(const c10::Device& device);

/// Starts new peaks for `device` (torch.cuda.reset_peak_memory_stats): nothing for a non-CUDA device or a LibTorch
/// without the CUDA allocator.
void resetCudaMemoryPeaks(const c10::Device& device);

}  // namespace fathom::cli
