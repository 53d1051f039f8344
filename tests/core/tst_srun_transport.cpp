// SPDX-License-Identifier: Apache-2.0
// SrunTransport, the way `fathom launch --slurm` reaches an allocation's nodes, and what it asks SLURM (SlurmClient,
// SlurmAllocation). Without a cluster: the srun command line, the errors outside an allocation or without srun.
// On the private cluster of tests/support/slurm_cluster.h, inside an allocation held by a job: an agent started
// through command() gets its stdin from the launcher's pipe (lines, then end of file, which ends it), its stdout
// and stderr come back; killing srun, even with SIGKILL, stops the agent and its child on the node; a program that
// cannot be executed is described; nodes and addresses come from scontrol and sinfo.
#include "env_guard.h"
#include "error_helpers.h"
#include "process_survivors.h"
#include "slurm_cluster.h"

#include <fathom/common/error.h>
#include <fathom/launch/command_output.h>
#include <fathom/launch/slurm_allocation.h>
#include <fathom/launch/srun_transport.h>

#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

using namespace Qt::StringLiterals;
using namespace fathom::launch;
using fathom::test::contains;
using fathom::test::EnvGuard;
using fathom::test::messageOf;

namespace {

/// The agent stand-in: reports where it runs, records its pid and a child's, echoes stdin lines until end of file.
constexpr auto kAgent = R"(#!/bin/bash
dir=$1
echo "started on $SLURMD_NODENAME"
echo "to stderr" >&2
sleep 300 &
echo $! > "$dir/child.$SLURMD_NODENAME"
echo $$ > "$dir/agent.$SLURMD_NODENAME"
while read -r line; do echo "got $line"; done
echo "end of input"
kill $!
)";

QStringList toQt(const std::vector<std::string>& words) {
  QStringList list;
  for (const std::string& w : words) {
    list << QString::fromStdString(w);
  }
  return list;
}

}  // namespace

class TestSrunTransport : public QObject {
  Q_OBJECT

private:
  QTemporaryDir m_root;
  fathom::test::SlurmCluster m_cluster;
  QString m_skip;  ///< why the cluster tests skip (empty: they run)
  QString m_job;   ///< the job holding the allocation
  QString m_agent;

  /// Starts command()'s argv for `node` as the launcher would, inside the allocation.
  void startAgent(QProcess& p, const std::string& node, const QString& program) const {
    SrunTransport transport;
    transport.prepare();
    AgentRequest request;
    request.host = node;
    request.agentArgv = {program.toStdString(), m_root.path().toStdString()};
    const QStringList argv = toQt(transport.command(request));
    QProcessEnvironment env = m_cluster.environment();
    env.insert(u"SLURM_JOB_ID"_s, m_job);
    p.setProcessEnvironment(env);
    p.start(argv.front(), argv.mid(1));
  }

private slots:
  void initTestCase() {
    QVERIFY(m_root.isValid());
    m_skip = fathom::test::SlurmCluster::unavailable();
    if (!m_skip.isEmpty()) {
      return;  // the tests that need no cluster still run
    }
    const QString error = m_cluster.start(m_root.filePath(u"slurm"_s));
    QVERIFY2(error.isEmpty(), qPrintable(error));
    // An allocation of both nodes, held by a job that sleeps; steps join it through SLURM_JOB_ID.
    QVERIFY(m_cluster.run(u"sbatch"_s,
                          {u"--parsable"_s, u"-N2"_s, u"-o"_s, u"/dev/null"_s, u"--wrap"_s, u"sleep 300"_s}, &m_job));
    m_job = m_job.trimmed();
    QElapsedTimer timer;
    timer.start();
    QString state;
    while (state.trimmed() != u"RUNNING"_s && timer.elapsed() < 20'000) {
      m_cluster.run(u"squeue"_s, {u"-h"_s, u"-j"_s, m_job, u"-o"_s, u"%T"_s}, &state);
      QTest::qWait(50);
    }
    QCOMPARE(state.trimmed(), u"RUNNING"_s);
    m_agent = m_root.filePath(u"agent.sh"_s);
    QVERIFY(fathom::test::writeExecutable(m_agent, kAgent).isEmpty());
  }

  void commandIsOneStepOnTheNode() {
    SrunTransport transport({.srun = "/opt/slurm/bin/srun"});
    AgentRequest request;
    request.host = "gpu07";
    request.agentArgv = {"/opt/fathom", "agent", "--spec", "{\"a\": \"b c\"}"};
    const std::vector<std::string> argv = transport.command(request);
    const std::vector<std::string> expected{"/opt/slurm/bin/srun",
                                            "--nodes=1",
                                            "--ntasks=1",
                                            "--nodelist=gpu07",
                                            "--whole",
                                            "--overlap",
                                            "--kill-on-bad-exit=1",
                                            "--unbuffered",
                                            "--mpi=none",
                                            "--cpu-bind=none",
                                            "--job-name=fathom-agent",
                                            "--",
                                            "/opt/fathom",
                                            "agent",
                                            "--spec",
                                            "{\"a\": \"b c\"}"};
    QCOMPARE(argv, expected);
    QCOMPARE(transport.name(), std::string("srun"));
  }

  void errorsWithoutSrunOrAllocation() {
    SrunTransport missing({.srun = "no-such-srun"});
    const std::string why = messageOf([&] { missing.prepare(); });
    QVERIFY2(contains(why, "--slurm needs SLURM's srun") && contains(why, "no-such-srun"), why.c_str());
    const EnvGuard job("SLURM_JOB_ID", nullptr);
    const std::string outside = messageOf([] { SlurmAllocation::current(SlurmClient()); });
    QVERIFY2(contains(outside, "not inside a SLURM allocation") && contains(outside, "--nodes"), outside.c_str());
    const EnvGuard job2("SLURM_JOB_ID", "12");
    const EnvGuard list("SLURM_JOB_NODELIST", nullptr);
    const std::string noList = messageOf([] { SlurmAllocation::current(SlurmClient()); });
    QVERIFY2(contains(noList, "SLURM_JOB_NODELIST is not set"), noList.c_str());
  }

  void commandOutputCapturesBothStreams() {
    const CommandOutput r = CommandOutput::run({"sh", "-c", "echo one; echo; echo two; echo oops >&2; exit 3"});
    QVERIFY(!r.ok());
    QCOMPARE(r.status.value, 3);
    QCOMPARE(r.lines(), (std::vector<std::string>{"one", "two"}));
    QCOMPARE(r.errorLine(), std::string("oops"));
    const CommandOutput slow = CommandOutput::run({"sleep", "30"}, std::chrono::milliseconds(200));
    QVERIFY(slow.timedOut && !slow.ok());
  }

  void allocationAndAddressesFromSlurm() {
    if (!m_skip.isEmpty()) {
      QSKIP(qPrintable(m_skip));
    }
    const EnvGuard conf("SLURM_CONF", m_cluster.configFile().toLocal8Bit().constData());
    const EnvGuard job("SLURM_JOB_ID", m_job.toLocal8Bit().constData());
    const EnvGuard list("SLURM_JOB_NODELIST", "n[1-2]");
    const SlurmAllocation allocation = SlurmAllocation::current(SlurmClient());
    QCOMPARE(allocation.jobId, m_job.toStdString());
    QCOMPARE(allocation.nodes, (std::vector<std::string>{"n1", "n2"}));
    QCOMPARE(SrunTransport().resolveAddress("n2"), std::string("127.0.0.1"));  // the fixture's NodeAddr
    QCOMPARE(SlurmClient().nodeAddress("nosuchnode"), std::string("nosuchnode"));
  }

  void agentReadsStdinUntilEndOfFile() {
    if (!m_skip.isEmpty()) {
      QSKIP(qPrintable(m_skip));
    }
    QProcess srun;
    startAgent(srun, "n2", m_agent);
    QVERIFY(srun.waitForStarted());
    srun.write("hello there\n");
    QVERIFY(srun.waitForReadyRead(20'000));
    QVERIFY(fathom::test::waitForFileCount(m_root.path(), u"agent.n2"_s, 1));
    srun.closeWriteChannel();  // the launcher stopping the agent
    QVERIFY(srun.waitForFinished(20'000));
    QCOMPARE(srun.exitCode(), 0);
    const QByteArray out = srun.readAllStandardOutput();
    QVERIFY2(out.contains("started on n2\n") && out.contains("got hello there\n") && out.contains("end of input\n"),
             out.constData());
    QVERIFY(srun.readAllStandardError().contains("to stderr"));
    const QList<pid_t> pids = fathom::test::pidsInFiles(m_root.path(), u"*.n2"_s);
    QCOMPARE(pids.size(), 2);
    const QString alive = fathom::test::survivingProcesses(pids, 10'000);
    QVERIFY2(alive.isEmpty(), qPrintable(alive));
  }

  void killingSrunStopsTheStep() {
    if (!m_skip.isEmpty()) {
      QSKIP(qPrintable(m_skip));
    }
    QProcess srun;
    startAgent(srun, "n1", m_agent);
    QVERIFY(fathom::test::waitForFileCount(m_root.path(), u"agent.n1"_s, 1));
    QVERIFY(fathom::test::waitForFileCount(m_root.path(), u"child.n1"_s, 1));
    const QList<pid_t> pids = fathom::test::pidsInFiles(m_root.path(), u"*.n1"_s);
    QCOMPARE(pids.size(), 2);
    QElapsedTimer timer;
    timer.start();
    ::kill(static_cast<pid_t>(srun.processId()), SIGKILL);  // the launcher giving up on it, or dying
    QVERIFY(srun.waitForFinished(10'000));
    const QString alive = fathom::test::survivingProcesses(pids, 10'000);
    QVERIFY2(alive.isEmpty(), qPrintable(u"left on the node after srun was killed: "_s + alive));
    qInfo("srun killed: the agent and its child gone after %lld ms", timer.elapsed());
  }

  void unrunnableAgentIsDescribed() {
    if (!m_skip.isEmpty()) {
      QSKIP(qPrintable(m_skip));
    }
    QProcess srun;
    startAgent(srun, "n2", m_root.filePath(u"no-such-fathom"_s));
    srun.closeWriteChannel();
    QVERIFY(srun.waitForFinished(20'000));
    const ExitStatus status{srun.exitStatus() != QProcess::NormalExit, srun.exitCode()};
    const std::string lines = srun.readAllStandardError().trimmed().toStdString();
    const std::string why = SrunTransport().describeUnreached("n2", status, lines);
    QVERIFY2(contains(why, "node n2") && contains(why, "could not be executed") && contains(why, "no-such-fathom"),
             (why + " / exit " + std::to_string(srun.exitCode())).c_str());
  }
};

QTEST_GUILESS_MAIN(TestSrunTransport)
#include "tst_srun_transport.moc"
