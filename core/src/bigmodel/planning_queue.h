// SPDX-License-Identifier: Apache-2.0
// The queue infer_auto_device_map works through: dotted names of modules and tensors, the head placed next. A name
// is a module when the tree has a module of that name, otherwise a tensor (the tree guarantees no clash). Shared by
// the planner and fallback_allocate.
#pragma once

#include <fathom/bigmodel/module_tree.h>

#include <string>
#include <vector>

namespace fathom::bigmodel::detail {

/// The root's own parameters, then its children, then its own buffers (_init_infer_auto_device_map).
std::vector<std::string> rootQueue(const ModuleTree& tree);

/// What a module is replaced by when it is split: its own parameters, then its children (its own buffers are
/// dropped, as in Accelerate).
std::vector<std::string> splitEntries(const ModuleTree& tree, const std::string& module);

/// Whether `name` is a module that has children and whose class is not in `noSplitClasses`.
bool isSplittable(const ModuleTree& tree, const std::string& name, const std::vector<std::string>& noSplitClasses);

/// The queued names that are modules (the tensors left out), in order.
std::vector<std::string> modulesOnly(const ModuleTree& tree, const std::vector<std::string>& queue);

/// The tied parameters that count for placing `name`: from each group with a member inside `name` and a member
/// outside, the members outside. Inside means Accelerate's test, a substring check of name + "." in member + "."
/// (so module "1" also "contains" "layer1.weight"); we keep it, since it decides which sizes are added.
std::vector<std::string> tiedParamsOutside(const std::vector<std::vector<std::string>>& tiedGroups,
                                           const std::string& name);

}  // namespace fathom::bigmodel::detail
