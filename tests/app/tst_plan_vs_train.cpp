// SPDX-License-Identifier: Apache-2.0
// Predicted equals measured (issue 5): for built-in models trained by `fathom train` under DDP on 2 and 4 ranks,
// `fathom plan --model NAME` predicts exactly the parameter, gradient and optimizer-state bytes per rank the run
// holds (`memory` of the --json summary, measured from the live tensors, and every rank's entry of --stats_json: DDP
// replicates, so each rank must hold what rank 0 holds), and exactly the gradient all_reduce
// calls and bytes per step the Comm layer recorded ("ddp.bucket.<i>" records of the last step, `ddp_last_step`).
// docs/planner.md, "Measured against predicted".
#include "cli_runner.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace Qt::StringLiterals;
using fathom::test::runFathom;

namespace {

qint64 integer(const QJsonObject& object, const char* key) {
  return static_cast<qint64>(object.value(QLatin1StringView(key)).toDouble(-1));
}

}  // namespace

class PlanVsTrainTest : public QObject {
  Q_OBJECT

private slots:
  // Every `fathom train`/`launch` of this test writes its workspace here, not into the test's directory.
  void initTestCase() {
    QVERIFY(m_workspaceDir.isValid());
    fathom::test::useWorkspaceIn(m_workspaceDir);
  }

  void predictedEqualsMeasured_data() {
    QTest::addColumn<QStringList>("model");
    QTest::addColumn<int>("ranks");
    QTest::addColumn<int>("buckets");  // DDP buckets (all_reduce calls) per step
    const QStringList small{u"--model"_s, u"mlp"_s, u"--hidden"_s, u"64"_s, u"--layers"_s, u"2"_s};
    // 4.2M parameters (16.8 MB): the 1 MiB first bucket closes at the first 4 MiB weight, the rest fit in one.
    const QStringList wide{u"--model"_s, u"mlp"_s, u"--hidden"_s, u"1024"_s, u"--layers"_s, u"4"_s};
    // Three 16 MiB weights: buckets close at tensor boundaries (2 buckets; equal 25 MiB slices would make 3).
    const QStringList huge{u"--model"_s, u"mlp"_s, u"--hidden"_s, u"2048"_s, u"--layers"_s, u"3"_s};
    const QStringList gpt{u"--model"_s, u"gpt-tiny"_s};
    for (int ranks : {2, 4}) {
      const QByteArray n = QByteArray::number(ranks);
      QTest::newRow("mlp 64x2 " + n) << small << ranks << 1;
      QTest::newRow("mlp 1024x4 " + n) << wide << ranks << 2;
      QTest::newRow("mlp 2048x3 " + n) << huge << ranks << 2;
      QTest::newRow("gpt-tiny " + n) << gpt << ranks << 1;
    }
  }

  void predictedEqualsMeasured() {
    QFETCH(QStringList, model);
    QFETCH(int, ranks);
    QFETCH(int, buckets);

    const QStringList train =
        QStringList{
            u"launch"_s, u"--num_processes"_s, QString::number(ranks), u"--quiet"_s, fathom::test::fathomExecutable(),
            u"train"_s} +
        model + QStringList{u"--optimizer"_s, u"adamw"_s,        u"--steps"_s,
                            u"2"_s,           u"--log_every"_s,  u"0"_s,
                            u"--json"_s,      u"--stats_json"_s, m_workspaceDir.filePath(u"stats.json"_s)};
    const auto run = runFathom(train, QProcessEnvironment::systemEnvironment(), {}, 240'000);
    QVERIFY2(run.exitCode == 0, (run.out + run.err).constData());
    const QJsonObject summary = fathom::test::trainSummary(run.out);
    QVERIFY2(!summary.isEmpty(), run.out.constData());
    QCOMPARE(summary.value(u"world_size"_s).toInt(), ranks);
    const QJsonObject measured = summary.value(u"memory"_s).toObject();
    const QJsonObject ddp = summary.value(u"ddp_last_step"_s).toObject();

    // fp32 with no master copy, AdamW (two fp32 moments), the micro-batch fathom train uses (8).
    const QStringList plan =
        QStringList{u"plan"_s} + model +
        QStringList{u"--strategy"_s,    u"ddp"_s,         u"--num_gpus"_s, QString::number(ranks), u"--precision"_s,
                    u"fp32"_s,          u"--optimizer"_s, u"adamw"_s,      u"--hardware"_s,        u"cpu-host"_s,
                    u"--micro_batch"_s, u"8"_s,           u"--json"_s};
    const auto planned = runFathom(plan);
    QVERIFY2(planned.exitCode == 0, (planned.out + planned.err).constData());
    const QJsonObject prediction = QJsonDocument::fromJson(planned.out).object();
    const QJsonObject perRank = prediction.value(u"memory"_s).toObject().value(u"per_rank_bytes"_s).toObject();

    for (const char* key : {"parameters", "gradients", "optimizer_states"}) {
      QVERIFY2(integer(measured, key) > 0, key);
      QCOMPARE(integer(perRank, key), integer(measured, key));
    }
    QCOMPARE(integer(perRank, "master_weights"), 0);
    // Every rank, not rank 0 alone (the summary is rank 0's): one --stats_json entry per rank, each holding the
    // predicted bytes.
    QFile statsFile(m_workspaceDir.filePath(u"stats.json"_s));
    QVERIFY(statsFile.open(QIODevice::ReadOnly));
    const QJsonArray rankEntries = QJsonDocument::fromJson(statsFile.readAll()).object().value(u"ranks"_s).toArray();
    const QString idProblem = fathom::test::statsRanksProblem(rankEntries, ranks);
    QVERIFY2(idProblem.isEmpty(), qPrintable(idProblem));
    for (const QJsonValue& entry : rankEntries) {
      const QJsonObject held = entry.toObject().value(u"bytes"_s).toObject();
      for (const char* key : {"parameters", "gradients", "optimizer_states", "master_weights"}) {
        QVERIFY2(integer(held, key) == integer(perRank, key),
                 qPrintable(u"rank %1 %2: measured %3, predicted %4"_s.arg(entry.toObject().value(u"rank"_s).toInt())
                                .arg(QLatin1StringView(key))
                                .arg(integer(held, key))
                                .arg(integer(perRank, key))));
      }
    }

    qint64 bytes = 0;
    qint64 calls = 0;
    for (const QJsonValue& value : prediction.value(u"communication"_s).toObject().value(u"collectives"_s).toArray()) {
      const QJsonObject c = value.toObject();
      QCOMPARE(c.value(u"kind"_s).toString(), u"all_reduce"_s);  // DDP runs nothing else per step
      QCOMPARE(c.value(u"group_size"_s).toInt(), ranks);
      bytes += integer(c, "bytes");
      calls += integer(c, "count");
    }
    QCOMPARE(integer(ddp, "all_reduce_count"), qint64(buckets));
    QCOMPARE(calls, integer(ddp, "all_reduce_count"));
    QCOMPARE(bytes, integer(ddp, "all_reduce_bytes"));
    QCOMPARE(bytes, integer(measured, "gradients"));  // every fp32 gradient byte, once per step
  }

private:
  QTemporaryDir m_workspaceDir;
};

QTEST_GUILESS_MAIN(PlanVsTrainTest)
#include "tst_plan_vs_train.moc"
