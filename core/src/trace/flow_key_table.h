// SPDX-License-Identifier: Apache-2.0
// The keys v1 flow events are matched by, (id, cat, name) as Perfetto matches them, interned to dense ids while a
// trace loads (TimelineBuilder). A Kineto trace has a flow pair per kernel, so at 10M events there are over a million
// keys, nearly all used twice: interning each as a std::string in a node-based map cost a fifth of the load (an
// allocation per key, a map node, pointer chasing) and ~120 bytes per key. Here the id texts sit back to back in one
// buffer, the entries in a vector and the lookup is an open-addressing table of entry numbers: ~50 bytes per key and
// no allocation per key. Exact: a match compares the id text and the cat and name ids, never the hash alone.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace fathom::trace::detail {

class FlowKeyTable {
public:
  /// The id of the key (`id`'s raw text, `cat`, `name`; cat and name are ids of the caller's own string table),
  /// added when new. Ids are dense from 0 and never change.
  std::uint32_t intern(std::string_view id, std::uint32_t cat, std::uint32_t name) {
    if (m_entries.size() * 2 >= m_slots.size()) {
      grow();  // at most half full: short probe sequences
    }
    const std::uint64_t hash = hashOf(id, cat, name);
    const std::size_t mask = m_slots.size() - 1;
    for (std::size_t slot = hash & mask;; slot = (slot + 1) & mask) {
      const std::uint32_t entry = m_slots[slot];
      if (entry == 0) {
        m_slots[slot] = static_cast<std::uint32_t>(m_entries.size()) + 1;
        m_entries.push_back({hash, m_ids.size(), static_cast<std::uint32_t>(id.size()), cat, name});
        m_ids.append(id);
        return static_cast<std::uint32_t>(m_entries.size()) - 1;
      }
      const Entry& e = m_entries[entry - 1];
      if (e.hash == hash && e.cat == cat && e.name == name && idOf(e) == id) {
        return entry - 1;
      }
    }
  }
  /// The name id the key was interned with.
  std::uint32_t name(std::uint32_t key) const { return m_entries[key].name; }
  std::size_t size() const { return m_entries.size(); }
  /// Frees everything; the table is empty afterwards.
  void clear() {
    std::vector<Entry>().swap(m_entries);
    std::vector<std::uint32_t>().swap(m_slots);
    std::string().swap(m_ids);
  }

private:
  struct Entry {
    std::uint64_t hash;
    std::uint64_t idOffset;  ///< into m_ids
    std::uint32_t idLength;
    std::uint32_t cat;
    std::uint32_t name;
  };

  static std::uint64_t hashOf(std::string_view id, std::uint32_t cat, std::uint32_t name) {
    // splitmix64's finaliser over the id's hash and the two small ids: the low bits, which pick the slot, depend on
    // every input bit.
    std::uint64_t h = std::hash<std::string_view>{}(id) ^ ((std::uint64_t{cat} << 32 | name) * 0x9E3779B97F4A7C15ull);
    h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ull;
    h = (h ^ (h >> 27)) * 0x94D049BB133111EBull;
    return h ^ (h >> 31);
  }
  std::string_view idOf(const Entry& e) const { return std::string_view(m_ids).substr(e.idOffset, e.idLength); }
  void grow() {
    std::vector<std::uint32_t> slots(m_slots.empty() ? 1024 : m_slots.size() * 2, 0);
    const std::size_t mask = slots.size() - 1;
    for (std::size_t i = 0; i < m_entries.size(); ++i) {
      std::size_t slot = m_entries[i].hash & mask;
      while (slots[slot] != 0) {
        slot = (slot + 1) & mask;
      }
      slots[slot] = static_cast<std::uint32_t>(i) + 1;
    }
    m_slots = std::move(slots);
  }

  std::string m_ids;  ///< every key's id text, back to back
  std::vector<Entry> m_entries;
  std::vector<std::uint32_t> m_slots;  ///< entry number + 1; 0 is an empty slot. Size: a power of two
};

}  // namespace fathom::trace::detail
