// SPDX-License-Identifier: Apache-2.0
// Internal to core/parallel: how the FSDP and ZeRO option parsers read Accelerate's spellings.
#pragma once

#include <algorithm>
#include <cctype>
#include <string>
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

/// Upper case with '-' read as '_': "full-shard" -> "FULL_SHARD" (Accelerate's enum names).
inline std::string upperKey(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return c == '-' ? '_' : static_cast<char>(std::toupper(c)); });
  return out;
}

/// Lower case: "CPU" -> "cpu" (DeepSpeed's device names).
inline std::string lowerKey(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

}  // namespace fathom::parallel::option_text
