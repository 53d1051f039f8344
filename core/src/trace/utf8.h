// SPDX-License-Identifier: Apache-2.0
// Well-formed UTF-8 (RFC 3629, table 3-7 of the Unicode standard), for the writer's string escaping and the
// validator's strict JSON check.
#pragma once

#include <cstddef>

namespace fathom::trace::detail {

inline bool isUtf8Continuation(unsigned char b) {
  return (b & 0xC0) == 0x80;
}

/// The length of the well-formed multi-byte UTF-8 sequence at `p` (2..4), or 0 when the bytes there are not one:
/// no overlong forms, no surrogates, nothing above U+10FFFF, no truncated sequence. `*p` must be >= 0x80.
inline std::size_t utf8SequenceLength(const unsigned char* p, const unsigned char* end) {
  const unsigned char lead = *p;
  const auto left = static_cast<std::size_t>(end - p);
  auto inRange = [](unsigned char b, unsigned char lo, unsigned char hi) { return b >= lo && b <= hi; };
  if (lead >= 0xC2 && lead <= 0xDF) {
    return left >= 2 && isUtf8Continuation(p[1]) ? 2 : 0;
  }
  if (lead >= 0xE0 && lead <= 0xEF) {
    // E0 excludes overlong forms (second byte >= A0), ED excludes the surrogates (second byte <= 9F).
    const unsigned char lo = lead == 0xE0 ? 0xA0 : 0x80;
    const unsigned char hi = lead == 0xED ? 0x9F : 0xBF;
    return left >= 3 && inRange(p[1], lo, hi) && isUtf8Continuation(p[2]) ? 3 : 0;
  }
  if (lead >= 0xF0 && lead <= 0xF4) {
    // F0 excludes overlong forms, F4 stops at U+10FFFF.
    const unsigned char lo = lead == 0xF0 ? 0x90 : 0x80;
    const unsigned char hi = lead == 0xF4 ? 0x8F : 0xBF;
    return left >= 4 && inRange(p[1], lo, hi) && isUtf8Continuation(p[2]) && isUtf8Continuation(p[3]) ? 4 : 0;
  }
  return 0;  // a continuation byte without a lead, C0/C1 (always overlong) or F5..FF
}

}  // namespace fathom::trace::detail
