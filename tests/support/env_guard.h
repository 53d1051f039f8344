// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdlib>
#include <string>

namespace fathom::test {

/// Sets (or, for nullptr, unsets) an environment variable for one scope and restores the previous state.
class EnvGuard {
public:
  EnvGuard(const char* name, const char* value) : m_name(name) {
    if (const char* old = std::getenv(name)) {
      m_old = old;
      m_had = true;
    }
    value != nullptr ? setenv(name, value, 1) : unsetenv(name);
  }
  ~EnvGuard() { m_had ? setenv(m_name.c_str(), m_old.c_str(), 1) : unsetenv(m_name.c_str()); }
  EnvGuard(const EnvGuard&) = delete;
  EnvGuard& operator=(const EnvGuard&) = delete;

private:
  std::string m_name;
  std::string m_old;
  bool m_had = false;
};

}  // namespace fathom::test
