// SPDX-License-Identifier: Apache-2.0
// `fathom plan --model gpt-tiny` against `fathom train --stats_json` under gradient accumulation (separate
// processes, Gloo): each rank's parameter, gradient, optimizer-state and master-weight bytes, and the collectives of
// a steady-state optimizer step by kind (count and bytes), equal to the byte (docs/planner.md, "Exact layout for
// built-in models"). Every strategy without accumulation, on 2 and 4 ranks, is tst_sharding_vs_plan's.
#include "cli_runner.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using fathom::test::runFathom;

namespace {

/// "kind count bytes" per kind, sorted by kind.
using KindTotals = QMap<QString, QString>;

KindTotals predicted(const QJsonObject& plan) {
  QMap<QString, QPair<qint64, double>> sums;
  for (const auto& item : plan[u"communication"_s].toObject()[u"collectives"_s].toArray()) {
    const QJsonObject c = item.toObject();
    auto& s = sums[c[u"kind"_s].toString()];
    s.first += c[u"count"_s].toInteger();
    s.second += c[u"bytes"_s].toDouble();
  }
  KindTotals out;
  for (auto it = sums.begin(); it != sums.end(); ++it) {
    out[it.key()] = u"%1 x %2"_s.arg(it.value().first).arg(it.value().second, 0, 'f', 0);
  }
  return out;
}

KindTotals measured(const QJsonObject& step) {
  KindTotals out;
  for (const auto& item : step[u"collectives"_s].toArray()) {
    const QJsonObject c = item.toObject();
    out[c[u"kind"_s].toString()] = u"%1 x %2"_s.arg(c[u"count"_s].toInteger()).arg(c[u"bytes"_s].toDouble(), 0, 'f', 0);
  }
  return out;
}

}  // namespace

class PlanVsTrainShardedTest : public QObject {
  Q_OBJECT

private slots:
  // Every `fathom train`/`launch` of this test writes its workspace here, not into the test's directory.
  void initTestCase() {
    QVERIFY(m_workspaceDir.isValid());
    fathom::test::useWorkspaceIn(m_workspaceDir);
  }

  void bytesAndCollectivesMatch_data() {
    QTest::addColumn<int>("ranks");
    QTest::addColumn<QStringList>("train");  // fathom train flags
    QTest::addColumn<QStringList>("plan");   // the same plan for fathom plan
    // Accumulation: ZeRO-2/3 reduce every micro-step, ZeRO-1 once per step. (FSDP's no_sync accumulation keeps
    // unsharded gradients between micro-steps, which the planner counts and the measurement after the step does not.)
    for (const QString& stage : {u"zero1"_s, u"zero2"_s, u"zero3"_s}) {
      const QStringList flags{u"--strategy"_s, stage, u"--gradient_accumulation_steps"_s, u"2"_s};
      QTest::addRow("%s, 2 micro-steps, 2 ranks", qPrintable(stage)) << 2 << flags << flags;
    }
  }

  void bytesAndCollectivesMatch() {
    QFETCH(int, ranks);
    QFETCH(QStringList, train);
    QFETCH(QStringList, plan);
    QTemporaryDir dir;
    const QString path = dir.filePath(u"stats.json"_s);
    // --log_every 0: no loss reductions among the step's collectives.
    const auto run = runFathom(QStringList{u"launch"_s, u"--num_processes"_s, QString::number(ranks), u"--quiet"_s,
                                           fathom::test::fathomExecutable(), u"train"_s, u"--model"_s, u"gpt-tiny"_s,
                                           u"--optimizer"_s, u"adamw"_s, u"--batch_size"_s, u"4"_s, u"--steps"_s,
                                           u"3"_s, u"--log_every"_s, u"0"_s, u"--stats_json"_s, path} +
                                   train,
                               fathom::test::launcherFreeEnvironment(), {}, 180'000);
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonObject stats = QJsonDocument::fromJson(file.readAll()).object();

    const auto predictedRun =
        runFathom(QStringList{u"plan"_s, u"--model"_s, u"gpt-tiny"_s, u"--num_gpus"_s, QString::number(ranks),
                              u"--precision"_s, u"fp32"_s, u"--optimizer"_s, u"adamw"_s, u"--hardware"_s, u"cpu-host"_s,
                              u"--micro_batch"_s, u"4"_s, u"--seq"_s, u"64"_s, u"--json"_s} +
                  plan);
    QVERIFY2(predictedRun.exitCode == 0, predictedRun.err.constData());
    const QJsonObject prediction = QJsonDocument::fromJson(predictedRun.out).object();
    const QJsonObject bytes = prediction[u"memory"_s].toObject()[u"per_rank_bytes"_s].toObject();

    const QJsonArray perRank = stats[u"ranks"_s].toArray();
    const QString idProblem = fathom::test::statsRanksProblem(perRank, ranks);  // one entry per rank, ids distinct
    QVERIFY2(idProblem.isEmpty(), qPrintable(idProblem));
    for (const auto& item : perRank) {
      const QJsonObject rank = item.toObject();
      const QJsonObject held = rank[u"bytes"_s].toObject();
      for (const char* key : {"parameters", "gradients", "optimizer_states", "master_weights"}) {
        const QString k = QString::fromLatin1(key);
        QVERIFY2(held[k].toDouble() == bytes[k].toDouble(),
                 qPrintable(u"rank %1 %2: measured %3, predicted %4"_s.arg(rank[u"rank"_s].toInt())
                                .arg(k)
                                .arg(held[k].toDouble(), 0, 'f', 0)
                                .arg(bytes[k].toDouble(), 0, 'f', 0)));
      }
      // Comm steps are cut at the first backward of an optimizer step (docs/train.md), so step n holds the
      // backward of optimizer step n and the forward of step n + 1: the last step lacks a forward, a middle step
      // is a whole one.
      const QJsonObject step2 = rank[u"steps"_s].toArray()[1].toObject();
      QCOMPARE(step2[u"step"_s].toInt(), 2);
      QCOMPARE(measured(step2), predicted(prediction));
    }
  }

private:
  QTemporaryDir m_workspaceDir;
};

QTEST_GUILESS_MAIN(PlanVsTrainShardedTest)
#include "tst_plan_vs_train_sharded.moc"
