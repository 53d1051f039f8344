// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "common/dynamic_library.h"

#include <string>

namespace fathom::profile::detail {

/// Resolves a dlopened library's entry points into typed function pointers (the type comes from the pointer it
/// fills, i.e. from the vendor header's declaration) and remembers which required ones were missing.
class SymbolResolver {
public:
  explicit SymbolResolver(const fathom::detail::DynamicLibrary& library) : m_library(library) {}

  /// Sets `fn` to the symbol `name`, or nullptr when the library lacks it (remembered when `required`).
  template <typename Fn> void operator()(Fn& fn, const char* name, bool required = true) {
    fn = m_library.symbol<Fn>(name);
    if (fn == nullptr && required) {
      m_missing += m_missing.empty() ? name : std::string(", ") + name;
    }
  }

  /// Empty when every required symbol resolved; else "<path> lacks cuInit, cuDeviceGet".
  std::string error() const { return m_missing.empty() ? std::string() : m_library.path() + " lacks " + m_missing; }

private:
  const fathom::detail::DynamicLibrary& m_library;
  std::string m_missing;
};

}  // namespace fathom::profile::detail
