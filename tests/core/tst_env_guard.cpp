// SPDX-License-Identifier: Apache-2.0
// tests/support/env_guard.h under a concurrent reader. QtTest's watchdog thread reads QTEST_FUNCTION_TIMEOUT through
// qEnvironmentVariableIntValue() as every test function starts, while the function itself may already be setting
// variables. A plain ::setenv() does not take Qt's environment lock and can reallocate `environ` under that reader:
// CI saw tst_telemetry die with SIGSEGV in the watchdog's getenv() (stop 37). EnvGuard must go through Qt's lock.
#include "env_guard.h"

#include <QTest>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

using fathom::test::EnvGuard;

class TestEnvGuard : public QObject {
  Q_OBJECT

private slots:
  void setsAndRestores() {
    qunsetenv("FATHOM_TEST_ENV_GUARD");
    {
      const EnvGuard set("FATHOM_TEST_ENV_GUARD", "one");
      QCOMPARE(qgetenv("FATHOM_TEST_ENV_GUARD"), QByteArray("one"));
      {
        const EnvGuard inner("FATHOM_TEST_ENV_GUARD", "two");
        QCOMPARE(qgetenv("FATHOM_TEST_ENV_GUARD"), QByteArray("two"));
        {
          const EnvGuard unset("FATHOM_TEST_ENV_GUARD", nullptr);
          QVERIFY(!qEnvironmentVariableIsSet("FATHOM_TEST_ENV_GUARD"));
        }
        QCOMPARE(qgetenv("FATHOM_TEST_ENV_GUARD"), QByteArray("two"));
      }
      QCOMPARE(qgetenv("FATHOM_TEST_ENV_GUARD"), QByteArray("one"));
    }
    QVERIFY(!qEnvironmentVariableIsSet("FATHOM_TEST_ENV_GUARD"));
    {
      const EnvGuard empty("FATHOM_TEST_ENV_GUARD", "");  // set but empty is not unset
      QVERIFY(qEnvironmentVariableIsSet("FATHOM_TEST_ENV_GUARD"));
      QVERIFY(qEnvironmentVariableIsEmpty("FATHOM_TEST_ENV_GUARD"));
    }
    QVERIFY(!qEnvironmentVariableIsSet("FATHOM_TEST_ENV_GUARD"));
  }

  /// The watchdog's read, in a loop, while guards add and remove many fresh variables at once (each new name grows
  /// `environ`, which glibc's setenv() reallocates, freeing the array the reader may be walking).
  void concurrentQtReaderSurvives() {
    std::atomic<bool> stop{false};
    std::atomic<long> reads{0};
    std::thread reader([&] {
      while (!stop.load(std::memory_order_relaxed)) {
        (void)qEnvironmentVariableIntValue("QTEST_FUNCTION_TIMEOUT");
        reads.fetch_add(1, std::memory_order_relaxed);
      }
    });
    constexpr int kRounds = 300;
    constexpr int kAtOnce = 128;
    for (int round = 0; round < kRounds; ++round) {
      std::vector<std::unique_ptr<EnvGuard>> guards;
      for (int i = 0; i < kAtOnce; ++i) {
        const std::string name = "FATHOM_TEST_ENV_GUARD_" + std::to_string(i);
        guards.push_back(std::make_unique<EnvGuard>(name.c_str(), "1"));
      }
      while (!guards.empty()) {
        guards.pop_back();  // innermost first, as scopes unwind
      }
    }
    stop = true;
    reader.join();
    QVERIFY(reads.load() > 0);
    QVERIFY(!qEnvironmentVariableIsSet("FATHOM_TEST_ENV_GUARD_0"));
  }
};

QTEST_GUILESS_MAIN(TestEnvGuard)
#include "tst_env_guard.moc"
