// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fathom::trace {

/// A zero-copy view of one trace event's JSON text (what TraceReader yields): its top-level members as raw text
/// spans, in file order. Cheap enough for millions of events (no allocation once warm, no DOM), and exact:
/// timestamps come from their decimal text (parseMicros), not from a double, and members can be copied to an
/// output byte for byte (the merge keeps `args` that way).
///
/// parse() checks the object's shape (keys, colons, commas, balanced brackets, strings) but not the values' grammar;
/// parseStrict() checks the whole text against JSON's grammar in the same single pass (TraceValidator uses it).
/// Views point into the text given to parse() and into the view itself: valid until the next parse() or the view's
/// destruction.
class TraceEventView {
public:
  /// One member: `key` without its quotes (raw, escapes not decoded), `value` the raw JSON text.
  struct Member {
    std::string_view key;
    std::string_view value;
  };

  /// Splits `json`, one JSON object, into its members. Returns false when it is not a well-formed object; then
  /// errorOffset() and error() say where and why.
  bool parse(std::string_view json);

  /// What parseStrict() found.
  enum class Strict : std::uint8_t {
    Object,       ///< well-formed JSON, an object: members() holds its members
    NotAnObject,  ///< well-formed JSON of another kind (members() is empty)
    NotJson,      ///< not JSON (RFC 8259): errorOffset() and error() say where and why
  };
  /// Like parse(), and also checks every value against JSON's grammar (numbers, literals, escapes, UTF-8, no raw
  /// control characters), in the same pass.
  Strict parseStrict(std::string_view json);

  /// The members in file order.
  const std::vector<Member>& members() const { return m_members; }
  /// The raw value text of `key` (the first one if repeated); empty when absent.
  std::string_view raw(std::string_view key) const;
  /// Whether the event has `key`.
  bool has(std::string_view key) const { return !raw(key).empty(); }
  /// A string member's text, unescaped (only strings with escapes are copied, into the view); nullopt when absent
  /// or not a string.
  std::optional<std::string_view> string(std::string_view key) const;
  /// An integer member; nullopt when absent or not an integer literal that fits int64.
  std::optional<std::int64_t> integer(std::string_view key) const;
  /// A member holding microseconds (ts, dur) as exact nanoseconds (parseMicros); nullopt when absent or not a number.
  std::optional<std::int64_t> micros(std::string_view key) const;
  /// The phase: the first character of the `ph` string, '\0' when missing.
  char phase() const;

  /// Unescapes a raw JSON string (with its quotes) the way JSON defines it; nullopt when it is not a string.
  /// Keeps the result in the view when it needs a copy.
  std::optional<std::string_view> unquote(std::string_view rawString) const;

  /// After parse() returned false: the offset in the text of the offending byte.
  std::size_t errorOffset() const { return m_errorOffset; }
  /// After parse() returned false: a short English reason.
  const char* error() const { return m_error; }

private:
  std::string_view m_text;
  std::vector<Member> m_members;
  mutable std::deque<std::string> m_unescaped;  ///< a deque: appending never moves earlier strings
  std::size_t m_errorOffset = 0;
  const char* m_error = "";
};

/// Microseconds written as a JSON number ("12.345", as `ts` and `dur` are) as exact nanoseconds; digits past the
/// third decimal are truncated. nullopt when `text` is not a number or overflows int64. (What TraceEventView::micros
/// reads, for text from elsewhere: a command line's times.)
std::optional<std::int64_t> microsToNanos(std::string_view text);

/// Decodes a JSON string's escapes (`\n`, `\"`, `\uXXXX` with surrogate pairs) from `body` (the text between the
/// quotes) into `out`. Returns false on a malformed escape.
bool unescapeJsonString(std::string_view body, std::string& out);

}  // namespace fathom::trace
