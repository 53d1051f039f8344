// SPDX-License-Identifier: Apache-2.0
// Internal to core/parallel: how the FSDP and ZeRO option parsers trim the launcher's variables.
#pragma once

#include <cctype>
#include <string_view>

namespace fathom::parallel::option_text {

/// `text` without leading and trailing white space.
inline std::string_view trimmed(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())) != 0)
    text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())) != 0)
    text.remove_suffix(1);
  return text;
}

}  // namespace fathom::parallel::option_text
