// SPDX-License-Identifier: Apache-2.0
#include "planning_queue.h"

#include <algorithm>

namespace fathom::bigmodel::detail {

std::vector<std::string> rootQueue(const ModuleTree& tree) {
  std::vector<std::string> queue;
  for (const NamedTensor& t : tree.parameters(0, false)) {
    queue.push_back(t.name);
  }
  for (const std::size_t child : tree.childIndexes(0)) {
    queue.push_back(tree.module(child).name);
  }
  for (const NamedTensor& t : tree.buffers(0, false)) {
    queue.push_back(t.name);
  }
  return queue;
}

std::vector<std::string> splitEntries(const ModuleTree& tree, const std::string& module) {
  const auto index = tree.findModule(module);
  std::vector<std::string> entries;
  if (!index) {
    return entries;
  }
  for (const NamedTensor& t : tree.parameters(*index, false)) {
    entries.push_back(ModuleTree::qualified(module, t.name));
  }
  for (const std::size_t child : tree.childIndexes(*index)) {
    entries.push_back(tree.module(child).name);
  }
  return entries;
}

bool isSplittable(const ModuleTree& tree, const std::string& name, const std::vector<std::string>& noSplitClasses) {
  const auto index = tree.findModule(name);
  return index && !tree.childIndexes(*index).empty() &&
         std::find(noSplitClasses.begin(), noSplitClasses.end(), tree.module(*index).className) == noSplitClasses.end();
}

std::vector<std::string> modulesOnly(const ModuleTree& tree, const std::vector<std::string>& queue) {
  std::vector<std::string> modules;
  std::copy_if(queue.begin(), queue.end(), std::back_inserter(modules),
               [&](const std::string& n) { return tree.findModule(n).has_value(); });
  return modules;
}

std::vector<std::string> tiedParamsOutside(const std::vector<std::vector<std::string>>& tiedGroups,
                                           const std::string& name) {
  const std::string needle = name + ".";
  const auto inside = [&](const std::string& member) { return (member + ".").find(needle) != std::string::npos; };
  std::vector<std::string> outside;
  for (const auto& group : tiedGroups) {
    const bool any = std::any_of(group.begin(), group.end(), inside);
    const bool all = std::all_of(group.begin(), group.end(), inside);
    if (!any || all) {
      continue;
    }
    for (const std::string& member : group) {
      if (!inside(member)) {
        outside.push_back(member);
      }
    }
  }
  return outside;
}

}  // namespace fathom::bigmodel::detail
