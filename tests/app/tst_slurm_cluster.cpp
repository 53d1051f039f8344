// SPDX-License-Identifier: Apache-2.0
// The private SLURM cluster of the `fathom launch --slurm` tests (tests/support/slurm_cluster.h), on its own: it
// starts (and how long that takes), srun runs tasks on both nodes, sbatch --parsable submits a job that runs to its
// end with its exit code, scancel stops a running job's every process, and once the fixture stops no daemon, step
// or job process of it is left.
#include "process_survivors.h"
#include "slurm_cluster.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using fathom::test::pidsInFiles;
using fathom::test::survivingProcesses;

class TestSlurmCluster : public QObject {
  Q_OBJECT

private:
  QTemporaryDir m_root;
  fathom::test::SlurmCluster m_cluster;

private slots:
  void initTestCase() {
    if (const QString why = fathom::test::SlurmCluster::unavailable(); !why.isEmpty()) {
      QSKIP(qPrintable(why));
    }
    QVERIFY(m_root.isValid());
    const QString error = m_cluster.start(m_root.filePath(u"slurm"_s));
    QVERIFY2(error.isEmpty(), qPrintable(error));
    qInfo("the cluster (munged, slurmctld, 2 slurmd) was idle %lld ms after start", m_cluster.startMs());
  }

  void srunRunsTasksOnBothNodes() {
    QString out;
    QString err;
    QVERIFY2(m_cluster.run(u"srun"_s,
                           {u"-N2"_s, u"-n4"_s, u"bash"_s, u"-c"_s, u"echo $SLURMD_NODENAME $SLURM_PROCID"_s}, &out,
                           &err),
             qPrintable(err + m_cluster.logTails()));
    QStringList lines = out.split(u'\n', Qt::SkipEmptyParts);
    lines.sort();
    QCOMPARE(lines, (QStringList{u"n1 0"_s, u"n1 1"_s, u"n2 2"_s, u"n2 3"_s}));
    // The brief's check: one node, two tasks.
    QVERIFY(m_cluster.run(u"srun"_s, {u"-N1"_s, u"-n2"_s, u"bash"_s, u"-c"_s, u"echo $SLURM_PROCID"_s}, &out));
    lines = out.split(u'\n', Qt::SkipEmptyParts);
    lines.sort();
    QCOMPARE(lines, (QStringList{u"0"_s, u"1"_s}));
  }

  void sbatchRunsAJobToItsEnd() {
    const QString output = m_root.filePath(u"job-%j.out"_s);
    QString id;
    QString err;
    QVERIFY2(m_cluster.run(u"sbatch"_s,
                           {u"--parsable"_s, u"-N1"_s, u"-o"_s, output, u"--wrap"_s, u"echo hello; exit 3"_s}, &id,
                           &err),
             qPrintable(err));
    id = id.trimmed();
    QVERIFY2(!id.isEmpty() && id.toInt() > 0, qPrintable(id));  // --parsable: "ID" (or "ID;CLUSTER")
    QCOMPARE(m_cluster.waitForJobEnd(id), u"FAILED"_s);
    QString record;
    // squeue's --Format exit_code is the wait status: 3 << 8.
    QVERIFY(m_cluster.run(u"squeue"_s, {u"-h"_s, u"-t"_s, u"all"_s, u"-j"_s, id, u"-O"_s, u"exit_code:|"_s}, &record));
    QCOMPARE(record.trimmed(), u"768|"_s);
    QFile file(QString(output).replace(u"%j"_s, id));
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), QByteArray("hello\n"));
  }

  void scancelStopsEveryProcessOfAJob() {
    const QString out = m_root.filePath(u"cancel"_s);
    QDir().mkpath(out);
    QString id;
    QVERIFY(m_cluster.run(u"sbatch"_s,
                          {u"--parsable"_s, u"-N1"_s, u"-o"_s, u"/dev/null"_s, u"-D"_s, out, u"--wrap"_s,
                           u"sleep 300 & echo $! > child.0; bash -c 'sleep 300 & echo $! > child.1; wait' & "
                           "echo $$ > pid.0; wait"_s},
                          &id));
    id = id.trimmed();
    QVERIFY(fathom::test::waitForFileCount(out, u"child.*"_s, 2));
    QVERIFY(fathom::test::waitForFileCount(out, u"pid.*"_s, 1));
    const QList<pid_t> pids = pidsInFiles(out, u"pid.*"_s) + pidsInFiles(out, u"child.*"_s);
    QElapsedTimer timer;
    timer.start();
    QVERIFY(m_cluster.run(u"scancel"_s, {id}));
    const QString alive = survivingProcesses(pids, 10'000);
    QVERIFY2(alive.isEmpty(), qPrintable(u"still running 10 s after scancel: "_s + alive));
    qInfo("scancel: every process of the job gone after %lld ms", timer.elapsed());
    QCOMPARE(m_cluster.waitForJobEnd(id), u"CANCELLED"_s);
  }

  /// Last: stopping the fixture leaves nothing behind (daemons, slurmstepd, job processes).
  void nothingLeftAfterStop() {
    QString id;
    QVERIFY(m_cluster.run(u"sbatch"_s,
                          {u"--parsable"_s, u"-N2"_s, u"-o"_s, u"/dev/null"_s, u"--wrap"_s, u"srun sleep 300"_s}, &id));
    QElapsedTimer timer;
    timer.start();
    // Both nodes' steps running (a slurmstepd each, and the batch step's): more than the daemons alone.
    while (m_cluster.processesOfCluster().size() < m_cluster.daemonPids().size() + 4 && timer.elapsed() < 20'000) {
      QTest::qWait(100);
    }
    const QList<pid_t> before = m_cluster.processesOfCluster() + m_cluster.daemonPids();
    QVERIFY(before.size() > m_cluster.daemonPids().size());
    timer.restart();
    m_cluster.stop();
    const QString alive = survivingProcesses(before, 1000);
    QVERIFY2(alive.isEmpty(), qPrintable(u"left after stop(): "_s + alive));
    QVERIFY(m_cluster.processesOfCluster().isEmpty());
    qInfo("stop() with a running 2-node job took %lld ms", timer.elapsed());
  }
};

QTEST_GUILESS_MAIN(TestSlurmCluster)
#include "tst_slurm_cluster.moc"
