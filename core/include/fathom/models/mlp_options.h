// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>

namespace fathom::models {

/// Shape of the built-in regression MLP (`fathom train --model mlp --hidden H --layers L`). No LibTorch here: the
/// Studio's editors include it through builtin_model.h.
struct MlpOptions {
  std::int64_t hidden = 256;  ///< input and block width; must be >= 1
  std::int64_t layers = 2;    ///< number of MlpBlocks; must be >= 1
  bool operator==(const MlpOptions&) const = default;
};

/// Throws fathom::ConfigError naming the offending value.
void validate(const MlpOptions& options);

/// Exact parameter count of Mlp(options): layers·(h² + h) + (h + 1).
std::int64_t mlpParameterCount(const MlpOptions& options);

}  // namespace fathom::models
