// SPDX-License-Identifier: Apache-2.0
// What a program dispatched a model with, as its run records it (docs/bigmodel.md, "In the workspace"): enough for
// the Studio's device-map view to show that map on that model without the program or its weights.
#pragma once

#include <fathom/bigmodel/device_map.h>
#include <fathom/bigmodel/module_tree.h>

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace fathom::bigmodel {

/// A dispatched model's structure (no weights), the map it was dispatched with, and the limits the map was planned
/// with when the program knows them.
///
/// Invariant (checked by dispatchRecordFromJson and by the DispatchedModel that makes one): the map places every
/// tensor of the tree (checkDeviceMap).
struct DispatchRecord {
  ModuleTree tree;
  DeviceMap deviceMap;
  /// The devices and limits the map was planned with (Accelerate's max_memory); empty when the program gave none.
  MaxMemory maxMemory;
  /// The classes the program kept whole (its dispatch units, or no_split_module_classes).
  std::vector<std::string> noSplitClasses;
  /// What the program calls the model ("gpt-small", a checkpoint folder); may be empty.
  std::string modelName;
};

/// {"format": "fathom-dispatch-record", "version": 1, "model": ..., "module_tree": moduleTree JSON
/// (module_tree_json.h),
///  "device_map": [[name, device], ...], "max_memory": [[device, bytes], ...], "no_split": [...]}.
nlohmann::ordered_json toJson(const DispatchRecord& record);

/// Reads a record written by toJson. ConfigError naming `origin` and what is wrong: not JSON, another format or a
/// newer version, a malformed tree, map or limits, or a map that does not place every tensor of the tree.
DispatchRecord dispatchRecordFromJson(std::string_view text, const std::string& origin);

}  // namespace fathom::bigmodel
