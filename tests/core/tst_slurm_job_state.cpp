// SPDX-License-Identifier: Apache-2.0
// SLURM's machine output as `fathom launch --slurm` reads it: squeue -O State:|,exit_code:| lines, sacct -n -P
// State,ExitCode records, and the exit code the launcher gives each ended state.
#include <fathom/launch/slurm_job_state.h>

#include <QTest>

using fathom::launch::SlurmJobState;

class TestSlurmJobState : public QObject {
  Q_OBJECT

private slots:
  void squeueLines_data() {
    QTest::addColumn<QString>("line");
    QTest::addColumn<QString>("state");
    QTest::addColumn<bool>("ended");
    QTest::addColumn<int>("exitCode");
    QTest::newRow("pending") << "PENDING|0|"
                             << "PENDING" << false << 0;
    QTest::newRow("running") << "RUNNING|0|"
                             << "RUNNING" << false << 0;
    QTest::newRow("completing") << "COMPLETING|0|"
                                << "COMPLETING" << false << 0;
    QTest::newRow("completed") << "COMPLETED|0|"
                               << "COMPLETED" << true << 0;
    QTest::newRow("failed with 3 (wait status 3 << 8)") << "FAILED|768|"
                                                        << "FAILED" << true << 3;
    QTest::newRow("killed by SIGKILL") << "FAILED|9|"
                                       << "FAILED" << true << 137;
    QTest::newRow("scancel: SIGTERM") << "CANCELLED|15|"
                                      << "CANCELLED" << true << 143;
    QTest::newRow("cancelled while pending") << "CANCELLED|0|"
                                             << "CANCELLED" << true << 143;
    QTest::newRow("timeout") << "TIMEOUT|15|"
                             << "TIMEOUT" << true << 124;
    QTest::newRow("out of memory") << "OUT_OF_MEMORY|0|"
                                   << "OUT_OF_MEMORY" << true << 137;
    QTest::newRow("node failure, no code") << "NODE_FAIL|0|"
                                           << "NODE_FAIL" << true << 1;
    QTest::newRow("no exit code yet") << "PENDING|N/A|"
                                      << "PENDING" << false << 0;
  }
  void squeueLines() {
    QFETCH(QString, line);
    QFETCH(QString, state);
    QFETCH(bool, ended);
    QFETCH(int, exitCode);
    const auto parsed = SlurmJobState::fromSqueue(line.toStdString());
    QVERIFY(parsed.has_value());
    QCOMPARE(QString::fromStdString(parsed->state), state);
    QCOMPARE(parsed->ended(), ended);
    if (ended) {
      QCOMPARE(parsed->exitCode(), exitCode);
    }
  }

  void sacctRecords_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("state");
    QTest::addColumn<int>("exitCode");
    QTest::newRow("completed") << "COMPLETED|0:0\n"
                               << "COMPLETED" << 0;
    QTest::newRow("failed with 7") << "FAILED|7:0\n"
                                   << "FAILED" << 7;
    QTest::newRow("cancelled by uid") << "CANCELLED by 1000|0:15\n"
                                      << "CANCELLED" << 143;
    QTest::newRow("failed, code 0 (a launch failure)") << "FAILED|0:0\n"
                                                       << "FAILED" << 1;
    QTest::newRow("first line only") << "COMPLETED|0:0\nFAILED|1:0\n"
                                     << "COMPLETED" << 0;
  }
  void sacctRecords() {
    QFETCH(QString, text);
    QFETCH(QString, state);
    QFETCH(int, exitCode);
    const auto parsed = SlurmJobState::fromSacct(text.toStdString());
    QVERIFY(parsed.has_value());
    QCOMPARE(QString::fromStdString(parsed->state), state);
    QVERIFY(parsed->ended());
    QCOMPARE(parsed->exitCode(), exitCode);
  }

  void notMachineOutputIsRefused_data() {
    QTest::addColumn<QString>("text");
    QTest::newRow("empty") << "";
    QTest::newRow("a human table") << "             JOBID PARTITION     NAME     USER ST       TIME  NODES";
    QTest::newRow("squeue without the suffix") << "RUNNING|0";
    QTest::newRow("lower case") << "running|0|";
    QTest::newRow("sacct without a code") << "FAILED|";
    QTest::newRow("negative") << "FAILED|-1:0";
  }
  void notMachineOutputIsRefused() {
    QFETCH(QString, text);
    QVERIFY(!SlurmJobState::fromSqueue(text.toStdString()).has_value());
    QVERIFY(!SlurmJobState::fromSacct(text.toStdString()).has_value());
  }
};

QTEST_GUILESS_MAIN(TestSlurmJobState)
#include "tst_slurm_job_state.moc"
