// SPDX-License-Identifier: Apache-2.0
// `fathom launch --hosts h1,h2` over real OpenSSH: a private sshd (tests/support/ssh_server.h) on 127.0.0.1 and
// 127.0.0.2 plays two hosts; each runs `fathom agent`, which runs its host's workers.
// - a 2-host x 2-process DDP `fathom train` gives losses bit-identical to the same 4 processes launched locally;
// - arguments with spaces, quotes and shell metacharacters reach every worker unchanged, and host 2's workers really
//   ran behind 127.0.0.2;
// - killing host 2's agent, or a worker failing on host 2, stops every process on both hosts (workers, their
//   children, the agents) within 10 s, and the launcher names the host, rank and exit code;
// - an unreachable host, a refused key and a bad host name each give their clear error.
#include "cli_runner.h"
#include "multinode_checks.h"
#include "process_survivors.h"
#include "ssh_server.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

using namespace Qt::StringLiterals;
using fathom::test::pidsInFiles;
using fathom::test::splitNul;
using fathom::test::survivingProcesses;

class TestLaunchSsh : public QObject {
  Q_OBJECT

private:
  QTemporaryDir m_root;
  fathom::test::SshServer m_sshd;
  QString m_script;

  QStringList sshFlags(const QString& hosts) const {
    return {u"--hosts"_s,
            hosts,
            u"--ssh_config"_s,
            m_sshd.configFile(),
            u"--remote_fathom"_s,
            fathom::test::fathomExecutable(),
            u"--main_process_port"_s,
            QString::number(fathom::test::SshServer::freePort())};
  }

  QString dir(const QString& name) const {
    const QString d = m_root.filePath(name);
    QDir().mkpath(d);
    return d;
  }

private slots:
  void initTestCase() {
    QVERIFY(m_root.isValid());
    fathom::test::useWorkspaceIn(m_root);
    const QString error = m_sshd.start(dir(u"sshd"_s));
    QVERIFY2(error.isEmpty(), qPrintable(error));
    m_script = m_root.filePath(u"worker.sh"_s);
    const QString written = fathom::test::writeExecutable(m_script, fathom::test::kMultinodeWorker);
    QVERIFY2(written.isEmpty(), qPrintable(written));
  }

  void argumentsReachWorkersUnchanged() {
    const QString out = dir(u"args"_s);
    const fathom::test::CliRun r = fathom::test::runFathom(
        QStringList{u"launch"_s} + sshFlags(u"h1,h2"_s) +
            QStringList{u"--num_processes"_s, u"4"_s, m_script, out, u"args"_s} + fathom::test::nastyArguments(),
        fathom::test::launcherFreeEnvironment(), {}, 60'000);
    QVERIFY2(r.exitCode == 0, (r.out + r.err + m_sshd.log()).constData());
    for (int rank = 0; rank < 4; ++rank) {
      QFile args(out + u"/args."_s + QString::number(rank));
      QVERIFY2(args.open(QIODevice::ReadOnly), qPrintable(args.fileName()));
      QCOMPARE(splitNul(args.readAll()), fathom::test::nastyArguments());
      QFile ssh(out + u"/ssh."_s + QString::number(rank));
      QVERIFY(ssh.open(QIODevice::ReadOnly));
      // SSH_CONNECTION is "client port server port": ranks 0, 1 ran behind h1 (127.0.0.1), ranks 2, 3 behind h2.
      const QList<QByteArray> connection = ssh.readAll().trimmed().split(' ');
      QCOMPARE(connection.size(), 4);
      QCOMPARE(connection[2], rank < 2 ? QByteArray("127.0.0.1") : QByteArray("127.0.0.2"));
    }
    QVERIFY2(!QFile::exists(out + u"/pwned"_s), "an argument ran a command on a host");
  }

  /// The Done-when check of issue 21: 2 hosts x 2 processes over ssh == 4 processes on one machine, bit for bit.
  void ddpOverSshMatchesLocalLaunch() {
    const QString out = dir(u"ddp"_s);
    const QStringList train = fathom::test::ddpTrainCommand();
    const QStringList common{u"launch"_s, u"--num_processes"_s, u"4"_s, u"--cpu"_s, u"--quiet"_s};
    const fathom::test::CliRun local = fathom::test::runFathom(common + train + QStringList{out + u"/local.json"_s},
                                                               fathom::test::launcherFreeEnvironment(), {}, 120'000);
    QVERIFY2(local.exitCode == 0, (local.out + local.err).constData());
    const fathom::test::CliRun ssh =
        fathom::test::runFathom(common + sshFlags(u"h1,h2"_s) + train + QStringList{out + u"/ssh.json"_s},
                                fathom::test::launcherFreeEnvironment(), {}, 120'000);
    QVERIFY2(ssh.exitCode == 0, (ssh.out + ssh.err + m_sshd.log()).constData());
    const QString difference =
        fathom::test::lossDifference(fathom::test::stepLosses(out + u"/ssh.json"_s),
                                     fathom::test::stepLosses(out + u"/local.json"_s), 4, u"over ssh"_s);
    QVERIFY2(difference.isEmpty(), qPrintable(difference));
  }

  void failureStopsBothHosts_data() {
    QTest::addColumn<QString>("ending");
    QTest::newRow("host 2's agent killed") << u"kill-agent"_s;
    QTest::newRow("a worker on host 2 exits 7") << u"fail"_s;
    QTest::newRow("SIGTERM to the launcher") << u"terminate"_s;
  }

  /// Every recorded process (workers, their `sleep` children, both agents) is gone within 10 s, and the launcher
  /// says which host (and rank) failed.
  void failureStopsBothHosts() {
    QFETCH(QString, ending);
    const bool killAgent = ending == u"kill-agent"_s;
    const QString out = dir(ending);
    QProcess launcher;
    launcher.setProcessEnvironment(fathom::test::launcherFreeEnvironment());
    launcher.start(fathom::test::fathomExecutable(),
                   QStringList{u"launch"_s} + sshFlags(u"h1,h2"_s) +
                       QStringList{u"--num_processes"_s, u"4"_s, u"--terminate_grace_period"_s, u"2"_s, m_script, out,
                                   ending == u"fail"_s ? u"fail"_s : u"wait"_s});
    QVERIFY(launcher.waitForStarted());
    const bool up = fathom::test::waitForFileCount(out, u"pid.*"_s, 4, 30'000);
    const QList<pid_t> pids =
        pidsInFiles(out, u"pid.*"_s) + pidsInFiles(out, u"child.*"_s) + pidsInFiles(out, u"agent.*"_s);
    QElapsedTimer timer;
    timer.start();
    if (killAgent && up) {
      const QList<pid_t> agent = pidsInFiles(out, u"agent.2"_s);
      QCOMPARE(agent.size(), 1);
      QCOMPARE(::kill(agent.front(), SIGKILL), 0);
    } else if (ending == u"terminate"_s && up) {
      QCOMPARE(::kill(static_cast<pid_t>(launcher.processId()), SIGTERM), 0);
    }
    const bool ended = launcher.waitForFinished(10'000);
    const qint64 elapsed = timer.elapsed();
    const QString alive = survivingProcesses(pids, 10'000 - static_cast<int>(std::min<qint64>(elapsed, 9'000)));
    fathom::test::killSurvivors(pids);
    if (!ended) {
      launcher.kill();
      launcher.waitForFinished();
    }
    const QByteArray err = launcher.readAllStandardError();
    QVERIFY2(up, err.constData());
    QCOMPARE(pids.size(), 12);
    QVERIFY2(ended, qPrintable(u"the launcher still ran 10 s later: "_s + QString::fromUtf8(err)));
    QVERIFY2(alive.isEmpty(), qPrintable(u"still running: "_s + alive + u"\n"_s + QString::fromUtf8(err)));
    qInfo("everything stopped %lld ms after the failure", static_cast<long long>(elapsed));
    if (killAgent) {
      QVERIFY(launcher.exitCode() != 0);
      QVERIFY2(err.contains("failed on host h2 (machine 1)"), err.constData());
    } else if (ending == u"terminate"_s) {
      QCOMPARE(launcher.exitCode(), 128 + SIGTERM);
      QVERIFY2(err.contains("fathom launch: SIGTERM: stopping every host"), err.constData());
    } else {
      QCOMPARE(launcher.exitCode(), 7);
      QVERIFY2(err.contains("failed on host h2 (machine 1), rank 3: rank 3 ended with exit code 7 (exit code 7)"),
               err.constData());
      QVERIFY2(err.contains("[h2] [rank3]: rank 3 gives up"), err.constData());
    }
  }

  void sshErrorsNameTheHost_data() {
    QTest::addColumn<QString>("hosts");
    QTest::addColumn<QString>("expected");
    QTest::newRow("unreachable host") << u"h1,hdown"_s << u"ssh could not reach hdown or log in (ssh exit 255"_s;
    QTest::newRow("refused key") << u"hrefused"_s << u"ssh could not reach hrefused or log in (ssh exit 255"_s;
  }

  void sshErrorsNameTheHost() {
    QFETCH(QString, hosts);
    QFETCH(QString, expected);
    const QString out = dir(u"errors"_s);
    QElapsedTimer timer;
    timer.start();
    const fathom::test::CliRun r =
        fathom::test::runFathom(QStringList{u"launch"_s} + sshFlags(hosts) +
                                    QStringList{u"--ssh_connect_timeout"_s, u"5"_s, u"--num_processes"_s,
                                                QString::number(hosts.count(u',') + 1), m_script, out, u"wait"_s},
                                fathom::test::launcherFreeEnvironment(), {}, 30'000);
    QCOMPARE(r.exitCode, 255);
    QVERIFY2(r.err.contains(expected.toUtf8()), r.err.constData());
    QVERIFY2(timer.elapsed() < 15'000, "not within the connect timeout");
    if (hosts.startsWith(u"hrefused"_s)) {
      QVERIFY2(r.err.contains("Permission denied (publickey)"), r.err.constData());
    } else {
      QVERIFY2(r.err.contains("Connection refused"), r.err.constData());
    }
  }

  void badHostNameRefusedBeforeSsh() {
    const fathom::test::CliRun r = fathom::test::runFathom(
        {u"launch"_s, u"--hosts"_s, u"h1,-oProxyCommand=touch pwned"_s, u"--num_processes"_s, u"2"_s, u"true"_s},
        fathom::test::launcherFreeEnvironment());
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("--hosts: host '-oProxyCommand=touch pwned' is not a host name"), r.err.constData());
  }
};

QTEST_GUILESS_MAIN(TestLaunchSsh)
#include "tst_launch_ssh.moc"
