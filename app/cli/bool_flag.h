// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/common/error.h>
#include <fathom/config/config_schema.h>

#include <string>

namespace fathom::cli {

/// The value of a boolean flag given as text (true/false, 1/0, yes/no, as the config files spell them); a
/// ConfigError naming the flag and the text for anything else.
inline bool boolFlag(const char* flag, const std::string& text) {
  const auto value = config::parseBool(text);
  FATHOM_CHECK(value.has_value() && !text.empty(), ConfigError, flag, " '", text, "' is not a boolean (true or false)");
  return *value;
}

}  // namespace fathom::cli
