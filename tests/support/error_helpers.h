// SPDX-License-Identifier: Apache-2.0
// Small helpers for tests that check which error a call throws and what its message says.
#pragma once

#include <fathom/common/error.h>

#include <string>

namespace fathom::test {

/// The message of the fathom::Error `fn` throws, or "<no exception>".
template <typename Fn> std::string messageOf(Fn&& fn) {
  try {
    fn();
  } catch (const fathom::Error& e) {
    return e.what();
  }
  return "<no exception>";
}

/// Whether `fn` throws an E (and not something else).
template <typename E, typename Fn> bool throwsType(Fn&& fn) {
  try {
    fn();
  } catch (const E&) {
    return true;
  } catch (...) {
  }
  return false;
}

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace fathom::test
