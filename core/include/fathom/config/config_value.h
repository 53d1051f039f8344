// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace fathom::config {

/// One typed configuration value. Enumerations are stored as their canonical spelling (`"MULTI_GPU"`,
/// `"bf16"`); a key's ValueKind (config_schema.h) says which alternative it holds.
using ConfigValue = std::variant<bool, std::int64_t, double, std::string, std::vector<std::string>, std::vector<bool>>;

/// The value as a user would type it: `true`, `8`, `1.0`, `MULTI_GPU`, `[a, b]`, `[false, false, false]`.
std::string toDisplayString(const ConfigValue& value);

}  // namespace fathom::config
