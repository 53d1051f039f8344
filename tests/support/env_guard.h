// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QByteArray>
#include <QtGlobal>

#include <string>

namespace fathom::test {

/// Sets (or, for nullptr, unsets) an environment variable for one scope and restores the previous state.
///
/// Writes go through qputenv()/qunsetenv(), never ::setenv(): those take Qt's environment lock, which QtTest's
/// watchdog thread also takes when it reads QTEST_FUNCTION_TIMEOUT as each test function starts. A bare setenv()
/// can reallocate `environ` under that read (tst_telemetry died so in CI; tests/core/tst_env_guard.cpp). Readers on
/// other threads of a test's own must still not overlap a guard's lifetime edges.
class EnvGuard {
public:
  EnvGuard(const char* name, const char* value) : m_name(name), m_had(qEnvironmentVariableIsSet(name)) {
    if (m_had) {
      m_old = qgetenv(name);
    }
    value != nullptr ? qputenv(name, QByteArray(value)) : qunsetenv(name);
  }
  EnvGuard(const char* name, const std::string& value) : EnvGuard(name, value.c_str()) {}
  ~EnvGuard() { m_had ? qputenv(m_name.c_str(), m_old) : qunsetenv(m_name.c_str()); }
  EnvGuard(const EnvGuard&) = delete;
  EnvGuard& operator=(const EnvGuard&) = delete;

private:
  std::string m_name;
  QByteArray m_old;
  bool m_had = false;
};

}  // namespace fathom::test
