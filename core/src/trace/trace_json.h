// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <charconv>
#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

/// Text primitives of Chrome trace files, shared by the writer, the merge and the readers. They pin down the two
/// things viewers are picky about (docs/traces.md, "Timestamps" and "Strings"):
///
/// - Timestamps are microseconds printed from integer nanoseconds as `ns/1000 "." ns%1000` with exactly three
///   decimals, never through a double (Kineto does the same; a double loses nanoseconds past ~104 days and
///   abutting spans then overlap by 1 ns in Perfetto).
/// - Strings are plain UTF-8 without `\u` escapes (Perfetto's tokenizer rejects them).
namespace fathom::trace {

/// Appends `ns` nanoseconds as microseconds with exactly three decimals: 0 -> "0.000", 999 -> "0.999",
/// 1000 -> "1.000", -1 -> "-0.001". Exact for every int64.
void appendMicros(std::string& out, std::int64_t ns);

/// Appends an integer in decimal, as JSON writes it.
template <std::integral Integer> void appendInteger(std::string& out, Integer value) {
  char text[24];
  out.append(text, std::to_chars(text, text + sizeof text, value).ptr);
}

/// A JSON integer literal that fits int64 ("-12", "4242"); nullopt for anything else (empty, decimals, exponents,
/// strings, overflow).
std::optional<std::int64_t> parseInteger(std::string_view text);

/// Appends `text` as a quoted JSON string that every viewer loads:
/// - `"` and `\` are escaped as `\"` and `\\`;
/// - control characters (U+0000..U+001F) become a space: Perfetto rejects `\u` escapes and Kineto strips them too;
/// - each byte that does not start a well-formed UTF-8 sequence (RFC 3629: no overlong forms, no surrogates,
///   nothing above U+10FFFF, no truncated sequence) becomes U+FFFD, the replacement character (EF BF BD).
/// Never writes a `\u` escape.
void appendJsonString(std::string& out, std::string_view text);

/// The nanoseconds of a JSON number of microseconds, as Fathom reads its own timestamps: exact for decimal text
/// ("12.345" -> 12345, "7" -> 7000, "-0.5" -> -500); digits past the third decimal are truncated toward zero;
/// exponent forms ("1.5e3") go through a double. nullopt when `text` is not a JSON number or overflows int64.
std::optional<std::int64_t> parseMicros(std::string_view text);

/// The nanoseconds current Perfetto derives from a JSON double timestamp: `llround(micros * 1000.0)`
/// (json_trace_tokenizer.cc, CoerceToTs). JSON integers are `micros * 1000` in every version. Clamped to int64.
std::int64_t perfettoRoundedNs(double micros);
/// The nanoseconds older Perfetto derived from a JSON double timestamp: `static_cast<int64_t>(micros * 1000.0)`,
/// truncation (json_utils.cc / json_trace_utils.cc, CoerceToTs). "1.001" becomes 1000 ns, so a child that ends
/// exactly where its parent ends can cross it by 1 ns there. Clamped to int64.
std::int64_t perfettoTruncatedNs(double micros);

}  // namespace fathom::trace
