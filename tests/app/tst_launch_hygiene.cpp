// SPDX-License-Identifier: Apache-2.0
// Nothing of a `fathom launch` run outlives it, however the launcher ends: SIGKILL to the launcher alone or to its
// whole process group, SIGINT to its group (a terminal's Ctrl-C) or SIGTERM, a worker that crashes. The workers are
// real bash scripts that each start a grandchild (`sleep 300 &`) and record both pids; every test checks by pid
// that none of them runs afterwards, and that nothing was left in TMPDIR or the launcher's working directory.
// Too many processes are refused before any starts (docs/launch.md, "Limits").
#include "cli_runner.h"
#include "process_survivors.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

#include <unistd.h>

using namespace Qt::StringLiterals;
using fathom::test::pidsInFiles;
using fathom::test::survivingProcesses;

namespace {

/// $1: where to record pids; $2: "crash" makes rank 1 kill itself with SIGKILL once every rank is up, "kill-launcher"
/// makes every rank SIGKILL the launcher at once (so a launcher that should have refused cannot do much harm).
constexpr auto kWorker = R"(#!/bin/bash
cd "$1" || exit 99
if [ "$2" = kill-launcher ]; then echo $$ > pid.$RANK; kill -9 $PPID; exit 0; fi
sleep 300 &
echo $! > child.$RANK
echo $$ > pid.$RANK
if [ "$2" = crash ] && [ "$RANK" = 1 ]; then
  while [ $(ls pid.* | wc -l) -lt $WORLD_SIZE ]; do sleep 0.05; done
  kill -9 $$
fi
wait
)";

enum class Ending { KillLauncher, KillLauncherGroup, InterruptLauncherGroup, TerminateLauncher, WorkerCrash };

}  // namespace

class TestLaunchHygiene : public QObject {
  Q_OBJECT

private:
  QTemporaryDir m_root;
  QString m_script;

  /// A launcher whose TMPDIR and working directory start empty (both are checked afterwards).
  struct Launcher {
    QProcess process;
    QString pids;  ///< where the workers record their pids
    QString tmp;
    QString cwd;
  };

  /// Starts `fathom launch FLAGS worker.sh PIDS MODE`.
  void start(Launcher& l, const QString& name, const QStringList& flags, const QString& mode, bool ownGroup) {
    l.pids = m_root.filePath(name + u"/pids"_s);
    l.tmp = m_root.filePath(name + u"/tmp"_s);
    l.cwd = m_root.filePath(name + u"/cwd"_s);
    for (const QString& d : {l.pids, l.tmp, l.cwd}) {
      QVERIFY(QDir().mkpath(d));
    }
    QProcessEnvironment env = fathom::test::launcherFreeEnvironment();
    env.insert(u"TMPDIR"_s, l.tmp);
    l.process.setProcessEnvironment(env);
    l.process.setWorkingDirectory(l.cwd);
    if (ownGroup) {
      // As a shell's job control does: the launcher leads a process group of its own, which the test can signal.
      l.process.setChildProcessModifier([] { ::setpgid(0, 0); });
    }
    l.process.start(fathom::test::fathomExecutable(),
                    QStringList{u"launch"_s} + flags + QStringList{m_script, l.pids, mode});
    QVERIFY(l.process.waitForStarted());
  }

  /// Nothing left in the launcher's TMPDIR or working directory.
  static QString strayFiles(const Launcher& l) {
    QStringList stray;
    for (const QString& d : {l.tmp, l.cwd}) {
      for (const QString& name : QDir(d).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden)) {
        stray << d + u'/' + name;
      }
    }
    return stray.join(u' ');
  }

private slots:
  void initTestCase() {
    QVERIFY(m_root.isValid());
    fathom::test::useWorkspaceIn(m_root);
    m_script = m_root.filePath(u"worker.sh"_s);
    const QString written = fathom::test::writeExecutable(m_script, kWorker);
    QVERIFY2(written.isEmpty(), qPrintable(written));
  }

  void nothingOutlivesTheLauncher_data() {
    QTest::addColumn<int>("endingValue");
    QTest::newRow("SIGKILL to the launcher") << int(Ending::KillLauncher);
    QTest::newRow("SIGKILL to the launcher's process group") << int(Ending::KillLauncherGroup);
    QTest::newRow("SIGINT to the launcher's process group (Ctrl-C)") << int(Ending::InterruptLauncherGroup);
    QTest::newRow("SIGTERM to the launcher") << int(Ending::TerminateLauncher);
    QTest::newRow("a worker killed by SIGKILL") << int(Ending::WorkerCrash);
  }

  void nothingOutlivesTheLauncher() {
    QFETCH(int, endingValue);
    const auto ending = static_cast<Ending>(endingValue);
    const QString name = QString::fromLatin1(QTest::currentDataTag()).replace(u' ', u'_');
    const bool ownGroup = ending == Ending::KillLauncherGroup || ending == Ending::InterruptLauncherGroup;
    Launcher l;
    start(l, name, {u"--num_processes"_s, u"2"_s, u"--terminate_grace_period"_s, u"2"_s},
          ending == Ending::WorkerCrash ? u"crash"_s : u"wait"_s, ownGroup);
    const bool up = fathom::test::waitForFileCount(l.pids, u"pid.*"_s, 2);
    const QList<pid_t> pids = pidsInFiles(l.pids, u"pid.*"_s) + pidsInFiles(l.pids, u"child.*"_s);
    const auto launcher = static_cast<pid_t>(l.process.processId());
    switch (ending) {
    case Ending::KillLauncher: QCOMPARE(::kill(launcher, SIGKILL), 0); break;
    case Ending::KillLauncherGroup: QCOMPARE(::kill(-launcher, SIGKILL), 0); break;
    case Ending::InterruptLauncherGroup: QCOMPARE(::kill(-launcher, SIGINT), 0); break;
    case Ending::TerminateLauncher: QCOMPARE(::kill(launcher, SIGTERM), 0); break;
    case Ending::WorkerCrash: break;
    }
    const bool finished = l.process.waitForFinished(30'000);
    const QByteArray err = l.process.readAllStandardError();
    if (!finished) {
      l.process.kill();
      l.process.waitForFinished();
    }
    const QString alive = survivingProcesses(pids);
    fathom::test::killSurvivors(pids);
    QVERIFY2(up, err.constData());
    QCOMPARE(pids.size(), 4);
    QVERIFY2(finished, err.constData());
    QVERIFY2(alive.isEmpty(),
             qPrintable(u"still running 10 s after the launcher ended: "_s + alive + u"\n"_s + QString::fromUtf8(err)));
    switch (ending) {
    case Ending::KillLauncher:
    case Ending::KillLauncherGroup: QCOMPARE(l.process.exitStatus(), QProcess::CrashExit); break;
    case Ending::InterruptLauncherGroup: QCOMPARE(l.process.exitCode(), 128 + SIGINT); break;
    case Ending::TerminateLauncher: QCOMPARE(l.process.exitCode(), 128 + SIGTERM); break;
    case Ending::WorkerCrash:
      QCOMPARE(l.process.exitCode(), 128 + SIGKILL);
      QVERIFY2(err.contains("rank 1 (local rank 1, pid "), err.constData());
      break;
    }
    const QString stray = strayFiles(l);
    QVERIFY2(stray.isEmpty(), qPrintable(u"left behind: "_s + stray));
  }

  void tooManyProcessesAreRefusedBeforeAnyStarts() {
    // Every worker that does start kills the launcher at once, so a launcher that should refuse starts few.
    Launcher l;
    start(l, u"too_many"_s, {u"--num_processes"_s, u"100000"_s}, u"kill-launcher"_s, false);
    QVERIFY(l.process.waitForFinished(30'000));
    const QByteArray err = l.process.readAllStandardError();
    QCOMPARE(l.process.exitStatus(), QProcess::NormalExit);
    QCOMPARE(l.process.exitCode(), 2);
    QVERIFY2(err.contains("--num_processes 100000 is more than the 1024 processes `fathom launch` runs on one machine"),
             err.constData());
    QVERIFY2(QDir(l.pids).isEmpty(), "workers were started");
    QVERIFY2(strayFiles(l).isEmpty(), qPrintable(strayFiles(l)));
  }

  void userProcessLimitIsCheckedBeforeAnyStarts() {
    // RLIMIT_NPROC binds only an unprivileged user: as root, the test drops to `nobody` with util-linux's setpriv.
    const QString setpriv = QStandardPaths::findExecutable(u"setpriv"_s);
    if (::geteuid() != 0 || setpriv.isEmpty()) {
      QSKIP("needs root and setpriv to run `fathom launch` as an unprivileged user");
    }
    QTemporaryDir workspace;  // where `nobody` could write the run, were it started
    QVERIFY(QFile::setPermissions(workspace.path(), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner |
                                                        QFile::ReadOther | QFile::WriteOther | QFile::ExeOther));
    QProcess p;
    QProcessEnvironment env = fathom::test::launcherFreeEnvironment();
    env.insert(u"FATHOM_WORKSPACE"_s, workspace.filePath(u"fathom.sqlite"_s));
    p.setProcessEnvironment(env);
    p.setWorkingDirectory(u"/"_s);
    // /bin/true as the program: a launcher that does not check first forks until RLIMIT_NPROC stops it.
    p.start(setpriv, {u"--reuid=65534"_s, u"--regid=65534"_s, u"--clear-groups"_s, u"bash"_s, u"-c"_s,
                      u"ulimit -u 20 && exec \"$@\""_s, u"bash"_s, fathom::test::fathomExecutable(), u"launch"_s,
                      u"--num_processes"_s, u"30"_s, u"/bin/true"_s});
    QVERIFY(p.waitForFinished(30'000));
    const QByteArray err = p.readAllStandardError();
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    QVERIFY2(p.exitCode() == 2, err.constData());
    QVERIFY2(err.contains("--num_processes 30 needs 31 processes (the workers and the launcher's guardian), but "
                          "RLIMIT_NPROC (`ulimit -u`) is 20 and this user already runs "),
             err.constData());
    QVERIFY2(QDir(workspace.path()).isEmpty(), "the run was recorded");
  }

  void descriptorLimitIsCheckedBeforeAnyStarts() {
    // Under `ulimit -n 128`, 60 workers (3 descriptors each, and 64 for the launcher) do not fit.
    const QString script = m_root.filePath(u"limited.sh"_s);
    QFile f(script);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("#!/bin/sh\nulimit -n 128 && exec \"$@\"\n");
    f.close();
    QVERIFY(f.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
    const QString pids = m_root.filePath(u"fd_limit/pids"_s);
    QVERIFY(QDir().mkpath(pids));
    QProcess p;
    p.setProcessEnvironment(fathom::test::launcherFreeEnvironment());
    p.start(script, {fathom::test::fathomExecutable(), u"launch"_s, u"--num_processes"_s, u"60"_s, m_script, pids,
                     u"kill-launcher"_s});
    QVERIFY(p.waitForFinished(30'000));
    const QByteArray err = p.readAllStandardError();
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    QCOMPARE(p.exitCode(), 2);
    QVERIFY2(err.contains("--num_processes 60 needs about 244 file descriptors"), err.constData());
    QVERIFY2(err.contains("RLIMIT_NOFILE (`ulimit -n`) is 128"), err.constData());
    QVERIFY2(QDir(pids).isEmpty(), "workers were started");
  }
};

QTEST_GUILESS_MAIN(TestLaunchHygiene)
#include "tst_launch_hygiene.moc"
