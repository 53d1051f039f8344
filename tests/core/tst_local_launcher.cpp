// SPDX-License-Identifier: Apache-2.0
// fathom::launch::LocalLauncher driven directly: what LaunchResult reports for a failure, for restarts and for a
// signal to the launcher, for a spawn that fails midway, and the front door on process limits. The workers are small
// shell scripts; their output goes to this test's stdout/stderr.
#include "process_survivors.h"

#include <fathom/common/error.h>
#include <fathom/launch/local_launcher.h>
#include <fathom/launch/process_guardian.h>
#include <fathom/launch/process_limits.h>
#include <fathom/runtime/free_port.h>

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <thread>

#include <sys/wait.h>
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

/// Makes the program unrunnable once rank 0 has started and recorded its pids, so rank 1's exec fails.
class BreakProgramAfterRankZero : public LaunchObserver {
public:
  BreakProgramAfterRankZero(QString program, QString pids) : m_program(std::move(program)), m_pids(std::move(pids)) {}
  void workerStarted(const WorkerEvent& worker) override {
    if (worker.rank == 0) {
      fathom::test::waitForFileCount(m_pids, QStringLiteral("pid.*"), 1);
      QFile::rename(m_program, m_program + QStringLiteral(".gone"));
    }
  }

private:
  QString m_program;
  QString m_pids;
};

/// This process's children named `comm` (the guardian renames itself "fathom-guardian").
QList<pid_t> childrenNamed(const QString& comm) {
  QList<pid_t> out;
  for (const QString& task : QDir(QStringLiteral("/proc/self/task")).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
    QFile children(QStringLiteral("/proc/self/task/%1/children").arg(task));
    if (!children.open(QIODevice::ReadOnly)) {
      continue;
    }
    for (const QByteArray& pid : children.readAll().split(' ')) {
      QFile name(QStringLiteral("/proc/%1/comm").arg(QString::fromLatin1(pid.trimmed())));
      if (!pid.trimmed().isEmpty() && name.open(QIODevice::ReadOnly) && name.readAll().trimmed() == comm.toLatin1()) {
        out << static_cast<pid_t>(pid.trimmed().toLongLong());
      }
    }
  }
  return out;
}

/// Kills the launcher's guardian when the first attempt's rank 0 has started.
class KillGuardian : public LaunchObserver {
public:
  void workerStarted(const WorkerEvent& worker) override {
    if (worker.attempt == 0 && worker.rank == 0) {
      guardians = childrenNamed(QStringLiteral("fathom-guardian"));
      for (pid_t pid : guardians) {
        ::kill(pid, SIGKILL);
        // Until it is a zombie (its end of the channel closed), without reaping it: the launcher does that.
        siginfo_t info{};
        ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOWAIT);
      }
    }
  }
  QList<pid_t> guardians;
};

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

  void spawnFailureStopsTheWorkersAlreadyStarted() {
    QTemporaryDir dir;
    const QString program = dir.filePath(QStringLiteral("worker.sh"));
    const QString written = fathom::test::writeExecutable(
        program, QStringLiteral("#!/bin/sh\ncd '%1'\nsleep 300 &\necho $! > child.$RANK\necho $$ > pid.$RANK\nwait\n")
                     .arg(dir.path())
                     .toUtf8());
    QVERIFY2(written.isEmpty(), qPrintable(written));
    LaunchOptions o;
    o.command = {program.toStdString()};
    o.numProcesses = 3;
    o.quiet = true;
    o.terminateGracePeriod = std::chrono::seconds(2);
    BreakProgramAfterRankZero observer(program, dir.path());
    QString message;
    try {
      LocalLauncher(o).run(&observer);
    } catch (const fathom::ConfigError& e) {
      message = QString::fromUtf8(e.what());
    }
    const QList<pid_t> pids = fathom::test::pidsInFiles(dir.path(), QStringLiteral("*.0"));
    const QString alive = fathom::test::survivingProcesses(pids);
    fathom::test::killSurvivors(pids);
    QCOMPARE(pids.size(), 2);
    QVERIFY2(alive.isEmpty(), qPrintable(QStringLiteral("still running: ") + alive));
    QVERIFY2(message.startsWith(QStringLiteral("rank 1 (local rank 1) could not be started: cannot execute ")),
             qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("No such file or directory; stopped the 1 process(es) already started")),
             qPrintable(message));
  }

  void processLimitsAreCheckedBeforeSpawning_data() {
    QTest::addColumn<int>("processes");
    QTest::addColumn<qint64>("maxUserProcesses");  // -1: not enforced
    QTest::addColumn<qint64>("userProcesses");
    QTest::addColumn<qint64>("maxOpenFiles");  // -1: unlimited
    QTest::addColumn<qint64>("openFiles");
    QTest::addColumn<QString>("error");  // empty: accepted
    QTest::newRow("no limits") << 8 << -1LL << 0LL << -1LL << 0LL << QString();
    QTest::newRow("the documented bound") << kMaxLocalProcesses << -1LL << 0LL << -1LL << 10LL << QString();
    QTest::newRow("above the documented bound")
        << kMaxLocalProcesses + 1 << -1LL << 0LL << -1LL << 0LL
        << QStringLiteral("--num_processes 1025 is more than the 1024 processes `fathom launch` runs on one machine");
    QTest::newRow("ulimit -u leaves room") << 8 << 100LL << 91LL << -1LL << 0LL << QString();
    QTest::newRow("ulimit -u has no room for the guardian")
        << 8 << 100LL << 92LL << -1LL << 0LL
        << QStringLiteral("--num_processes 8 needs 9 processes (the workers and the launcher's guardian), but "
                          "RLIMIT_NPROC (`ulimit -u`) is 100 and this user already runs 92, which leaves 8");
    QTest::newRow("ulimit -n leaves room") << 8 << -1LL << 0LL << 1024LL << 936LL << QString();
    QTest::newRow("ulimit -n is too low")
        << 8 << -1LL << 0LL << 1024LL << 937LL
        << QStringLiteral("--num_processes 8 needs about 88 file descriptors (3 per worker and 64 for the launcher), "
                          "but RLIMIT_NOFILE (`ulimit -n`) is 1024 and 937 are open");
  }

  void processLimitsAreCheckedBeforeSpawning() {
    QFETCH(int, processes);
    QFETCH(qint64, maxUserProcesses);
    QFETCH(qint64, userProcesses);
    QFETCH(qint64, maxOpenFiles);
    QFETCH(qint64, openFiles);
    QFETCH(QString, error);
    LaunchOptions o = shell(processes, QStringLiteral("true"));
    ProcessLimits limits;
    if (maxUserProcesses >= 0) {
      limits.maxUserProcesses = static_cast<std::uint64_t>(maxUserProcesses);
    }
    limits.userProcesses = static_cast<std::uint64_t>(userProcesses);
    if (maxOpenFiles >= 0) {
      limits.maxOpenFiles = static_cast<std::uint64_t>(maxOpenFiles);
    }
    limits.openFiles = static_cast<std::uint64_t>(openFiles);
    QString message;
    try {
      checkProcessLimits(o, limits);
    } catch (const fathom::ConfigError& e) {
      message = QString::fromUtf8(e.what());
    }
    if (error.isEmpty()) {
      QVERIFY2(message.isEmpty(), qPrintable(message));
    } else {
      QVERIFY2(message.startsWith(error), qPrintable(message));
    }
  }

  void tooManyProcessesFailConstruction() {
    // Nothing is spawned: the constructor refuses.
    QVERIFY_THROWS_EXCEPTION(fathom::ConfigError, LocalLauncher(shell(100000, QStringLiteral("true"))));
  }

  void dismissedGuardianSignalsNothing() {
    // A guardian told to exit (the launcher's normal end) leaves the groups it knew alone.
    auto worker = WorkerProcess::spawn({"/bin/sh", {"-c", "exec sleep 300"}, {}, {}});
    pid_t guardianPid = 0;
    {
      ProcessGuardian guardian(2, std::chrono::milliseconds(100));
      guardianPid = guardian.pid();
      // It keeps none of this process's descriptors: stdin, stdout (/dev/null), stderr and its channel only.
      QStringList fds;
      for (int attempt = 0; attempt < 250; ++attempt) {
        fds = QDir(QStringLiteral("/proc/%1/fd").arg(guardianPid)).entryList(QDir::AllEntries | QDir::NoDotAndDotDot);
        if (fds.size() <= 4) {
          break;  // it has closed the rest
        }
        QTest::qWait(20);
      }
      fds.sort();
      QCOMPARE(fds, (QStringList{QStringLiteral("0"), QStringLiteral("1"), QStringLiteral("2"), QStringLiteral("3")}));
      guardian.add(worker->pid());
      QCOMPARE(guardian.groups(), std::vector<pid_t>{worker->pid()});
      guardian.add(worker->pid() + 1000000);  // a second group fits
      QVERIFY_THROWS_EXCEPTION(fathom::Error, guardian.add(1));
      QVERIFY(guardian.remove(worker->pid() + 1000000));
    }
    QVERIFY(!fathom::test::processRunning(guardianPid));
    QTest::qWait(300);  // longer than the guardian's grace period
    QVERIFY(worker->groupAlive());
    QVERIFY(worker->running());
  }

  void killedGuardianFailsTheNextStart() {
    // The attempt with the guardian killed still ends by itself (rank 0 fails); the restart cannot protect its
    // workers, so it refuses to start them.
    LaunchOptions o = shell(1, QStringLiteral("exit 3"));
    o.maxRestarts = 1;
    KillGuardian observer;
    QString message;
    try {
      LocalLauncher(o).run(&observer);
    } catch (const fathom::Error& e) {
      message = QString::fromUtf8(e.what());
    }
    QCOMPARE(observer.guardians.size(), 1);
    QVERIFY2(message.startsWith(QStringLiteral("rank 0 (local rank 0) could not be started: the launcher's guardian "
                                               "process (pid %1) is gone")
                                    .arg(observer.guardians.front())),
             qPrintable(message));
    QVERIFY(!fathom::test::processRunning(observer.guardians.front()));
    QVERIFY(childrenNamed(QStringLiteral("fathom-guardian")).isEmpty());  // reaped, not a zombie child
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
