// SPDX-License-Identifier: Apache-2.0
#include "number_flag.h"

#include <fathom/common/checked_number.h>
#include <fathom/common/terminal_text.h>

#include <charconv>
#include <cmath>
#include <string>

namespace fathom::cli {

CLI::Validator wholeNumberIn(std::int64_t low, std::int64_t high) {
  return CLI::Validator(
      [low, high](std::string& text) -> std::string {
        const char* first = text.data() + (text.size() > 1 && text.front() == '+' ? 1 : 0);
        const char* last = text.data() + text.size();
        std::int64_t value = 0;
        const auto [end, error] = std::from_chars(first, last, value);
        bool fits = error == std::errc() && end == last && first != last;
        if (error == std::errc::result_out_of_range) {
          fits = false;  // more digits than 64 bits hold: out of range, whatever the bounds
        } else if (!fits) {
          // 7.5e9 style: accepted when it is a whole number that fits (std::from_chars for double is exact).
          double d = 0;
          const auto [dEnd, dError] = std::from_chars(first, last, d);
          if (dError != std::errc() || dEnd != last || first == last || !std::isfinite(d) || d != std::floor(d)) {
            return "'" + terminalSafe(text) + "' is not a whole number";
          }
          const std::optional<std::int64_t> whole = narrowed<std::int64_t>(d);
          fits = whole.has_value();
          value = whole.value_or(0);
          if (fits) {
            text = std::to_string(value);  // CLI11 converts integers from digits only
          }
        }
        if (!fits || value < low || value > high) {
          return terminalSafe(text) + " is out of range (allowed " + std::to_string(low) + ".." + std::to_string(high) +
                 ")";
        }
        return {};
      },
      std::string());
}

}  // namespace fathom::cli
