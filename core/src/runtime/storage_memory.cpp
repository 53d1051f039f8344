// SPDX-License-Identifier: Apache-2.0
#include "storage_memory.h"

#include <fathom/common/error.h>

#include <c10/core/StorageImpl.h>

namespace fathom::runtime {

void releaseStorage(const at::Tensor& tensor) {
  c10::StorageImpl* impl = tensor.storage().unsafeGetStorageImpl();
  impl->set_data_ptr_noswap(at::DataPtr(nullptr, tensor.device()));
  impl->set_nbytes(0);
}

void allocateStorage(const at::Tensor& tensor, std::size_t bytes) {
  c10::StorageImpl* impl = tensor.storage().unsafeGetStorageImpl();
  FATHOM_ASSERT(impl->allocator() != nullptr, "a swapped storage was created with an allocator");
  impl->set_data_ptr_noswap(impl->allocator()->allocate(bytes));
  impl->set_nbytes(bytes);
}

void borrowStorage(const at::Tensor& tensor, void* data, std::size_t bytes) {
  c10::StorageImpl* impl = tensor.storage().unsafeGetStorageImpl();
  // A null deleter: the memory belongs to the caller.
  impl->set_data_ptr_noswap(at::DataPtr(data, data, nullptr, tensor.device()));
  impl->set_nbytes(bytes);
}

}  // namespace fathom::runtime
