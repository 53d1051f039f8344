// SPDX-License-Identifier: Apache-2.0
// `fathom train --json`'s throughput and CUDA memory fields (docs/train.md), what tests/gpu/check.sh reads on a GPU
// machine: tokens_per_second = samples_per_second × block_size for the gpt models (null for the mlp), and
// cuda_memory, the CUDA caching allocator's peaks, reported as absent with the reason on a CPU device, in the
// summary and in every rank's --stats_json entry.
#include "cli_runner.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace Qt::StringLiterals;
using fathom::test::runFathom;

namespace {

QJsonObject readObject(const QString& path) {
  QFile file(path);
  return file.open(QIODevice::ReadOnly) ? QJsonDocument::fromJson(file.readAll()).object() : QJsonObject{};
}

bool closeTo(double a, double b) {
  return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b));
}

}  // namespace

class TrainThroughputTest : public QObject {
  Q_OBJECT

private slots:
  void initTestCase() {
    QVERIFY(m_workspaceDir.isValid());
    fathom::test::useWorkspaceIn(m_workspaceDir);
  }

  void gptCountsBlockSizeTokensPerSample() {
    QTemporaryDir dir;
    const QString stats = dir.filePath(u"stats.json"_s);
    const auto run = runFathom({u"train"_s, u"--model"_s, u"gpt-tiny"_s, u"--steps"_s, u"3"_s, u"--batch_size"_s,
                                u"3"_s, u"--block_size"_s, u"32"_s, u"--log_every"_s, u"0"_s, u"--json"_s, u"--cpu"_s,
                                u"--stats_json"_s, stats},
                               QProcessEnvironment::systemEnvironment(), {}, 120'000);
    QVERIFY2(run.exitCode == 0, qPrintable(fathom::test::describe(run)));
    const QJsonObject summary = fathom::test::trainSummary(run.out);
    QVERIFY2(!summary.isEmpty(), run.out.constData());
    const double stepsPerSecond = summary.value(u"steps_per_second"_s).toDouble();
    QVERIFY2(stepsPerSecond > 0, run.out.constData());
    QVERIFY(closeTo(summary.value(u"samples_per_second"_s).toDouble(), stepsPerSecond * 3));
    // 3 samples of 32 tokens per step (the text dataset's windows are block_size tokens).
    QVERIFY2(summary.value(u"tokens_per_second"_s).isDouble(), run.out.constData());
    QVERIFY(closeTo(summary.value(u"tokens_per_second"_s).toDouble(), stepsPerSecond * 3 * 32));

    const QJsonObject cuda = summary.value(u"cuda_memory"_s).toObject();
    QCOMPARE(cuda.value(u"available"_s).toBool(true), false);
    QCOMPARE(cuda.value(u"reason"_s).toString(), u"the device is cpu"_s);
    QVERIFY(!cuda.contains(u"max_memory_allocated"_s));

    const QJsonArray ranks = readObject(stats).value(u"ranks"_s).toArray();
    const QString idProblem = fathom::test::statsRanksProblem(ranks, 1);
    QVERIFY2(idProblem.isEmpty(), qPrintable(idProblem));
    QCOMPARE(ranks.at(0).toObject().value(u"cuda_memory"_s).toObject(), cuda);
  }

  void mlpHasNoTokens() {
    const auto run = runFathom({u"train"_s, u"--model"_s, u"mlp"_s, u"--hidden"_s, u"16"_s, u"--steps"_s, u"2"_s,
                                u"--log_every"_s, u"0"_s, u"--json"_s, u"--cpu"_s},
                               QProcessEnvironment::systemEnvironment(), {}, 120'000);
    QVERIFY2(run.exitCode == 0, qPrintable(fathom::test::describe(run)));
    const QJsonObject summary = fathom::test::trainSummary(run.out);
    QVERIFY2(summary.contains(u"tokens_per_second"_s), run.out.constData());
    QVERIFY(summary.value(u"tokens_per_second"_s).isNull());
    QVERIFY(summary.value(u"samples_per_second"_s).toDouble() > 0);
    QCOMPARE(summary.value(u"cuda_memory"_s).toObject().value(u"available"_s).toBool(true), false);
  }

  void cudaPeaksCoverTheModelState() {
    // Without --cpu a GPU is used when there is one; where there is none the summary says so, and this is skipped.
    const auto run = runFathom(
        {u"train"_s, u"--model"_s, u"gpt-tiny"_s, u"--steps"_s, u"2"_s, u"--log_every"_s, u"0"_s, u"--json"_s},
        QProcessEnvironment::systemEnvironment(), {}, 120'000);
    QVERIFY2(run.exitCode == 0, qPrintable(fathom::test::describe(run)));
    const QJsonObject summary = fathom::test::trainSummary(run.out);
    const QJsonObject cuda = summary.value(u"cuda_memory"_s).toObject();
    if (!cuda.value(u"available"_s).toBool()) {
      QSKIP(qPrintable(u"no CUDA peaks here: "_s + cuda.value(u"reason"_s).toString()));
    }
    // Parameters, gradients and AdamW's two moments are all live after the last step: the peak holds at least them.
    const QJsonObject memory = summary.value(u"memory"_s).toObject();
    const qint64 modelState = memory.value(u"parameters"_s).toInteger() + memory.value(u"gradients"_s).toInteger() +
                              memory.value(u"optimizer_states"_s).toInteger();
    QVERIFY(modelState > 0);
    const qint64 peak = cuda.value(u"max_memory_allocated"_s).toInteger();
    QVERIFY2(peak >= modelState, qPrintable(u"peak %1 < model state %2"_s.arg(peak).arg(modelState)));
    QVERIFY(cuda.value(u"max_memory_reserved"_s).toInteger() >= peak);
    QVERIFY(cuda.value(u"memory_allocated"_s).toInteger() <= peak);
    QVERIFY(cuda.value(u"device"_s).toString().startsWith(u"cuda:"_s));
  }

private:
  QTemporaryDir m_workspaceDir;
};

QTEST_GUILESS_MAIN(TrainThroughputTest)
#include "tst_train_throughput.moc"
