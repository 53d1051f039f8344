// SPDX-License-Identifier: Apache-2.0
// Text from outside (configuration keys and values, file and run names, a worker's log lines) made safe to print on a
// terminal or in a log line. An ESC in a YAML key must not clear the screen of the person reading the error.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace fathom {

/// What terminalSafe() keeps.
enum class LineBreaks {
  Escape,  ///< '\n', '\r' and '\t' are escaped too: the result is one line (a quoted value, a log field)
  Keep,    ///< '\n' and '\t' stay (a whole multi-line message); '\r' is still escaped
};

/// `text` with every byte or character a terminal would act on written as a visible escape:
/// - C0 controls (U+0000..U+001F) and DEL as "\x1b" (two hex digits, lower case);
/// - C1 controls (U+0080..U+009F, the UTF-8 pairs C2 80..C2 9F) and the bidirectional overrides and isolates
///   (U+202A..U+202E, U+2066..U+2069) and line/paragraph separators (U+2028, U+2029) as "\u009b";
/// - each byte that is not part of valid UTF-8 (stray continuation bytes, overlong forms, surrogates, code points
///   above U+10FFFF, truncated sequences) as "\xff".
/// Valid printable UTF-8 (accents, CJK, emoji) passes unchanged; so does the backslash itself.
std::string terminalSafe(std::string_view text, LineBreaks lineBreaks = LineBreaks::Escape);

/// The offset of the first byte of `text` that is not part of valid UTF-8, or std::nullopt when all of it is.
std::optional<std::size_t> invalidUtf8Offset(std::string_view text);

/// True when `text` is valid UTF-8.
inline bool isValidUtf8(std::string_view text) {
  return !invalidUtf8Offset(text).has_value();
}

}  // namespace fathom
