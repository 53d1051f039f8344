// SPDX-License-Identifier: Apache-2.0
// Internal to core/parallel: how the engines measure the model states they hold (docs/sharding.md, "Measured
// bytes"): from the live tensors, as the allocator handed their memory out, never from layout arithmetic.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <unordered_set>

namespace fathom::parallel {

/// Sums the sizes of the distinct storages behind the tensors added: a storage counts once, whole (nbytes), however
/// many tensors view it, so a flat buffer and the parameters re-pointed into it are one block, as the allocator sees
/// them. Undefined tensors add nothing.
class DistinctStorageBytes {
public:
  void add(const at::Tensor& tensor);
  /// Whether `tensor`'s storage has been added (false for an undefined tensor).
  bool contains(const at::Tensor& tensor) const;
  std::int64_t bytes() const { return m_bytes; }

private:
  std::unordered_set<const void*> m_seen;
  std::int64_t m_bytes = 0;
};

}  // namespace fathom::parallel
