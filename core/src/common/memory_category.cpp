// SPDX-License-Identifier: Apache-2.0
#include <fathom/common/memory_category.h>

#include <numeric>

namespace fathom {

static_assert(
    [] {
      for (std::size_t i = 0; i < kMemoryCategoryNames.size(); ++i) {
        if (static_cast<std::size_t>(kMemoryCategoryNames[i].category) != i) {
          return false;
        }
      }
      return true;
    }(),
    "kMemoryCategoryNames lists every category once, in enumerator order");

std::string_view toString(MemoryCategory category) {
  const auto index = static_cast<std::size_t>(category);
  return index < kMemoryCategoryNames.size() ? kMemoryCategoryNames[index].key : std::string_view("unknown");
}

std::optional<MemoryCategory> memoryCategoryFromString(std::string_view text) {
  for (const MemoryCategoryName& name : kMemoryCategoryNames) {
    if (name.key == text || (!name.legacyKey.empty() && name.legacyKey == text)) {
      return name.category;
    }
  }
  return std::nullopt;
}

std::int64_t CategoryBytes::total() const {
  return std::accumulate(bytes.begin(), bytes.end(), std::int64_t{0});
}

}  // namespace fathom
