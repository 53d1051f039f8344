// SPDX-License-Identifier: Apache-2.0
#include <fathom/launch/shell_quote.h>

namespace fathom::launch {

std::string shellQuote(std::string_view text) {
  std::string quoted;
  quoted.reserve(text.size() + 2);
  quoted += '\'';
  for (const char c : text) {
    if (c == '\'') {
      quoted += "'\\''";  // close the quote, an escaped quote, reopen
    } else {
      quoted += c;
    }
  }
  quoted += '\'';
  return quoted;
}

std::string shellCommand(const std::vector<std::string>& words) {
  std::string line;
  for (const std::string& word : words) {
    if (!line.empty()) {
      line += ' ';
    }
    line += shellQuote(word);
  }
  return line;
}

}  // namespace fathom::launch
