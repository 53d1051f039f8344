// SPDX-License-Identifier: Apache-2.0
// `fathom launch --slurm` on a real SLURM cluster: the private munged + slurmctld + two slurmd of
// tests/support/slurm_cluster.h (nodes n1 and n2, both this machine).
// - the SLURM flags are checked at the front door, each error naming the flag and value;
// - --dry_run prints the sbatch script: its #SBATCH lines, and a body whose words bash splits back into exactly
//   `fathom launch --slurm FLAGS PROGRAM ARGS` with arguments a shell would interpret; nothing is written;
// - a submitted job is followed to its end: arguments reach every worker unchanged on both nodes, the job's output
//   is streamed, and the job's exit code is the command's (0, and 7 when rank 3 fails);
// - a 4-process DDP `fathom train` on 2 nodes x 2, under salloc and submitted with --nodes 2, gives losses
//   bit-identical to the same 4 processes launched locally, and its 4 ranks (with their nodes) and metrics are in
//   the launcher's workspace, which records the SLURM job id;
// - `fathom launch --json --config_file F` with `fathom.launcher: slurm` submits and follows a job of num_machines
//   nodes with JSON lines only on stdout (the Studio's way);
// - scancel of a running job, and SIGTERM to the command following it, stop every process (workers, their
//   children, the agents) within 10 s.
#include "cli_runner.h"
#include "multinode_checks.h"
#include "multinode_workspace.h"
#include "process_survivors.h"
#include "slurm_cluster.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

using namespace Qt::StringLiterals;
using fathom::test::pidsInFiles;
using fathom::test::splitNul;
using fathom::test::survivingProcesses;

class TestLaunchSlurm : public QObject {
  Q_OBJECT

private:
  QTemporaryDir m_root;
  fathom::test::SlurmCluster m_cluster;
  QString m_skip;
  QString m_script;

  QString dir(const QString& name) const {
    const QString d = m_root.filePath(name);
    QDir().mkpath(d);
    return d;
  }

  /// The cluster's environment without a launcher's variables.
  QProcessEnvironment environment() const {
    QProcessEnvironment env = m_skip.isEmpty() ? m_cluster.environment() : QProcessEnvironment::systemEnvironment();
    const QProcessEnvironment clean = fathom::test::launcherFreeEnvironment();
    for (const QString& name : QProcessEnvironment::systemEnvironment().keys()) {
      if (!clean.contains(name)) {
        env.remove(name);  // ACCELERATE_*, RANK, WORLD_SIZE, ...
      }
    }
    return env;
  }

  /// `fathom launch --slurm --nodes 2` flags for a job whose run folder is `run`.
  static QStringList submitFlags(const QString& run) {
    return {u"--slurm"_s,
            u"--nodes"_s,
            u"2"_s,
            u"--num_processes"_s,
            u"4"_s,
            u"--log_dir"_s,
            run,
            u"--main_process_port"_s,
            QString::number(fathom::test::SlurmCluster::freePort()),
            u"--terminate_grace_period"_s,
            u"2"_s};
  }

  /// The SLURM job id the newest run of workspace `ws` records (`fathom runs list --json`).
  QString recordedJobId(const QString& ws) const {
    const fathom::test::CliRun r =
        fathom::test::runFathom({u"runs"_s, u"list"_s, u"--json"_s, u"--workspace"_s, ws}, environment());
    const QJsonArray runs = QJsonDocument::fromJson(r.out).array();
    return runs.isEmpty() ? QString::fromUtf8(r.out + r.err)
                          : runs.last().toObject().value(u"slurm_job_id"_s).toString();
  }

private slots:
  void initTestCase() {
    QVERIFY(m_root.isValid());
    fathom::test::useWorkspaceIn(m_root);
    m_script = m_root.filePath(u"worker.sh"_s);
    QVERIFY(fathom::test::writeExecutable(m_script, fathom::test::kMultinodeWorker).isEmpty());
    m_skip = fathom::test::SlurmCluster::unavailable();
    if (m_skip.isEmpty()) {
      const QString error = m_cluster.start(dir(u"slurm"_s));
      QVERIFY2(error.isEmpty(), qPrintable(error));
      qInfo("cluster idle %lld ms after start", m_cluster.startMs());
    }
  }

  void flagErrors_data() {
    QTest::addColumn<QStringList>("flags");
    QTest::addColumn<QString>("expected");
    QTest::newRow("--nodes without --slurm") << QStringList{u"--nodes"_s, u"2"_s} << u"--nodes needs --slurm"_s;
    QTest::newRow("--partition inside an allocation") << QStringList{u"--slurm"_s, u"--partition"_s, u"debug"_s}
                                                      << u"--partition is for submitting a job (--slurm --nodes N)"_s;
    QTest::newRow("outside an allocation without --nodes")
        << QStringList{u"--slurm"_s} << u"--slurm: not inside a SLURM allocation (SLURM_JOB_ID is not set)"_s;
    QTest::newRow("--nodes 0") << QStringList{u"--slurm"_s, u"--nodes"_s, u"0"_s}
                               << u"--nodes must be between 1 and 100000, got 0"_s;
    QTest::newRow("processes not a multiple of the nodes")
        << QStringList{u"--slurm"_s, u"--nodes"_s, u"2"_s, u"--num_processes"_s, u"3"_s}
        << u"--num_processes 3 does not divide evenly over --nodes 2: give a multiple of 2"_s;
    QTest::newRow("bad time") << QStringList{u"--slurm"_s, u"--nodes"_s, u"1"_s, u"--time"_s, u"1 hour"_s}
                              << u"--time '1 hour': expected SLURM's time limit"_s;
    QTest::newRow("partition with a shell word")
        << QStringList{u"--slurm"_s, u"--nodes"_s, u"1"_s, u"--partition"_s, u"gpu;rm"_s}
        << u"--partition 'gpu;rm': expected a partition name"_s;
    QTest::newRow("job name with a space") << QStringList{u"--slurm"_s, u"--nodes"_s, u"1"_s, u"--job_name"_s, u"a b"_s}
                                           << u"--job_name 'a b': expected a job name"_s;
    QTest::newRow("run folder with a space")
        << QStringList{u"--slurm"_s, u"--nodes"_s, u"1"_s, u"--log_dir"_s, u"/tmp/a b"_s}
        << u"the run folder '/tmp/a b' (--log_dir) must be an absolute path without whitespace"_s;
    QTest::newRow("with --hosts") << QStringList{u"--slurm"_s, u"--hosts"_s, u"h1,h2"_s}
                                  << u"give --slurm or --hosts / --hostfile, not both"_s;
    QTest::newRow("--json with --dry_run")
        << QStringList{u"--slurm"_s, u"--nodes"_s, u"1"_s, u"--json"_s, u"--dry_run"_s}
        << u"--dry_run prints the sbatch script, not JSON lines: drop --json"_s;
    QTest::newRow("--same_network not an IPv4 address")
        << QStringList{u"--slurm"_s, u"--same_network"_s, u"headnode"_s}
        << u"--same_network takes this machine's IPv4 address as the hosts reach it, got headnode"_s;
    QTest::newRow("with restarts") << QStringList{u"--slurm"_s, u"--nodes"_s, u"1"_s, u"--max_restarts"_s, u"1"_s}
                                   << u"--max_restarts is not supported with --slurm"_s;
  }
  void flagErrors() {
    QFETCH(QStringList, flags);
    QFETCH(QString, expected);
    // A submission is only printed (--dry_run): nothing reaches the cluster even when the flags are right.
    const bool submits = flags.contains(u"--slurm"_s) && flags.contains(u"--nodes"_s);
    const QStringList program = submits ? QStringList{u"--dry_run"_s, u"true"_s} : QStringList{u"true"_s};
    const fathom::test::CliRun r = fathom::test::runFathom(QStringList{u"launch"_s} + flags + program, environment());
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(expected.toUtf8()), r.err.constData());
  }

  /// The script as --dry_run prints it; bash splits its command back into exactly the words meant.
  void dryRunPrintsTheScript() {
    const QString cwd = dir(u"dry"_s);
    QProcess p;
    p.setProcessEnvironment(environment());
    p.setWorkingDirectory(cwd);
    const QStringList nasty = fathom::test::nastyArguments();
    p.start(fathom::test::fathomExecutable(),
            QStringList{u"launch"_s, u"--slurm"_s, u"--nodes=2"_s, u"--num_processes"_s, u"4"_s, u"--gpus-per-node"_s,
                        u"2"_s, u"--partition"_s, u"debug"_s, u"--time"_s, u"0-01:30"_s, u"--account"_s, u"proj_7"_s,
                        u"--job_name"_s, u"dry.run"_s, u"--dry_run"_s, u"--cpu"_s, m_script} +
                nasty);
    QVERIFY(p.waitForFinished(30'000));
    const QString script = QString::fromUtf8(p.readAllStandardOutput());
    QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
    const QStringList lines = script.split(u'\n');
    QCOMPARE(lines.front(), u"#!/bin/bash"_s);
    for (const QString& expected :
         {u"#SBATCH --job-name=dry.run"_s, u"#SBATCH --nodes=2"_s, u"#SBATCH --ntasks-per-node=1"_s,
          u"#SBATCH --gpus-per-node=2"_s, u"#SBATCH --partition=debug"_s, u"#SBATCH --time=0-01:30"_s,
          u"#SBATCH --account=proj_7"_s}) {
      QVERIFY2(lines.contains(expected), qPrintable(expected + u"\n"_s + script));
    }
    // The default run folder: ./fathom-slurm/JOBNAME-TIMESTAMP/, the output file in it.
    const QString output = lines.filter(u"#SBATCH --output="_s).value(0);
    QVERIFY2(output.startsWith(u"#SBATCH --output="_s + cwd + u"/fathom-slurm/dry.run-"_s) &&
                 output.endsWith(u"/slurm-%j.out"_s),
             qPrintable(output));
    QVERIFY2(lines.contains(u"cd '"_s + cwd + u"' || exit 1"_s), qPrintable(script));
    // bash reads the exec command's words (to the end: an argument holds a newline); printf shows them one per NUL.
    const qsizetype exec = script.indexOf(u"\nexec "_s);
    QVERIFY(exec > 0);
    QProcess bash;
    bash.setWorkingDirectory(cwd);
    bash.start(u"bash"_s, {u"-c"_s, u"printf '%s\\0' "_s + script.mid(exec + 6)});
    QVERIFY(bash.waitForFinished());
    const QStringList expected = QStringList{fathom::test::fathomExecutable(),
                                             u"launch"_s,
                                             u"--slurm"_s,
                                             u"--num_processes"_s,
                                             u"4"_s,
                                             u"--cpu"_s,
                                             m_script} +
                                 nasty;
    // The executable's path is /proc/self/exe's: compare canonically.
    QStringList words = splitNul(bash.readAllStandardOutput());
    QVERIFY(!words.isEmpty());
    QCOMPARE(QFileInfo(words.front()).canonicalFilePath(), QFileInfo(expected.front()).canonicalFilePath());
    words.front() = expected.front();
    QCOMPARE(words, expected);
    QVERIFY2(!QFile::exists(cwd + u"/pwned"_s), "an argument ran a command");
    QVERIFY2(!QDir(cwd + u"/fathom-slurm"_s).exists(), "--dry_run wrote the run folder");
  }

  void sbatchRefusalIsReported() {
    if (!m_skip.isEmpty()) {
      QSKIP(qPrintable(m_skip));
    }
    const QString run = dir(u"refused"_s);
    const fathom::test::CliRun r = fathom::test::runFathom(QStringList{u"launch"_s} + submitFlags(run) +
                                                               QStringList{u"--partition"_s, u"nosuch"_s, u"true"_s},
                                                           environment());
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(
        r.err.contains(
            "sbatch --parsable failed: sbatch: error: Batch job submission failed: Invalid partition name specified"),
        r.err.constData());
    QVERIFY(QFile::exists(run + u"/job.sbatch"_s));  // kept, to see what was refused
  }

  void submissionFollowsTheJob_data() {
    QTest::addColumn<QString>("mode");
    QTest::addColumn<int>("exitCode");
    QTest::newRow("succeeds") << u"args"_s << 0;
    QTest::newRow("rank 3 exits 7") << u"fail"_s << 7;
  }
  void submissionFollowsTheJob() {
    if (!m_skip.isEmpty()) {
      QSKIP(qPrintable(m_skip));
    }
    QFETCH(QString, mode);
    QFETCH(int, exitCode);
    const QString out = dir(u"submit-"_s + mode);
    const QString run = dir(u"run-"_s + mode);
    QElapsedTimer timer;
    timer.start();
    const fathom::test::CliRun r = fathom::test::runFathom(
        QStringList{u"launch"_s} + submitFlags(run) + QStringList{m_script, out, mode} + fathom::test::nastyArguments(),
        environment(), {}, 60'000);
    QVERIFY2(r.exitCode == exitCode, qPrintable(fathom::test::describe(r) + m_cluster.logTails()));
    qInfo("submitted and followed to the end in %lld ms", timer.elapsed());
    const QString job = QString::fromUtf8(r.out.left(r.out.indexOf('\n')));
    QVERIFY2(job.toInt() > 0, r.out.constData());  // stdout's first line: the job id
    QVERIFY(QFile::exists(run + u"/job.sbatch"_s));
    QVERIFY(QFile::exists(run + u"/slurm-"_s + job + u".out"_s));
    QVERIFY2(r.out.contains("rank 0 on n1") && r.out.contains("rank 3 on n2"), r.out.constData());  // streamed
    for (int rank = 0; rank < 4; ++rank) {
      QFile node(out + u"/node."_s + QString::number(rank));
      QVERIFY(node.open(QIODevice::ReadOnly));
      QCOMPARE(node.readAll().trimmed(), rank < 2 ? QByteArray("n1") : QByteArray("n2"));
      if (mode == u"args"_s) {
        QFile args(out + u"/args."_s + QString::number(rank));
        QVERIFY(args.open(QIODevice::ReadOnly));
        QCOMPARE(splitNul(args.readAll()), fathom::test::nastyArguments());
      }
    }
    QVERIFY2(!QFile::exists(out + u"/pwned"_s), "an argument ran a command");
    const QList<pid_t> pids =
        pidsInFiles(out, u"pid.*"_s) + pidsInFiles(out, u"child.*"_s) + pidsInFiles(out, u"agent.*"_s);
    const QString alive = survivingProcesses(pids, 10'000);
    fathom::test::killSurvivors(pids);
    QVERIFY2(alive.isEmpty(), qPrintable(u"still running after the job: "_s + alive));
  }

  void ddpUnderSlurmMatchesLocalLaunch_data() {
    QTest::addColumn<bool>("submitted");
    QTest::newRow("inside salloc -N2") << false;
    QTest::newRow("submitted with --nodes 2 (sbatch)") << true;
  }
  /// The Done-when check of issue 21 under SLURM: 2 nodes x 2 processes == 4 processes launched locally, bit for
  /// bit, and the run with its ranks and metrics in the launcher's workspace; inside an allocation and submitted.
  void ddpUnderSlurmMatchesLocalLaunch() {
    if (!m_skip.isEmpty()) {
      QSKIP(qPrintable(m_skip));
    }
    QFETCH(bool, submitted);
    const QString out = dir(u"ddp"_s);
    const QString localWs = out + u"/local.sqlite"_s;
    const QStringList common{u"launch"_s, u"--num_processes"_s, u"4"_s, u"--cpu"_s, u"--quiet"_s};
    if (!QFile::exists(out + u"/local.json"_s)) {  // the local run, once for both rows
      const fathom::test::CliRun local =
          fathom::test::runFathom(common + QStringList{u"--workspace"_s, localWs} + fathom::test::ddpTrainCommand() +
                                      QStringList{out + u"/local.json"_s},
                                  environment(), {}, 120'000);
      QVERIFY2(local.exitCode == 0, qPrintable(fathom::test::describe(local)));
    }
    const QString name = submitted ? u"sbatch"_s : u"salloc"_s;
    const QString slurmWs = out + u"/"_s + name + u".sqlite"_s;
    const QStringList slurm = common + QStringList{u"--workspace"_s, slurmWs, u"--slurm"_s, u"--main_process_port"_s,
                                                   QString::number(fathom::test::SlurmCluster::freePort())};
    const QStringList train = fathom::test::ddpTrainCommand() + QStringList{out + u"/"_s + name + u".json"_s};
    QProcess p;
    p.setProcessEnvironment(environment());
    if (submitted) {
      p.start(fathom::test::fathomExecutable(),
              slurm + QStringList{u"--nodes"_s, u"2"_s, u"--log_dir"_s, dir(u"ddp-run"_s)} + train);
    } else {
      p.start(u"salloc"_s, QStringList{u"-N2"_s, fathom::test::fathomExecutable()} + slurm + train);
    }
    QVERIFY(p.waitForFinished(120'000));
    QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
    const QString difference =
        fathom::test::lossDifference(fathom::test::stepLosses(out + u"/"_s + name + u".json"_s),
                                     fathom::test::stepLosses(out + u"/local.json"_s), 4, u"under "_s + name);
    QVERIFY2(difference.isEmpty(), qPrintable(difference));
    // One run, one workspace: the launcher's, with both nodes' ranks and their metrics (sent over TCP from n1, n2).
    const QString runDifference = fathom::test::multiNodeRunDifference(slurmWs, localWs, {"n1", "n2"}, 2);
    QVERIFY2(runDifference.isEmpty(), qPrintable(runDifference));
    // The run shows its job: the allocation's SLURM_JOB_ID (the job id sbatch printed, when submitted).
    const QString recorded = recordedJobId(slurmWs);
    QVERIFY2(recorded.toInt() > 0, qPrintable(recorded));
    if (submitted) {
      QCOMPARE(recorded, QString::fromUtf8(p.readAllStandardOutput().split('\n').value(0)).trimmed());
    }
  }

  /// `fathom launch --json --config_file F` with `fathom.launcher: slurm` outside an allocation submits a job of
  /// num_machines nodes (as the Studio launches it): stdout holds JSON lines only, the "slurm_job" event first, then
  /// the job's own launch's "run" ... "finished"; the workers' output goes to stderr; the run records the job.
  void configSubmissionWithJson() {
    if (!m_skip.isEmpty()) {
      QSKIP(qPrintable(m_skip));
    }
    const QString out = dir(u"config-json"_s);
    const QString ws = out + u"/runs.sqlite"_s;
    const QString config = out + u"/slurm.yaml"_s;
    QFile file(config);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("compute_environment: LOCAL_MACHINE\ndistributed_type: MULTI_CPU\nnum_machines: 2\n"
               "num_processes: 4\nuse_cpu: true\nfathom:\n  launcher: slurm\n");
    file.close();
    const fathom::test::CliRun r = fathom::test::runFathom(
        QStringList{u"launch"_s, u"--json"_s, u"--config_file"_s, config, u"--workspace"_s, ws, u"--log_dir"_s,
                    dir(u"config-json-run"_s), u"--main_process_port"_s,
                    QString::number(fathom::test::SlurmCluster::freePort()), m_script, out, u"args"_s},
        environment(), {}, 60'000);
    QVERIFY2(r.exitCode == 0, qPrintable(fathom::test::describe(r) + m_cluster.logTails()));
    QStringList events;
    QString job;
    for (const QByteArray& line : r.out.trimmed().split('\n')) {
      const QJsonDocument doc = QJsonDocument::fromJson(line);
      QVERIFY2(doc.isObject() && doc.object().value(u"event"_s).isString(), line.constData());
      const QJsonObject o = doc.object();
      events << o.value(u"event"_s).toString();
      if (o.value(u"event"_s) == u"slurm_job"_s && job.isEmpty()) {
        QCOMPARE(o.value(u"state"_s).toString(), u"SUBMITTED"_s);
        job = o.value(u"job_id"_s).toString();
      }
      if (o.value(u"event"_s) == u"finished"_s) {
        QCOMPARE(o.value(u"status"_s).toString(), u"succeeded"_s);
      }
    }
    QCOMPARE(events.value(0), u"slurm_job"_s);
    QVERIFY2(events.contains(u"run"_s) && events.contains(u"finished"_s), qPrintable(events.join(u' ')));
    QCOMPARE(events.count(u"rank_started"_s), 4);
    QVERIFY2(r.err.contains("rank 0 on n1") && r.err.contains("rank 3 on n2"), r.err.constData());
    QCOMPARE(recordedJobId(ws), job);
  }

  void cancellingStopsEveryProcess_data() {
    QTest::addColumn<bool>("viaLauncher");
    QTest::newRow("scancel of a detached job") << false;
    QTest::newRow("SIGTERM to the command following the job") << true;
  }
  void cancellingStopsEveryProcess() {
    if (!m_skip.isEmpty()) {
      QSKIP(qPrintable(m_skip));
    }
    QFETCH(bool, viaLauncher);
    const QString name = viaLauncher ? u"sigterm"_s : u"scancel"_s;
    const QString out = dir(name);
    QProcess launcher;
    launcher.setProcessEnvironment(environment());
    launcher.start(fathom::test::fathomExecutable(), QStringList{u"launch"_s} + submitFlags(dir(name + u"-run"_s)) +
                                                         (viaLauncher ? QStringList() : QStringList{u"--detach"_s}) +
                                                         QStringList{m_script, out, u"wait"_s});
    if (!viaLauncher) {
      QVERIFY(launcher.waitForFinished(30'000));
      QCOMPARE(launcher.exitCode(), 0);
    }
    const bool up = fathom::test::waitForFileCount(out, u"pid.*"_s, 4, 30'000);
    const QString job = QString::fromUtf8(launcher.readLine()).trimmed();  // stdout's first line: the job id
    const QList<pid_t> pids =
        pidsInFiles(out, u"pid.*"_s) + pidsInFiles(out, u"child.*"_s) + pidsInFiles(out, u"agent.*"_s);
    QElapsedTimer timer;
    timer.start();
    if (viaLauncher) {
      ::kill(static_cast<pid_t>(launcher.processId()), SIGTERM);
    } else {
      QVERIFY(m_cluster.run(u"scancel"_s, {job}));
    }
    const QString alive = survivingProcesses(pids, 10'000);
    const qint64 elapsed = timer.elapsed();
    fathom::test::killSurvivors(pids);
    const bool ended = launcher.waitForFinished(30'000);
    const QByteArray err = launcher.readAllStandardError();
    QVERIFY2(up, err.constData());
    QVERIFY2(job.toInt() > 0, qPrintable(job));
    QCOMPARE(pids.size(), 12);
    QVERIFY2(alive.isEmpty(), qPrintable(u"still running 10 s later: "_s + alive));
    qInfo("every process gone %lld ms after the cancel", elapsed);
    QCOMPARE(m_cluster.waitForJobEnd(job), u"CANCELLED"_s);
    if (viaLauncher) {
      QVERIFY(ended);
      QCOMPARE(launcher.exitCode(), 128 + SIGTERM);
      QVERIFY2(err.contains("fathom launch: SIGTERM: cancelling job " + job.toUtf8() + " (scancel)"), err.constData());
    }
  }
};

QTEST_GUILESS_MAIN(TestLaunchSlurm)
#include "tst_launch_slurm.moc"
