// SPDX-License-Identifier: Apache-2.0
#include <fathom/profile/memory_category.h>

#include <numeric>

namespace fathom::profile {

namespace {
constexpr std::array<std::string_view, kMemoryCategoryCount> kNames = {
    "parameter", "gradient", "optimizer_state", "master_weights", "activation", "temporary", "input", "other"};
}

std::string_view toString(MemoryCategory category) {
  const auto index = static_cast<std::size_t>(category);
  return index < kNames.size() ? kNames[index] : std::string_view("unknown");
}

std::optional<MemoryCategory> memoryCategoryFromString(std::string_view text) {
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == text)
      return static_cast<MemoryCategory>(i);
  }
  return std::nullopt;
}

std::int64_t CategoryBytes::total() const {
  return std::accumulate(bytes.begin(), bytes.end(), std::int64_t{0});
}

}  // namespace fathom::profile
