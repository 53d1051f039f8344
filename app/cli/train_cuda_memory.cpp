// SPDX-License-Identifier: Apache-2.0
#include "train_cuda_memory.h"

#include <cstddef>

// USE_C10D_NCCL is defined for a CUDA LibTorch only (cmake/FathomTorch.cmake), the one that has libc10_cuda and its
// caching allocator; Debian's CPU LibTorch ships the header but not the library.
#ifdef USE_C10D_NCCL
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#endif

namespace fathom::cli {

nlohmann::json cudaMemoryPeaks(const c10::Device& device) {
  if (!device.is_cuda())
    return {{"available", false}, {"reason", "the device is " + device.str()}};
#ifdef USE_C10D_NCCL
  const c10::DeviceIndex index = device.has_index() ? device.index() : c10::cuda::current_device();
  const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(index);
  // StatType::AGGREGATE (all pools) is index 0 of every StatArray, in 1.13 and in 2.x (where the enum moved to
  // c10/core/CachingDeviceAllocator.h): the numbers torch.cuda.max_memory_allocated() reads.
  constexpr std::size_t kAggregate = 0;
  return {{"available", true},
          {"device", c10::Device(c10::kCUDA, index).str()},
          {"max_memory_allocated", stats.allocated_bytes[kAggregate].peak},
          {"max_memory_reserved", stats.reserved_bytes[kAggregate].peak},
          {"memory_allocated", stats.allocated_bytes[kAggregate].current}};
#else
  return {{"available", false},
          {"reason", "this LibTorch has no CUDA caching allocator (a CPU build, or its NCCL headers were not found)"}};
#endif
}

void resetCudaMemoryPeaks(const c10::Device& device) {
#ifdef USE_C10D_NCCL
  if (device.is_cuda()) {
    c10::cuda::CUDACachingAllocator::resetPeakStats(device.has_index() ? device.index() : c10::cuda::current_device());
  }
#else
  (void)device;
#endif
}

}  // namespace fathom::cli
