// SPDX-License-Identifier: Apache-2.0
#include "storage_bytes.h"

namespace fathom::parallel {

void DistinctStorageBytes::add(const at::Tensor& tensor) {
  if (!tensor.defined() || !tensor.has_storage()) {
    return;
  }
  const c10::Storage& storage = tensor.storage();
  if (m_seen.insert(storage.unsafeGetStorageImpl()).second) {
    m_bytes += static_cast<std::int64_t>(storage.nbytes());
  }
}

bool DistinctStorageBytes::contains(const at::Tensor& tensor) const {
  return tensor.defined() && tensor.has_storage() && m_seen.count(tensor.storage().unsafeGetStorageImpl()) > 0;
}

}  // namespace fathom::parallel
