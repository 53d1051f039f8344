// SPDX-License-Identifier: Apache-2.0
// The memory under a tensor's storage, swapped without changing the storage's identity: every tensor and module that
// holds it (a parameter, its views, the graph autograd saved) keeps pointing at the same StorageImpl while the bytes
// come and go. What FSDP's flat parameters and a dispatched model's offloaded weights are built on.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstddef>

namespace fathom::runtime {

/// Frees the storage's memory (its data pointer becomes null, its size 0); shape and strides stay. Reading the
/// tensor before allocateStorage or borrowStorage is undefined.
void releaseStorage(const at::Tensor& tensor);

/// Gives the storage `bytes` fresh bytes from the allocator it was created with (uninitialised).
void allocateStorage(const at::Tensor& tensor, std::size_t bytes);

/// Points the storage at `bytes` bytes at `data`, which the caller keeps alive and unchanged until the next
/// releaseStorage (nothing frees it). For a CPU tensor over a memory-mapped file.
void borrowStorage(const at::Tensor& tensor, void* data, std::size_t bytes);

}  // namespace fathom::runtime
