// SPDX-License-Identifier: Apache-2.0
// The one translation unit of the Studio that includes LibTorch (through the model factory).
#include "common/builtin_model.h"

#include <fathom/models/model_introspection.h>

namespace fathom::views {

plan::ModelSpec introspect(const models::ModelRequest& model) {
  return models::introspectModel(model);
}

}  // namespace fathom::views
