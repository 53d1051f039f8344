// SPDX-License-Identifier: Apache-2.0
#include "fallback_allocate.h"

#include "planning_queue.h"

#include <fathom/common/error.h>

#include <algorithm>

namespace fathom::bigmodel::detail {

std::optional<FallbackPick> fallbackAllocate(const ModuleTree& tree, std::vector<std::string> queue,
                                             const ModuleSizes& sizes, ByteCount limit,
                                             const std::vector<std::string>& noSplitClasses,
                                             const std::vector<std::vector<std::string>>& tiedGroups) {
  if (limit < 0) {
    return std::nullopt;
  }
  std::vector<std::string> toSearch = queue;
  std::optional<std::string> found;
  while (!toSearch.empty()) {
    const std::string name = toSearch.front();
    toSearch.erase(toSearch.begin());
    // Ties are matched against what is left to search, as in Accelerate (so an owner already searched past, or the
    // module being placed, is not found: getModuleSizeWithTies then throws where Accelerate raises IndexError).
    const auto withTies = getModuleSizeWithTies(tiedParamsOutside(tiedGroups, name), sizes[name], sizes, toSearch);
    if (withTies.size <= limit) {
      found = name;
      break;
    }
    if (isSplittable(tree, name, noSplitClasses)) {
      std::vector<std::string> children = splitEntries(tree, name);
      toSearch.insert(toSearch.begin(), children.begin(), children.end());
    }
  }
  if (!found) {
    return std::nullopt;
  }

  // Expand the found entry's queued ancestors, outermost first, so that it becomes an entry of its own.
  for (std::size_t dot = found->find('.'); dot != std::string::npos; dot = found->find('.', dot + 1)) {
    const std::string parent = found->substr(0, dot);
    const auto at = std::find(queue.begin(), queue.end(), parent);
    if (at == queue.end()) {
      continue;
    }
    std::vector<std::string> children = splitEntries(tree, parent);
    const auto position = queue.erase(at);
    queue.insert(position, children.begin(), children.end());
  }
  const auto at = std::find(queue.begin(), queue.end(), *found);
  FATHOM_ASSERT(at != queue.end(), "fallback_allocate: the entry found is not in the queue after expanding");
  queue.erase(at);
  return FallbackPick{*found, std::move(queue)};
}

}  // namespace fathom::bigmodel::detail
