// SPDX-License-Identifier: Apache-2.0
// The one translation unit of the Studio that includes LibTorch (through the model factory).
#include "common/builtin_model.h"

#include <fathom/bigmodel/torch_module_tree.h>
#include <fathom/models/model_factory.h>
#include <fathom/models/model_introspection.h>

namespace fathom::views {

plan::ModelSpec introspect(const models::ModelRequest& model) {
  return models::introspectModel(model);
}

BuiltinModuleTree builtinModuleTree(const models::ModelRequest& model) {
  const std::shared_ptr<models::Model> built = models::makeModel(model);
  return {bigmodel::moduleTreeOf(*built), built->repeatedBlockType()};
}

}  // namespace fathom::views
