// SPDX-License-Identifier: Apache-2.0
#include "profile/interned_names.h"

#include <cstring>

namespace fathom::profile::detail {
namespace {

/// const char* -> (id, the interned text), checked against that text (a pointer can be reused for another string).
/// The interned strings never move (a deque), so the check needs no lock.
struct CachedName {
  std::uint32_t id;
  const std::string* text;
};
thread_local std::unordered_map<const char*, CachedName> t_nameCache;

}  // namespace

InternedNames& InternedNames::instance() {
  static auto* table = new InternedNames;  // intentionally leaked, see the header
  return *table;
}

std::uint32_t InternedNames::id(const char* name) {
  if (name == nullptr)
    name = "";
  auto it = t_nameCache.find(name);
  if (it != t_nameCache.end() && std::strcmp(it->second.text->c_str(), name) == 0)
    return it->second.id;
  const auto [id, text] = insert(std::string_view(name));
  t_nameCache[name] = {id, text};
  return id;
}

std::uint32_t InternedNames::id(std::string_view name) {
  return insert(name).first;
}

std::string_view InternedNames::intern(std::string_view text) {
  return *insert(text).second;
}

std::pair<std::uint32_t, const std::string*> InternedNames::insert(std::string_view name) {
  std::lock_guard lock(m_mutex);
  if (auto it = m_ids.find(name); it != m_ids.end())
    return {it->second, &m_names[it->second]};
  const auto id = static_cast<std::uint32_t>(m_names.size());
  const std::string& stored = m_names.emplace_back(name);
  m_ids.emplace(std::string_view(stored), id);
  return {id, &stored};
}

std::string_view InternedNames::name(std::uint32_t id) const {
  std::lock_guard lock(m_mutex);
  return id < m_names.size() ? std::string_view(m_names[id]) : std::string_view();
}

std::size_t InternedNames::size() const {
  std::lock_guard lock(m_mutex);
  return m_names.size();
}

}  // namespace fathom::profile::detail
