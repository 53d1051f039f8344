// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/bigmodel/module_sizes.h>
#include <fathom/bigmodel/module_tree.h>

#include <optional>
#include <string>
#include <vector>

namespace fathom::bigmodel::detail {

/// What fallback_allocate found: the entry that fits, and the queue without it (its queued ancestors expanded).
struct FallbackPick {
  std::string name;
  std::vector<std::string> remaining;
};

/// fallback_allocate: the first entry of `queue` whose size with ties (against the entries still to search) is at
/// most `limit`. An entry too big that can be split is replaced at the front of the search by its own parameters
/// and children, so the search is depth-first (Accelerate's docstring says BFS). A negative limit finds nothing
/// (Accelerate's convert_file_size_to_int refuses it). When found, each queued ancestor of the entry is expanded in
/// place (its own parameters, then its children) and the entry taken out.
std::optional<FallbackPick> fallbackAllocate(const ModuleTree& tree, std::vector<std::string> queue,
                                             const ModuleSizes& sizes, ByteCount limit,
                                             const std::vector<std::string>& noSplitClasses,
                                             const std::vector<std::vector<std::string>>& tiedGroups);

}  // namespace fathom::bigmodel::detail
