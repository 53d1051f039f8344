// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/models/builtin_model.h>
#include <fathom/plan/model_spec.h>

namespace fathom::views {

/// The planner's view of a built-in model (core's description, models/builtin_model.h), introspected from the real
/// LibTorch module (models::introspectModel: built on the CPU, counted, freed; milliseconds for gpt-tiny, tens of
/// milliseconds for gpt-small): keep it off the GUI thread. Throws ConfigError for a bad dimension. This header
/// keeps LibTorch out of the Studio's widgets: only builtin_model.cpp includes the model factory.
plan::ModelSpec introspect(const models::ModelRequest& model);

}  // namespace fathom::views
