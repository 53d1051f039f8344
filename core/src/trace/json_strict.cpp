// SPDX-License-Identifier: Apache-2.0
#include "json_strict.h"

#include "utf8.h"

#include <cstring>

namespace fathom::trace::detail {
namespace {

constexpr int kMaxDepth = 512;  // recursion: far deeper than any trace event, far below the stack's limit

class Checker {
public:
  Checker(std::string_view text, std::vector<TraceEventView::Member>* members)
      : m_begin(text.data()), m_p(text.data()), m_end(text.data() + text.size()), m_members(members) {}

  std::optional<JsonProblem> run() {
    if (m_members != nullptr) {
      m_members->clear();
    }
    space();
    if (!value(0)) {
      return failed();
    }
    space();
    if (m_p != m_end) {
      failHere("unexpected text after the value");
      return failed();
    }
    return std::nullopt;
  }

private:
  bool at(char c) const { return m_p < m_end && *m_p == c; }
  bool digit() const { return m_p < m_end && *m_p >= '0' && *m_p <= '9'; }

  void space() {
    while (m_p < m_end && (*m_p == ' ' || *m_p == '\t' || *m_p == '\n' || *m_p == '\r')) {
      ++m_p;
    }
  }

  /// Records the problem at the current byte; returns false so callers can `return fail(...)`.
  bool failHere(const char* what) {
    m_problem = JsonProblem{static_cast<std::size_t>(m_p - m_begin), what};
    return false;
  }
  /// The problem, with no members handed out (a malformed text has none, not some of them).
  std::optional<JsonProblem> failed() {
    if (m_members != nullptr) {
      m_members->clear();
    }
    return m_problem;
  }

  bool value(int depth) {
    if (m_p == m_end) {
      return failHere("the text ends where a value should start");
    }
    switch (*m_p) {
    case '{': return container(depth + 1, '}');
    case '[': return container(depth + 1, ']');
    case '"': return string();
    case 't': return literal("true");
    case 'f': return literal("false");
    case 'n': return literal("null");
    default: return number();
    }
  }

  /// An object (members `"name": value`, closed by '}') or an array (values, closed by ']').
  bool container(int depth, char close) {
    if (depth > kMaxDepth) {
      return failHere("nesting deeper than 512 levels");
    }
    ++m_p;  // '{' or '['
    space();
    if (at(close)) {
      ++m_p;
      return true;
    }
    // The top-level object's members are handed out as they pass (depth 1: the value itself).
    const bool collect = m_members != nullptr && depth == 1 && close == '}';
    for (;;) {
      const char* keyStart = m_p + 1;
      const char* keyEnd = nullptr;
      if (close == '}' && !memberName(keyEnd)) {
        return false;
      }
      const char* valueStart = m_p;
      if (!value(depth)) {
        return false;
      }
      if (collect) {
        m_members->push_back({std::string_view(keyStart, static_cast<std::size_t>(keyEnd - keyStart)),
                              std::string_view(valueStart, static_cast<std::size_t>(m_p - valueStart))});
      }
      space();
      if (at(',')) {
        ++m_p;
        space();
        continue;
      }
      if (at(close)) {
        ++m_p;
        return true;
      }
      return failHere(close == '}' ? "expected ',' or '}' in an object" : "expected ',' or ']' in an array");
    }
  }

  /// `"name"` and its ':' (and the white space after); `keyEnd` gets the position of the closing quote.
  bool memberName(const char*& keyEnd) {
    if (!at('"')) {
      return failHere("expected a member name in quotes");
    }
    if (!string()) {
      return false;
    }
    keyEnd = m_p - 1;
    space();
    if (!at(':')) {
      return failHere("expected ':' after a member name");
    }
    ++m_p;
    space();
    return true;
  }

  bool string() {
    ++m_p;  // '"'
    while (m_p < m_end) {
      const auto c = static_cast<unsigned char>(*m_p);
      if (c == '"') {
        ++m_p;
        return true;
      }
      if (c < 0x20) {
        return failHere("a raw control character in a string");
      }
      if (c == '\\') {
        if (!escape()) {
          return false;
        }
        continue;
      }
      if (c >= 0x80) {
        const std::size_t length = utf8SequenceLength(reinterpret_cast<const unsigned char*>(m_p),
                                                      reinterpret_cast<const unsigned char*>(m_end));
        if (length == 0) {
          return failHere("a string that is not well-formed UTF-8");
        }
        m_p += length;
        continue;
      }
      ++m_p;
    }
    return failHere("an unterminated string");
  }

  bool escape() {
    ++m_p;  // '\'
    if (m_p == m_end || std::strchr("\"\\/bfnrtu", *m_p) == nullptr || *m_p == '\0') {
      return failHere("an invalid escape in a string");
    }
    if (*m_p++ != 'u') {
      return true;
    }
    for (int i = 0; i < 4; ++i, ++m_p) {
      const char h = m_p < m_end ? *m_p : '\0';
      if (!((h >= '0' && h <= '9') || (h >= 'a' && h <= 'f') || (h >= 'A' && h <= 'F'))) {
        return failHere("a \\u escape without four hex digits");
      }
    }
    return true;
  }

  bool literal(std::string_view word) {
    if (static_cast<std::size_t>(m_end - m_p) < word.size() || std::string_view(m_p, word.size()) != word) {
      return failHere("an invalid literal (true, false and null are the only words)");
    }
    m_p += word.size();
    return true;
  }

  bool number() {
    if (at('-')) {
      ++m_p;
    }
    if (at('0')) {
      ++m_p;
    } else if (digit()) {
      while (digit()) {
        ++m_p;
      }
    } else {
      return failHere("expected a value");
    }
    if (at('.')) {
      ++m_p;
      if (!digit()) {
        return failHere("a number with no digit after its '.'");
      }
      while (digit()) {
        ++m_p;
      }
    }
    if (at('e') || at('E')) {
      ++m_p;
      if (at('+') || at('-')) {
        ++m_p;
      }
      if (!digit()) {
        return failHere("a number with no digit in its exponent");
      }
      while (digit()) {
        ++m_p;
      }
    }
    return true;
  }

  const char* m_begin;
  const char* m_p;
  const char* m_end;
  std::vector<TraceEventView::Member>* m_members;  ///< the top-level object's members, or nullptr
  std::optional<JsonProblem> m_problem;
};

}  // namespace

std::optional<JsonProblem> checkJson(std::string_view text, std::vector<TraceEventView::Member>* members) {
  return Checker(text, members).run();
}

}  // namespace fathom::trace::detail
