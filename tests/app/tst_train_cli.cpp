// SPDX-License-Identifier: Apache-2.0
// `fathom train` end to end, in separate processes over real Gloo groups: the data-parallel equivalences the
// training core promises (docs/train.md), checked on the final parameters each run writes with --save_final.
#include "cli_runner.h"
#include "saved_params.h"

#include <fathom/io/safetensors.h>

#include <ATen/ATen.h>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <map>
#include <string>

using namespace Qt::StringLiterals;
using fathom::test::runFathom;

namespace {

using fathom::test::maxAbsDiff;
using fathom::test::Params;

/// Runs `fathom train ARGS --save_final FILE` on `processes` ranks (through `fathom launch` when > 1) and
/// returns the saved parameters. Fails the test with the run's output when it does not succeed.
Params train(const QTemporaryDir& dir, const QString& name, int processes, const QStringList& args) {
  const QString file = dir.filePath(name + u".safetensors"_s);
  QStringList command{u"train"_s, u"--model"_s,     u"mlp"_s, u"--hidden"_s,     u"32"_s, u"--layers"_s,
                      u"2"_s,     u"--log_every"_s, u"0"_s,   u"--save_final"_s, file};
  if (!args.contains(u"--steps"_s))
    command += QStringList{u"--steps"_s, u"20"_s};
  command += args;
  if (processes > 1) {
    command = QStringList{u"launch"_s, u"--num_processes"_s, QString::number(processes), u"--quiet"_s,
                          fathom::test::fathomExecutable()} +
              command;
  }
  const auto run = runFathom(command, QProcessEnvironment::systemEnvironment(), {}, 120'000);
  if (run.exitCode != 0) {
    qWarning().noquote() << "fathom" << command.join(u' ') << "\n" << run.out << "\n" << run.err;
    return {};
  }
  return fathom::test::readParams(file);
}

/// Largest absolute change from `before` to `after` (to show the runs actually trained).
double maxChange(const Params& a, const Params& b) {
  return maxAbsDiff(a, b);
}

}  // namespace

class TrainCliTest : public QObject {
  Q_OBJECT

private slots:
  // Every `fathom train`/`launch` of this test writes its workspace here, not into the test's directory.
  void initTestCase() {
    QVERIFY(m_workspaceDir.isValid());
    fathom::test::useWorkspaceIn(m_workspaceDir);
  }

  void twoRanksOfEightEqualOneRankOfSixteen_data() {
    QTest::addColumn<QStringList>("extra");
    QTest::newRow("sgd") << QStringList{u"--optimizer"_s, u"sgd"_s, u"--lr"_s, u"0.05"_s};
    QTest::newRow("sgd shuffle") << QStringList{u"--optimizer"_s, u"sgd"_s, u"--lr"_s, u"0.05"_s, u"--shuffle"_s};
    QTest::newRow("adamw shuffle") << QStringList{u"--optimizer"_s, u"adamw"_s, u"--lr"_s, u"0.001"_s, u"--shuffle"_s};
  }
  void twoRanksOfEightEqualOneRankOfSixteen() {
    QFETCH(QStringList, extra);
    QTemporaryDir dir;
    const Params one = train(dir, u"one"_s, 1, QStringList{u"--batch_size"_s, u"16"_s} + extra);
    const Params two = train(dir, u"two"_s, 2, QStringList{u"--batch_size"_s, u"8"_s} + extra);
    QVERIFY(!one.empty() && !two.empty());
    const double diff = maxAbsDiff(one, two);
    qInfo("max |1x16 - 2x8| = %.3g", diff);
    QVERIFY2(diff <= 1e-5, qPrintable(u"max abs diff %1 > 1e-5"_s.arg(diff)));

    // Not vacuous: one step fewer, or a different batch, gives visibly different parameters.
    const Params fewer =
        train(dir, u"fewer"_s, 1, QStringList{u"--batch_size"_s, u"16"_s, u"--steps"_s, u"19"_s} + extra);
    QVERIFY(!fewer.empty());
    QVERIFY(maxChange(one, fewer) > 1e-4);
  }

  void accumulationOfFourTimesFourEqualsSixteen() {
    QTemporaryDir dir;
    const QStringList common{u"--optimizer"_s, u"sgd"_s, u"--lr"_s, u"0.05"_s, u"--shuffle"_s};
    const Params full = train(dir, u"full"_s, 1, QStringList{u"--batch_size"_s, u"16"_s} + common);
    const Params accumulated =
        train(dir, u"accum"_s, 1,
              QStringList{u"--batch_size"_s, u"4"_s, u"--gradient_accumulation_steps"_s, u"4"_s} + common);
    QVERIFY(!full.empty() && !accumulated.empty());
    const double diff = maxAbsDiff(full, accumulated);
    qInfo("max |1x16 - 4x4 accumulated| = %.3g", diff);
    QVERIFY2(diff <= 1e-5, qPrintable(u"max abs diff %1 > 1e-5"_s.arg(diff)));

    // And across processes: 2 ranks x 2 accumulation steps x batch 4 = 16 samples per step.
    const Params mixed =
        train(dir, u"mixed"_s, 2,
              QStringList{u"--batch_size"_s, u"4"_s, u"--gradient_accumulation_steps"_s, u"2"_s} + common);
    const double diff2 = maxAbsDiff(full, mixed);
    qInfo("max |1x16 - 2 ranks x 2 accumulated x 4| = %.3g", diff2);
    QVERIFY2(diff2 <= 1e-5, qPrintable(u"max abs diff %1 > 1e-5"_s.arg(diff2)));
  }

  void summaryReportsTheGradientAllReduce() {
    // One bucket of 2 * (32*32 + 32) + 32 + 1 = 2,145 float32 parameters: the all-reduce each step moves.
    QStringList command{u"launch"_s,
                        u"--num_processes"_s,
                        u"2"_s,
                        u"--quiet"_s,
                        fathom::test::fathomExecutable(),
                        u"train"_s,
                        u"--model"_s,
                        u"mlp"_s,
                        u"--hidden"_s,
                        u"32"_s,
                        u"--layers"_s,
                        u"2"_s,
                        u"--steps"_s,
                        u"5"_s,
                        u"--log_every"_s,
                        u"0"_s,
                        u"--json"_s};
    const auto run = runFathom(command, QProcessEnvironment::systemEnvironment(), {}, 120'000);
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QJsonObject summary = fathom::test::trainSummary(run.out);
    QVERIFY2(!summary.isEmpty(), run.out.constData());
    QCOMPARE(summary.value(u"steps"_s).toInt(), 5);
    QCOMPARE(summary.value(u"world_size"_s).toInt(), 2);
    const QJsonObject ddp = summary.value(u"ddp_last_step"_s).toObject();
    QCOMPARE(ddp.value(u"all_reduce_count"_s).toInt(), 1);
    QCOMPARE(ddp.value(u"all_reduce_bytes"_s).toInteger(), 2145 * 4);
  }

  void badFlagsAreRejectedUpFront() {
    auto run = runFathom({u"train"_s, u"--model"_s, u"gpt-tiny"_s, u"--hidden"_s, u"64"_s});
    QVERIFY(run.exitCode != 0);
    QVERIFY2(run.err.contains("--hidden"), run.err.constData());
    run = runFathom({u"train"_s, u"--optimizer"_s, u"lamb"_s, u"--steps"_s, u"1"_s});
    QVERIFY(run.exitCode != 0);
    QVERIFY2(run.err.contains("lamb"), run.err.constData());
    run = runFathom({u"train"_s, u"--save_final"_s, u"weights.bin"_s, u"--steps"_s, u"1"_s});
    QVERIFY(run.exitCode != 0);
    QVERIFY2(run.err.contains("weights.bin"), run.err.constData());
  }

  void documentedExampleRunsAloneAndOnTwoProcesses() {
    // docs/examples/custom_loop.cpp exits non-zero unless gatherForMetrics saw exactly the 256 samples.
    const QString example = QStringLiteral(FATHOM_EXAMPLE_CUSTOM_LOOP);
    QProcess alone;
    alone.start(example, {});
    QVERIFY(alone.waitForFinished(120'000));
    QVERIFY2(alone.exitCode() == 0, alone.readAllStandardError().constData());
    QVERIFY(alone.readAllStandardOutput().contains("evaluated 256 samples"));
    const auto two = runFathom({u"launch"_s, u"--num_processes"_s, u"2"_s, u"--quiet"_s, example},
                               QProcessEnvironment::systemEnvironment(), {}, 120'000);
    QVERIFY2(two.exitCode == 0, two.err.constData());
    QVERIFY2(two.out.contains("evaluated 256 samples"), two.out.constData());
    QCOMPARE(two.out.count("evaluated"), 1);  // printed by the main process only
  }

  void trackersReceiveTheLoggedLoss() {
    // --log_with goes through Accelerator::initTrackers / log / endTraining; on 2 processes only rank 0 writes.
    QTemporaryDir dir;
    const auto run =
        runFathom({u"launch"_s, u"--num_processes"_s, u"2"_s, u"--quiet"_s, fathom::test::fathomExecutable(),
                   u"train"_s, u"--model"_s, u"mlp"_s, u"--hidden"_s, u"16"_s, u"--steps"_s, u"6"_s, u"--log_every"_s,
                   u"2"_s, u"--log_with"_s, u"csv,jsonl"_s, u"--project_dir"_s, dir.path()},
                  QProcessEnvironment::systemEnvironment(), {}, 120'000);
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QFile csv(dir.filePath(u"fathom-train/metrics.csv"_s));
    QVERIFY2(csv.open(QIODevice::ReadOnly), qPrintable(csv.fileName()));
    const QList<QByteArray> lines = csv.readAll().trimmed().split('\n');
    QCOMPARE(lines.front(), QByteArray("step,wall_time,key,value"));
    int lossRows = 0;
    for (const QByteArray& line : lines)
      lossRows += line.contains(",loss,") ? 1 : 0;
    QCOMPARE(lossRows, 3);  // steps 2, 4, 6
    QVERIFY(QFile::exists(dir.filePath(u"fathom-train/metrics.jsonl"_s)));
    // An unknown tracker is refused before any training, naming it.
    const auto bad =
        runFathom({u"train"_s, u"--steps"_s, u"1"_s, u"--log_with"_s, u"wandb-nope"_s, u"--project_dir"_s, dir.path()});
    QVERIFY(bad.exitCode != 0);
    QVERIFY2(bad.err.contains("wandb-nope"), bad.err.constData());
  }

  void gptTrainsOnTheShippedCorpus() {
    QTemporaryDir dir;
    const QString file = dir.filePath(u"gpt.safetensors"_s);
    const auto run =
        runFathom({u"train"_s, u"--model"_s, u"gpt-tiny"_s, u"--steps"_s, u"3"_s, u"--batch_size"_s, u"2"_s,
                   u"--block_size"_s, u"32"_s, u"--log_every"_s, u"1"_s, u"--json"_s, u"--save_final"_s, file},
                  QProcessEnvironment::systemEnvironment(), {}, 120'000);
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const auto saved = fathom::io::readSafetensors(file.toStdString());
    QVERIFY(!saved.tensors.empty());
    QCOMPARE(QString::fromStdString(saved.tensors.front().first), u"transformer.wte.weight"_s);
    QCOMPARE(QString::fromStdString(saved.metadata.at("fathom.steps")), u"3"_s);
  }

private:
  QTemporaryDir m_workspaceDir;
};

QTEST_GUILESS_MAIN(TrainCliTest)
#include "tst_train_cli.moc"
