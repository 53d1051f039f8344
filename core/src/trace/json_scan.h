// SPDX-License-Identifier: Apache-2.0
// Finds where one JSON value ends without building it: the scanner under TraceReader (which cuts traceEvents into
// one text span per event) and TraceEventView (which cuts one event into its members). It is string- and
// escape-aware and checks that brackets match; everything else (numbers, literals, UTF-8) is left to the parser
// that reads the span afterwards.
#pragma once

#include <array>
#include <cstdint>

namespace fathom::trace::detail {

enum class ScanStatus : std::uint8_t {
  Complete,    ///< the value ends at ScanResult::end
  Incomplete,  ///< the text ended inside the value: give more text and scan again from the same start
  Malformed,   ///< ScanResult::end points at the offending byte; ScanResult::what says why
};

struct ScanResult {
  ScanStatus status = ScanStatus::Complete;
  const char* end = nullptr;  ///< one past the value (Complete) or the offending byte (Malformed)
  const char* what = "";      ///< Malformed: a short English reason
};

/// Byte classes for the scanners' inner loops.
enum ScanClass : std::uint8_t {
  kScanOther = 0,
  kScanQuote = 1,
  kScanBackslash = 2,
  kScanOpen = 3,
  kScanClose = 4,
  kScanSpace = 5,
  kScanScalar = 6,  ///< a character that can be part of a number or a literal (true/false/null)
};

constexpr std::array<std::uint8_t, 256> makeScanClasses() {
  std::array<std::uint8_t, 256> c{};
  c['"'] = kScanQuote;
  c['\\'] = kScanBackslash;
  c['{'] = c['['] = kScanOpen;
  c['}'] = c[']'] = kScanClose;
  c[' '] = c['\t'] = c['\n'] = c['\r'] = kScanSpace;
  for (const char ch : {'-', '+', '.', 'e', 'E'}) {
    c[static_cast<unsigned char>(ch)] = kScanScalar;
  }
  for (int ch = '0'; ch <= '9'; ++ch) {
    c[static_cast<std::size_t>(ch)] = kScanScalar;
  }
  for (int ch = 'a'; ch <= 'z'; ++ch) {
    c[static_cast<std::size_t>(ch)] = kScanScalar;
  }
  return c;
}
inline constexpr std::array<std::uint8_t, 256> kScanClasses = makeScanClasses();

inline std::uint8_t scanClass(char c) {
  return kScanClasses[static_cast<unsigned char>(c)];
}

inline const char* skipSpace(const char* p, const char* end) {
  while (p < end && scanClass(*p) == kScanSpace) {
    ++p;
  }
  return p;
}

/// `p` points just past an opening quote; returns one past the closing quote, or nullptr when the text ends first.
inline const char* skipStringBody(const char* p, const char* end) {
  while (p < end) {
    const std::uint8_t c = scanClass(*p);
    if (c == kScanQuote) {
      return p + 1;
    }
    p += c == kScanBackslash ? 2 : 1;  // the escaped character can be a quote
  }
  return nullptr;
}

/// Scans the value that starts at `p` (its first non-space byte). Nesting deeper than kMaxDepth is Malformed.
inline ScanResult scanValue(const char* p, const char* end) {
  constexpr int kMaxDepth = 1024;
  if (p >= end) {
    return {ScanStatus::Incomplete, p, ""};
  }
  const std::uint8_t first = scanClass(*p);
  if (first == kScanQuote) {
    const char* close = skipStringBody(p + 1, end);
    return close ? ScanResult{ScanStatus::Complete, close, ""} : ScanResult{ScanStatus::Incomplete, end, ""};
  }
  if (first == kScanScalar) {
    const char* q = p;
    while (q < end && scanClass(*q) == kScanScalar) {
      ++q;
    }
    // A number at the very end of the text may go on in the next chunk.
    return q == end ? ScanResult{ScanStatus::Incomplete, end, ""} : ScanResult{ScanStatus::Complete, q, ""};
  }
  if (first != kScanOpen) {
    return {ScanStatus::Malformed, p, "expected a JSON value"};
  }
  // Open brackets as a bit stack (1 = object), so a `{` closed by `]` is caught here with its offset.
  std::array<std::uint64_t, kMaxDepth / 64> stack{};
  int depth = 0;
  while (p < end) {
    switch (scanClass(*p)) {
    case kScanQuote:
      p = skipStringBody(p + 1, end);
      if (!p) {
        return {ScanStatus::Incomplete, end, ""};
      }
      continue;
    case kScanOpen: {
      if (depth == kMaxDepth) {
        return {ScanStatus::Malformed, p, "nesting deeper than 1024 levels"};
      }
      const std::uint64_t bit = std::uint64_t{1} << (depth % 64);
      auto& word = stack[static_cast<std::size_t>(depth / 64)];
      word = *p == '{' ? (word | bit) : (word & ~bit);
      ++depth;
      break;
    }
    case kScanClose: {
      if (depth == 0) {
        return {ScanStatus::Malformed, p, "unbalanced closing bracket"};
      }
      --depth;
      const bool object = (stack[static_cast<std::size_t>(depth / 64)] >> (depth % 64)) & 1U;
      if (object != (*p == '}')) {
        return {ScanStatus::Malformed, p,
                object ? "expected '}' to close an object" : "expected ']' to close an array"};
      }
      if (depth == 0) {
        return {ScanStatus::Complete, p + 1, ""};
      }
      break;
    }
    default: break;
    }
    ++p;
  }
  return {ScanStatus::Incomplete, end, ""};
}

}  // namespace fathom::trace::detail
