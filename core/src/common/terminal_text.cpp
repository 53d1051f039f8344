// SPDX-License-Identifier: Apache-2.0
#include <fathom/common/terminal_text.h>

#include <cstdint>

namespace fathom {
namespace {

constexpr char kHex[] = "0123456789abcdef";

void appendByteEscape(std::string& out, unsigned char byte) {
  out += "\\x";
  out += kHex[byte >> 4];
  out += kHex[byte & 0xf];
}

void appendCodePointEscape(std::string& out, char32_t cp) {
  out += "\\u";
  for (int shift = 12; shift >= 0; shift -= 4) {
    out += kHex[(cp >> shift) & 0xf];
  }
}

/// The length of the valid UTF-8 sequence starting at text[i] and its code point, or 0 when the byte there does not
/// start one (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF).
std::size_t decode(std::string_view text, std::size_t i, char32_t& cp) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char b0 = byte(i);
  if (b0 < 0x80) {
    cp = b0;
    return 1;
  }
  std::size_t length = 0;
  char32_t min = 0;
  if (b0 >= 0xc2 && b0 <= 0xdf) {
    length = 2;
    cp = b0 & 0x1f;
    min = 0x80;
  } else if (b0 >= 0xe0 && b0 <= 0xef) {
    length = 3;
    cp = b0 & 0x0f;
    min = 0x800;
  } else if (b0 >= 0xf0 && b0 <= 0xf4) {
    length = 4;
    cp = b0 & 0x07;
    min = 0x10000;
  } else {
    return 0;
  }
  if (i + length > text.size()) {
    return 0;
  }
  for (std::size_t k = 1; k < length; ++k) {
    const unsigned char b = byte(i + k);
    if ((b & 0xc0) != 0x80) {
      return 0;
    }
    cp = (cp << 6) | (b & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
    return 0;
  }
  return length;
}

/// Characters a terminal acts on or that reorder or break the displayed line.
bool escapedCodePoint(char32_t cp) {
  return (cp >= 0x80 && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) ||
         cp == 0x2028 || cp == 0x2029;
}

}  // namespace

std::string terminalSafe(std::string_view text, LineBreaks lineBreaks) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    char32_t cp = 0;
    const std::size_t length = decode(text, i, cp);
    if (length == 0) {
      appendByteEscape(out, static_cast<unsigned char>(text[i]));
      ++i;
      continue;
    }
    if (length == 1) {
      const bool kept = lineBreaks == LineBreaks::Keep && (cp == '\n' || cp == '\t');
      if ((cp < 0x20 || cp == 0x7f) && !kept) {
        appendByteEscape(out, static_cast<unsigned char>(cp));
      } else {
        out += static_cast<char>(cp);
      }
    } else if (escapedCodePoint(cp)) {
      appendCodePointEscape(out, cp);
    } else {
      out.append(text.substr(i, length));
    }
    i += length;
  }
  return out;
}

std::optional<std::size_t> invalidUtf8Offset(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    char32_t cp = 0;
    const std::size_t length = decode(text, i, cp);
    if (length == 0) {
      return i;
    }
    i += length;
  }
  return std::nullopt;
}

}  // namespace fathom
