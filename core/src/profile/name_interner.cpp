// SPDX-License-Identifier: Apache-2.0
#include "profile/name_interner.h"

namespace fathom::profile::detail {

NameInterner& NameInterner::global() {
  static auto* interner = new NameInterner;  // intentionally leaked, see the header
  return *interner;
}

std::string_view NameInterner::intern(std::string_view text) {
  std::lock_guard lock(m_mutex);
  if (const auto it = m_names.find(text); it != m_names.end()) {
    return *it;
  }
  return *m_names.emplace(text).first;
}

std::size_t NameInterner::size() const {
  std::lock_guard lock(m_mutex);
  return m_names.size();
}

}  // namespace fathom::profile::detail
