// SPDX-License-Identifier: Apache-2.0
// Interned strings for the trace tools (operator names, thread keys, categories): one copy each, ids dense from 0,
// looked up without allocating.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace fathom::trace::detail {

class StringTable {
public:
  /// The id of `text`, added when new. Ids are dense and never change.
  std::uint32_t intern(std::string_view text) {
    if (const auto it = m_index.find(text); it != m_index.end()) {
      return it->second;
    }
    const auto id = static_cast<std::uint32_t>(m_strings.size());
    m_strings.emplace_back(text);
    m_index.emplace(m_strings.back(), id);  // the key views the deque's copy, which never moves
    return id;
  }
  const std::string& operator[](std::uint32_t id) const { return m_strings[id]; }
  std::size_t size() const { return m_strings.size(); }
  /// Moves the strings out, in id order; the table is empty afterwards.
  std::deque<std::string> release() {
    m_index.clear();
    return std::move(m_strings);
  }

private:
  std::unordered_map<std::string_view, std::uint32_t> m_index;
  std::deque<std::string> m_strings;  ///< a deque: appending never moves the strings the index views
};

}  // namespace fathom::trace::detail
