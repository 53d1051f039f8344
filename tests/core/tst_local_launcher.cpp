// SPDX-License-Identifier: Apache-2.0
// fathom::launch::LocalLauncher driven directly: what LaunchResult reports for a failure, for restarts and for a
// signal to the launcher. The workers are small shell scripts; their output goes to this test's stdout/stderr.
#include <fathom/common/error.h>
#include <fathom/launch/local_launcher.h>
#include <fathom/runtime/free_port.h>

#include <QDir>
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <thread>

#include <unistd.h>

using namespace fathom::launch;

namespace {

LaunchOptions shell(int processes, const QString& script) {
  LaunchOptions o;
  o.command = {"sh", "-c", script.toStdString()};
  o.numProcesses = processes;
  o.quiet = true;
  return o;
}

}  // namespace

class TestLocalLauncher : public QObject {
  Q_OBJECT

private slots:
  void successReportsNothing() {
    const LaunchResult r = LocalLauncher(shell(2, QStringLiteral("exit 0"))).run();
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.attempts, 1);
    QVERIFY(!r.failure);
    QVERIFY(!r.interruptedBy);
    QVERIFY(r.masterPort != 0);
    QCOMPARE(r.teardown.count(), 0);
  }

  void failureNamesRankStatusAndLastLines() {
    const LaunchResult r =
        LocalLauncher(
            shell(3, QStringLiteral("if [ $RANK = 2 ]; then echo one; echo two >&2; exit 9; fi; exec sleep 30")))
            .run();
    QCOMPARE(r.exitCode, 9);
    QVERIFY(r.failure.has_value());
    QCOMPARE(r.failure->rank, 2);
    QCOMPARE(r.failure->localRank, 2);
    QVERIFY(!r.failure->status.signaled);
    QCOMPARE(r.failure->status.value, 9);
    QCOMPARE(r.failure->lastLines, (std::vector<std::string>{"one", "two"}));
    QVERIFY2(r.teardown < std::chrono::seconds(2), "SIGTERM should have stopped `sleep` at once");
  }

  void restartsUntilTheLimit() {
    LaunchOptions o = shell(2, QStringLiteral("[ $RANK = 0 ] && exit 4; exit 0"));
    o.maxRestarts = 2;
    const LaunchResult r = LocalLauncher(o).run();
    QCOMPARE(r.attempts, 3);
    QCOMPARE(r.exitCode, 4);
    QCOMPARE(r.failure->rank, 0);
  }

  void givenPortIsUsed() {
    const std::uint16_t port = fathom::runtime::findFreePort();
    LaunchOptions o = shell(1, QStringLiteral("[ \"$MASTER_PORT\" = %1 ]").arg(port));
    o.mainProcessPort = port;
    const LaunchResult r = LocalLauncher(o).run();
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.masterPort, port);
  }

  void signalToTheLauncherStopsWithoutRestart() {
    QTemporaryDir dir;
    LaunchOptions o = shell(2, QStringLiteral("echo $$ > '%1'/pid.$RANK; exec sleep 30").arg(dir.path()));
    o.maxRestarts = 3;
    std::thread sender([&] {
      QElapsedTimer timer;
      timer.start();
      while (QDir(dir.path()).entryList({QStringLiteral("pid.*")}, QDir::Files).size() < 2 &&
             timer.elapsed() < 20'000) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
      ::kill(::getpid(), SIGTERM);  // the launcher's handler is installed while run() runs
    });
    const LaunchResult r = LocalLauncher(o).run();
    sender.join();
    QCOMPARE(r.interruptedBy, std::optional<int>(SIGTERM));
    QCOMPARE(r.exitCode, 128 + SIGTERM);
    QCOMPARE(r.attempts, 1);
    QVERIFY(!r.failure);
  }

  void constructionValidates() {
    QVERIFY_THROWS_EXCEPTION(fathom::ConfigError, LocalLauncher(shell(0, QStringLiteral("true"))));
    LaunchOptions missing;
    missing.command = {"fathom-no-such-program"};
    QVERIFY_THROWS_EXCEPTION(fathom::ConfigError, LocalLauncher{missing});
  }
};

QTEST_GUILESS_MAIN(TestLocalLauncher)
#include "tst_local_launcher.moc"
