// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/bigmodel/module_tree.h>
#include <fathom/models/builtin_model.h>
#include <fathom/plan/model_spec.h>

namespace fathom::views {

/// The planner's view of a built-in model (core's description, models/builtin_model.h), introspected from the real
/// LibTorch module (models::introspectModel: built on the CPU, counted, freed; milliseconds for gpt-tiny, tens of
/// milliseconds for gpt-small): keep it off the GUI thread. Throws ConfigError for a bad dimension. This header
/// keeps LibTorch out of the Studio's widgets: only builtin_model.cpp includes the model factory.
plan::ModelSpec introspect(const models::ModelRequest& model);

/// A built-in model's module tree, for device maps (bigmodel::moduleTreeOf of the module models::makeModel builds on
/// the CPU, then freed), and the class of its repeated block (kept whole by default, as `fathom device-map --model`
/// keeps it). Milliseconds for gpt-tiny and mlp, tens of milliseconds for gpt-small. Throws ConfigError as
/// introspect() does.
struct BuiltinModuleTree {
  bigmodel::ModuleTree tree;
  std::string repeatedBlock;
};
BuiltinModuleTree builtinModuleTree(const models::ModelRequest& model);

}  // namespace fathom::views
