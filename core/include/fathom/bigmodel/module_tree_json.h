// SPDX-License-Identifier: Apache-2.0
// The JSON form of a module tree, as tests/data/device_map/accelerate_asserted_cases.json writes models:
//   {"root_class": "ModelForTest",
//    "modules": [{"name": "", "class": "ModelForTest", "children": ["linear1"], "parameters": [], "buffers": []},
//                {"name": "linear1", "class": "Linear", "children": [],
//                 "parameters": [{"name": "weight", "shape": [4, 3], "dtype": "float32", "tensor_id": 0}],
//                 "buffers": [{"name": "b", "shape": [], "dtype": "int64", "persistent": true, "tensor_id": 1}]}],
//    "tied_parameters": [["a.weight", "b.weight"]]}
// Modules in pre-order; tensors sharing a tensor_id are one tensor object (tied). root_class, tied_parameters,
// tensor_id and persistent are optional on input; when root_class or tied_parameters is given it must agree with
// the modules.
#pragma once

#include <fathom/bigmodel/module_tree.h>

#include <nlohmann/json.hpp>

namespace fathom::bigmodel {

/// Reads and checks a module tree. ConfigError naming the module and tensor for anything wrong: a missing or
/// mistyped key, an unknown dtype, a negative dimension, a child that is not in the tree, modules out of pre-order,
/// tied_parameters that the tensor ids do not give.
ModuleTree moduleTreeFromJson(const nlohmann::json& j);

/// The tree in the form moduleTreeFromJson reads, every optional key written: moduleTreeFromJson(j) written back
/// is j again when j had every key.
nlohmann::ordered_json toJson(const ModuleTree& tree);

}  // namespace fathom::bigmodel
