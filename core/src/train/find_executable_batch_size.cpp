// SPDX-License-Identifier: Apache-2.0
#include <fathom/train/find_executable_batch_size.h>

#include <c10/core/CPUAllocator.h>
#include <c10/util/Exception.h>

#ifdef USE_C10D_NCCL  // defined only for a CUDA LibTorch (cmake/FathomTorch.cmake)
#include <c10/cuda/CUDACachingAllocator.h>
#endif

#include <array>
#include <new>
#include <string_view>

namespace fathom::train {

bool isOutOfMemory(const std::exception& error) {
  if (dynamic_cast<const c10::OutOfMemoryError*>(&error) != nullptr)
    return true;
  if (dynamic_cast<const std::bad_alloc*>(&error) != nullptr)
    return true;
  // Accelerate's should_reduce_batch_size list: " out of memory." covers CUDA, XPU and MPS allocators.
  constexpr std::array<std::string_view, 4> kMessages = {" out of memory.", "cuDNN error: CUDNN_STATUS_NOT_SUPPORTED.",
                                                         "DefaultCPUAllocator: can't allocate memory",
                                                         "FATAL ERROR :: MODULE:PT_DEVMEM Allocation failed"};
  const std::string_view message = error.what();
  for (std::string_view m : kMessages) {
    if (message.find(m) != std::string_view::npos)
      return true;
  }
  return false;
}

void releaseCachedMemory() {
  // LibTorch's CPU allocator keeps no cache; CUDA's caching allocator (libc10_cuda, in CUDA LibTorch builds only)
  // hands its cached blocks back to the driver, as torch.cuda.empty_cache() does.
#ifdef USE_C10D_NCCL
  c10::cuda::CUDACachingAllocator::emptyCache();
#endif
}

}  // namespace fathom::train
