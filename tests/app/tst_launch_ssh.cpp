// SPDX-License-Identifier: Apache-2.0
// `fathom launch --hosts h1,h2` over real OpenSSH: a private sshd (tests/support/ssh_server.h) on 127.0.0.1 and
// 127.0.0.2 plays two hosts; each runs `fathom agent`, which runs its host's workers.
// - a 2-host x 2-process DDP `fathom train` gives losses bit-identical to the same 4 processes launched locally;
// - arguments with spaces, quotes and shell metacharacters reach every worker unchanged, and host 2's workers really
//   ran behind 127.0.0.2;
//   and its 4 ranks (with their hosts), metrics and exit codes are in the launcher's workspace, sent live through
//   each host's ssh connection (a forwarded Unix socket);
// - killing host 2's agent, cutting host 2's SSH connection, or a worker failing on host 2, stops every process on
//   both hosts (workers, their children, the agents) within 10 s, and the launcher names the host, rank and exit code;
// - an unreachable host, a refused key, another Fathom version on a host, the rendezvous port in use and a host that
//   never joins each give their clear error within their timeout, and a bad host name is refused before ssh runs.
#include "cli_runner.h"
#include "multinode_checks.h"
#include "multinode_workspace.h"
#include "process_survivors.h"
#include "ssh_server.h"

#include <fathom/store/workspace.h>

#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace Qt::StringLiterals;
using fathom::test::pidsInFiles;
using fathom::test::splitNul;
using fathom::test::survivingProcesses;

namespace {

/// `--remote_fathom` stand-ins that run the real `fathom agent` on host 1 and, on host 2 (reached at 127.0.0.2),
/// either hand it a spec that claims another launcher version, or never start it (waiting for the connection to
/// close, as a host stuck before its agent starts would).
constexpr auto kOtherVersionOnHost2 = R"sh(#!/bin/bash
case "$SSH_CONNECTION" in
  *" 127.0.0.2 "*) exec "@FATHOM@" "$1" "$2" "$(printf '%s' "$3" | sed 's/"fathom_version":"/&0.0.9-/')" ;;
esac
exec "@FATHOM@" "$@"
)sh";
constexpr auto kHost2NeverJoins = R"sh(#!/bin/bash
case "$SSH_CONNECTION" in
  *" 127.0.0.2 "*) head -c 1 > /dev/null; exit 0 ;;
esac
exec "@FATHOM@" "$@"
)sh";

}  // namespace

class TestLaunchSsh : public QObject {
  Q_OBJECT

private:
  QTemporaryDir m_root;
  fathom::test::SshServer m_sshd;
  QString m_script;
  QDateTime m_started;

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
  void cleanupTestCase() {
    // An agent killed outright (or refused for another version) cannot remove its telemetry tunnel's socket, which
    // sshd created in /tmp (docs/launch.md): remove those of this test's runs.
    for (const QFileInfo& socket :
         QDir(u"/tmp"_s).entryInfoList({u"fathom-telemetry-*.sock"_s}, QDir::System | QDir::Hidden)) {
      if (socket.lastModified() >= m_started) {
        QFile::remove(socket.filePath());
      }
    }
  }

  void initTestCase() {
    m_started = QDateTime::currentDateTime().addSecs(-1);
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
    const QString localWs = out + u"/local.sqlite"_s;
    const QString sshWs = out + u"/ssh.sqlite"_s;
    const fathom::test::CliRun local = fathom::test::runFathom(common + QStringList{u"--workspace"_s, localWs} + train +
                                                                   QStringList{out + u"/local.json"_s},
                                                               fathom::test::launcherFreeEnvironment(), {}, 120'000);
    QVERIFY2(local.exitCode == 0, (local.out + local.err).constData());
    const fathom::test::CliRun ssh =
        fathom::test::runFathom(common + QStringList{u"--workspace"_s, sshWs} + sshFlags(u"h1,h2"_s) + train +
                                    QStringList{out + u"/ssh.json"_s},
                                fathom::test::launcherFreeEnvironment(), {}, 120'000);
    QVERIFY2(ssh.exitCode == 0, (ssh.out + ssh.err + m_sshd.log()).constData());
    // One run, one workspace: the launcher's, with every host's ranks and their metrics, as the local run has them.
    const QString runDifference = fathom::test::multiNodeRunDifference(sshWs, localWs, {"h1", "h2"}, 2);
    QVERIFY2(runDifference.isEmpty(), qPrintable(runDifference));
    // The tunnels' sockets are gone with the agents.
    QVERIFY(QDir(u"/tmp"_s).entryList({u"fathom-telemetry-*.sock"_s}, QDir::System).isEmpty());
    const QString difference =
        fathom::test::lossDifference(fathom::test::stepLosses(out + u"/ssh.json"_s),
                                     fathom::test::stepLosses(out + u"/local.json"_s), 4, u"over ssh"_s);
    QVERIFY2(difference.isEmpty(), qPrintable(difference));
  }

  /// --same_network: the workers reach the collector over TCP at the given address (no tunnel), and their metrics
  /// land in the launcher's workspace all the same.
  void sameNetworkSendsStraightToTheCollector() {
    const QString out = dir(u"same-network"_s);
    const QString ws = out + u"/runs.sqlite"_s;
    const QString script = u"echo \"$FATHOM_TELEMETRY_ENDPOINT\" > \"$0/endpoint.$RANK\"; shift; exec \"$@\""_s;
    const fathom::test::CliRun r = fathom::test::runFathom(
        QStringList{u"launch"_s, u"--num_processes"_s, u"2"_s, u"--cpu"_s, u"--quiet"_s, u"--workspace"_s, ws,
                    u"--same_network"_s, u"127.0.0.1"_s} +
            sshFlags(u"h1,h2"_s) +
            QStringList{u"sh"_s, u"-c"_s, script, out, u"ignored"_s, fathom::test::fathomExecutable(), u"train"_s,
                        u"--model"_s, u"mlp"_s, u"--hidden"_s, u"8"_s, u"--layers"_s, u"1"_s, u"--batch_size"_s, u"2"_s,
                        u"--steps"_s, u"2"_s, u"--log_every"_s, u"1"_s},
        fathom::test::launcherFreeEnvironment(), {}, 60'000);
    QVERIFY2(r.exitCode == 0, (r.out + r.err + m_sshd.log()).constData());
    for (int rank = 0; rank < 2; ++rank) {
      QFile endpoint(out + u"/endpoint."_s + QString::number(rank));
      QVERIFY(endpoint.open(QIODevice::ReadOnly));
      QVERIFY2(endpoint.readAll().trimmed().startsWith("127.0.0.1:"), "not a direct TCP endpoint");
    }
    fathom::store::Workspace runs(ws.toStdString(), {.create = false});
    const auto run = runs.listRuns().front().id;
    for (int rank = 0; rank < 2; ++rank) {
      QCOMPARE(runs.metricSeries(run, "loss", rank).size(), std::size_t{2});
    }
  }

  /// A configuration that names its hosts (`fathom.launcher: ssh`, `fathom.hosts`, `fathom.ssh_config`) launches
  /// over ssh with no host flag: what the Studio's wizard saves and launches.
  void configurationNamesTheHosts() {
    const QString out = dir(u"config-hosts"_s);
    const QString config = out + u"/run.yaml"_s;
    QFile file(config);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(u"compute_environment: LOCAL_MACHINE\ndistributed_type: MULTI_CPU\nnum_machines: 2\nnum_processes: 4\n"
               "machine_rank: 0\nmain_process_ip: h1\nmain_process_port: %1\nuse_cpu: true\nfathom:\n  launcher: ssh\n"
               "  hosts: [h1, h2]\n  ssh_config: %2\n"_s.arg(sshFlags(u"h1"_s).last(), m_sshd.configFile())
                   .toUtf8());
    file.close();
    const fathom::test::CliRun r =
        fathom::test::runFathom({u"launch"_s, u"--config_file"_s, config, u"--remote_fathom"_s,
                                 fathom::test::fathomExecutable(), m_script, out, u"args"_s, u"x"_s},
                                fathom::test::launcherFreeEnvironment(), {}, 60'000);
    QVERIFY2(r.exitCode == 0, (r.out + r.err + m_sshd.log()).constData());
    for (int rank = 0; rank < 4; ++rank) {
      QFile ssh(out + u"/ssh."_s + QString::number(rank));
      QVERIFY(ssh.open(QIODevice::ReadOnly));
      QCOMPARE(ssh.readAll().trimmed().split(' ').value(2),
               rank < 2 ? QByteArray("127.0.0.1") : QByteArray("127.0.0.2"));
    }
  }

  void failureStopsBothHosts_data() {
    QTest::addColumn<QString>("ending");
    QTest::newRow("host 2's agent killed") << u"kill-agent"_s;
    QTest::newRow("host 2's SSH connection cut") << u"cut-ssh"_s;
    QTest::newRow("a worker on host 2 exits 7") << u"fail"_s;
    QTest::newRow("SIGTERM to the launcher") << u"terminate"_s;
  }

  /// Every recorded process (workers, their `sleep` children, both agents) is gone within 10 s, and the launcher
  /// says which host (and rank) failed.
  void failureStopsBothHosts() {
    QFETCH(QString, ending);
    const bool killAgent = ending == u"kill-agent"_s;
    const bool cutSsh = ending == u"cut-ssh"_s;
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
    if ((killAgent || cutSsh) && up) {
      const QList<pid_t> agent = pidsInFiles(out, u"agent.2"_s);
      QCOMPARE(agent.size(), 1);
      // The agent's parent is host 2's sshd session (the login shell exec'd the agent): killing it cuts the
      // connection from the host's side, as a lost network would.
      const pid_t target = cutSsh ? fathom::test::parentPid(agent.front()) : agent.front();
      QVERIFY(target > 1);
      QCOMPARE(::kill(target, SIGKILL), 0);
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
    if (killAgent || cutSsh) {
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

  void refusalsNameTheHost_data() {
    QTest::addColumn<QString>("mode");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("expected");
    QTest::newRow("another version on host 2")
        << u"version"_s << 3
        << u"failed on host h2 (machine 1): this host runs Fathom @V@, the launcher runs 0.0.9-@V@: install the "
           u"same version on every host"_s;
    QTest::newRow("rendezvous port in use")
        << u"port"_s << 3 << u"failed on host h1 (machine 0): port @P@ (the rendezvous of rank 0) cannot be used"_s;
    QTest::newRow("rendezvous address unreachable")
        << u"unreachable"_s << 3 << u"cannot reach the rendezvous at nosuch.invalid:@P@: it does not resolve"_s;
    QTest::newRow("host 2 never joins")
        << u"never-joins"_s << 124
        << u"the rendezvous timed out after 3 s (--rdzv_timeout): never joined: h2 (machine 1, ranks 2-3)"_s;
  }

  /// Each refusal or timeout ends the launch with its exit code and message, and nothing of it keeps running.
  void refusalsNameTheHost() {
    QFETCH(QString, mode);
    QFETCH(int, exitCode);
    QFETCH(QString, expected);
    const QString out = dir(u"refusal-"_s + mode);
    QStringList flags = sshFlags(u"h1,h2"_s);
    int port = flags.last().toInt();
    int blocker = -1;
    if (mode == u"version"_s || mode == u"never-joins"_s) {
      const QString script = out + u"/remote-fathom.sh"_s;
      QByteArray text = mode == u"version"_s ? kOtherVersionOnHost2 : kHost2NeverJoins;
      text.replace("@FATHOM@", fathom::test::fathomExecutable().toUtf8());
      QCOMPARE(fathom::test::writeExecutable(script, text), QString());
      flags[flags.indexOf(u"--remote_fathom"_s) + 1] = script;
    } else if (mode == u"unreachable"_s) {
      flags << u"--main_process_ip"_s << u"nosuch.invalid"_s;  // RFC 2606: never resolves
    } else {
      // Something else listens on the rendezvous port on every address of host 1.
      blocker = ::socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in addr{};
      addr.sin_family = AF_INET;
      addr.sin_port = htons(static_cast<std::uint16_t>(port));
      QVERIFY(blocker >= 0);
      QCOMPARE(::bind(blocker, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
      QCOMPARE(::listen(blocker, 1), 0);
    }
    QElapsedTimer timer;
    timer.start();
    // A refusal must come before the rendezvous gives up: 20 s leaves room for a slow build (the sanitizer build's
    // agents take seconds to start over SSH) while a release build refuses in well under one. The host that never
    // joins is what the timeout is for: 3 s.
    const QString rdzvTimeout = mode == u"never-joins"_s ? u"3"_s : u"20"_s;
    const fathom::test::CliRun r = fathom::test::runFathom(
        QStringList{u"launch"_s} + flags +
            QStringList{u"--rdzv_timeout"_s, rdzvTimeout, u"--num_processes"_s, u"4"_s, m_script, out, u"wait"_s},
        fathom::test::launcherFreeEnvironment(), {}, 30'000);
    if (blocker >= 0) {
      ::close(blocker);
    }
    QCOMPARE(r.exitCode, exitCode);
    const QString message =
        QString(expected).replace(u"@V@"_s, QStringLiteral(FATHOM_VERSION)).replace(u"@P@"_s, QString::number(port));
    QVERIFY2(r.err.contains(message.toUtf8()), qPrintable(message + u"\n---\n"_s + QString::fromUtf8(r.err)));
    QVERIFY2(timer.elapsed() < 15'000, "not within the timeout");
    // Nothing started anywhere, or what started is gone (the rendezvous case starts host 1's workers).
    const QList<pid_t> pids =
        pidsInFiles(out, u"pid.*"_s) + pidsInFiles(out, u"child.*"_s) + pidsInFiles(out, u"agent.*"_s);
    const QString alive = survivingProcesses(pids, 5'000);
    fathom::test::killSurvivors(pids);
    QVERIFY2(alive.isEmpty(), qPrintable(u"still running: "_s + alive));
    // The refusing host started no worker (the other host's may have started before the launch was stopped); a
    // host that never joins started none, while the other's did.
    const bool host1Refused = mode == u"port"_s;
    for (int rank = 0; rank < 4; ++rank) {
      const bool onRefusingHost = mode == u"unreachable"_s || (host1Refused ? rank < 2 : rank >= 2);
      if (onRefusingHost) {
        QVERIFY2(!QFile::exists(out + u"/pid."_s + QString::number(rank)), qPrintable(u"rank %1 ran"_s.arg(rank)));
      } else if (mode == u"never-joins"_s) {
        QVERIFY2(QFile::exists(out + u"/pid."_s + QString::number(rank)), qPrintable(u"rank %1 never ran"_s.arg(rank)));
      }
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
