// SPDX-License-Identifier: Apache-2.0
#include "trace/trace_json.h"

#include "utf8.h"

#include <array>
#include <charconv>
#include <cmath>
#include <limits>

namespace fathom::trace {
namespace {

/// What appendJsonString does with each byte value.
enum ByteClass : std::uint8_t {
  kPlain = 0,    ///< copied as is
  kEscape = 1,   ///< `"` or `\`: written with a backslash
  kControl = 2,  ///< U+0000..U+001F: written as a space
  kHigh = 3,     ///< 0x80..0xFF: the start (or not) of a multi-byte UTF-8 sequence
};

constexpr std::array<std::uint8_t, 256> makeByteClasses() {
  std::array<std::uint8_t, 256> classes{};
  for (int b = 0; b < 256; ++b) {
    classes[static_cast<std::size_t>(b)] = b < 0x20 ? kControl : b >= 0x80 ? kHigh : kPlain;
  }
  classes['"'] = kEscape;
  classes['\\'] = kEscape;
  return classes;
}
constexpr std::array<std::uint8_t, 256> kByteClasses = makeByteClasses();

constexpr std::string_view kReplacementCharacter = "\xEF\xBF\xBD";  // U+FFFD

bool isDigit(char c) {
  return c >= '0' && c <= '9';
}

}  // namespace

void appendMicros(std::string& out, std::int64_t ns) {
  char text[32];
  char* p = text;
  std::uint64_t magnitude = static_cast<std::uint64_t>(ns);
  if (ns < 0) {
    *p++ = '-';
    magnitude = 0 - magnitude;  // well defined for INT64_MIN too
  }
  p = std::to_chars(p, text + sizeof text, magnitude / 1000).ptr;
  const auto fraction = static_cast<unsigned>(magnitude % 1000);
  p[0] = '.';
  p[1] = static_cast<char>('0' + fraction / 100);
  p[2] = static_cast<char>('0' + fraction / 10 % 10);
  p[3] = static_cast<char>('0' + fraction % 10);
  out.append(text, p + 4);
}

void appendJsonString(std::string& out, std::string_view text) {
  out.push_back('"');
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const auto* const end = p + text.size();
  while (p < end) {
    // The common case: a run of printable ASCII, appended in one go.
    const auto* run = p;
    while (p < end && kByteClasses[*p] == kPlain) {
      ++p;
    }
    out.append(reinterpret_cast<const char*>(run), static_cast<std::size_t>(p - run));
    if (p == end) {
      break;
    }
    switch (kByteClasses[*p]) {
    case kEscape:
      out.push_back('\\');
      out.push_back(static_cast<char>(*p));
      ++p;
      break;
    case kControl:
      out.push_back(' ');
      ++p;
      break;
    default:
      if (const std::size_t length = detail::utf8SequenceLength(p, end); length > 0) {
        out.append(reinterpret_cast<const char*>(p), length);
        p += length;
      } else {
        out.append(kReplacementCharacter);
        ++p;
      }
      break;
    }
  }
  out.push_back('"');
}

std::optional<std::int64_t> parseInteger(std::string_view text) {
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
    return std::nullopt;
  }
  return value;
}

std::optional<std::int64_t> parseMicros(std::string_view text) {
  const char* p = text.data();
  const char* const end = p + text.size();
  const bool negative = p < end && *p == '-';
  p += negative ? 1 : 0;
  if (p == end || !isDigit(*p)) {
    return std::nullopt;
  }
  // |value| in ns, accumulated in uint64 with overflow checks against int64's range.
  constexpr std::uint64_t kLimit = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  std::uint64_t whole = 0;
  const char* const wholeStart = p;
  const auto [afterWhole, wholeError] = std::from_chars(wholeStart, end, whole);
  if (wholeError != std::errc() || whole > kLimit / 1000) {
    return std::nullopt;
  }
  p = afterWhole;
  std::uint64_t fraction = 0;
  if (p < end && *p == '.') {
    ++p;
    if (p == end || !isDigit(*p)) {
      return std::nullopt;
    }
    int digits = 0;
    for (; p < end && isDigit(*p); ++p, ++digits) {
      if (digits < 3) {  // digits past nanoseconds are truncated
        fraction = fraction * 10 + static_cast<std::uint64_t>(*p - '0');
      }
    }
    for (; digits < 3; ++digits) {
      fraction *= 10;
    }
  }
  if (p < end && (*p == 'e' || *p == 'E')) {
    double micros = 0;
    const auto [afterDouble, doubleError] = std::from_chars(text.data(), end, micros);
    if (doubleError != std::errc() || afterDouble != end || !std::isfinite(micros) ||
        std::abs(micros * 1000.0) >= 9.2e18) {
      return std::nullopt;
    }
    return static_cast<std::int64_t>(micros * 1000.0);
  }
  if (p != end) {
    return std::nullopt;
  }
  const std::uint64_t magnitude = whole * 1000 + fraction;
  if (magnitude > kLimit + (negative ? 1 : 0)) {  // INT64_MIN's magnitude is one more than INT64_MAX
    return std::nullopt;
  }
  return static_cast<std::int64_t>(negative ? 0 - magnitude : magnitude);  // modular: exact for INT64_MIN
}

namespace {
/// `ns` as int64, clamped: the casts are undefined outside int64's range (no real trace gets there).
std::optional<std::int64_t> outOfRange(double ns) {
  if (!(ns > -9.2e18)) {
    return std::numeric_limits<std::int64_t>::min();
  }
  if (!(ns < 9.2e18)) {
    return std::numeric_limits<std::int64_t>::max();
  }
  return std::nullopt;
}
}  // namespace

std::int64_t perfettoRoundedNs(double micros) {
  const double ns = micros * 1000.0;
  if (const auto clamped = outOfRange(ns)) {
    return *clamped;
  }
  return std::llround(ns);
}

std::int64_t perfettoTruncatedNs(double micros) {
  const double ns = micros * 1000.0;
  if (const auto clamped = outOfRange(ns)) {
    return *clamped;
  }
  return static_cast<std::int64_t>(ns);
}

}  // namespace fathom::trace
