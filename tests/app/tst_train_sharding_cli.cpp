// SPDX-License-Identifier: Apache-2.0
// `fathom train --strategy ... --fsdp_* / ZeRO flags` (validated before anything trains) and `--stats_json` (one
// object, written by rank 0, with each rank's model-state bytes and per-step losses and collectives).
// docs/sharding.md, "Configuration and flags".
#include "cli_runner.h"

#include <QDir>
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

QJsonObject readJson(const QString& path) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) {
    return {};
  }
  return QJsonDocument::fromJson(file.readAll()).object();
}

const QStringList kTiny{u"train"_s,       u"--model"_s, u"gpt-tiny"_s,    u"--batch_size"_s, u"4"_s,
                        u"--log_every"_s, u"0"_s,       u"--optimizer"_s, u"adamw"_s};

// gpt-tiny: 112,384 fp32 parameters (docs/planner.md).
constexpr double kTinyBytes = 112'384.0 * 4;

}  // namespace

class TrainShardingCliTest : public QObject {
  Q_OBJECT

private slots:
  // Every `fathom train`/`launch` of this test writes its workspace here, not into the test's directory.
  void initTestCase() {
    QVERIFY(m_workspaceDir.isValid());
    fathom::test::useWorkspaceIn(m_workspaceDir);
  }

  void badShardingFlagsAreUsageErrors_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("variable");  // NAME=VALUE set for the run, or empty
    QTest::addColumn<QString>("message");
    QTest::newRow("unknown strategy") << QStringList{u"--strategy"_s, u"fsdp2"_s} << QString()
                                      << u"--strategy: invalid strategy 'fsdp2'"_s;
    QTest::newRow("unknown sharding strategy")
        << QStringList{u"--strategy"_s, u"fsdp"_s, u"--fsdp_sharding_strategy"_s, u"6"_s} << QString()
        << u"--fsdp_sharding_strategy: invalid fsdp_sharding_strategy '6'"_s;
    QTest::newRow("bad wrap policy") << QStringList{u"--strategy"_s, u"fsdp"_s, u"--fsdp_auto_wrap_policy"_s,
                                                    u"LAMBDA"_s}
                                     << QString() << u"--fsdp_auto_wrap_policy: invalid fsdp_auto_wrap_policy"_s;
    QTest::newRow("bad bool") << QStringList{u"--strategy"_s, u"fsdp"_s, u"--fsdp_forward_prefetch"_s, u"maybe"_s}
                              << QString() << u"--fsdp_forward_prefetch 'maybe' is not a boolean"_s;
    QTest::newRow("fsdp flag under ddp") << QStringList{u"--fsdp_min_num_params"_s, u"10"_s} << QString()
                                         << u"given without --strategy fsdp"_s;
    QTest::newRow("fsdp flag with zero") << QStringList{u"--strategy"_s, u"zero2"_s, u"--fsdp_offload_params"_s,
                                                        u"true"_s}
                                         << QString() << u"apply to --strategy fsdp, not ZeRO"_s;
    QTest::newRow("zero flag with fsdp") << QStringList{u"--strategy"_s, u"fsdp"_s, u"--offload_optimizer_device"_s,
                                                        u"cpu"_s}
                                         << QString() << u"apply to ZeRO, not FSDP"_s;
    QTest::newRow("param offload below stage 3")
        << QStringList{u"--strategy"_s, u"zero2"_s, u"--offload_param_device"_s, u"cpu"_s} << QString()
        << u"needs zero_stage 3"_s;
    QTest::newRow("bad offload device") << QStringList{u"--strategy"_s, u"zero1"_s, u"--offload_optimizer_device"_s,
                                                       u"gpu"_s}
                                        << QString() << u"--offload_optimizer_device: invalid offload device 'gpu'"_s;
    QTest::newRow("zero bucket") << QStringList{u"--strategy"_s, u"zero1"_s, u"--zero_reduce_bucket_size"_s, u"0"_s}
                                 << QString() << u"--zero_reduce_bucket_size must be >= 1"_s;
    QTest::newRow("hybrid group") << QStringList{u"--strategy"_s, u"fsdp"_s, u"--fsdp_hybrid_group_size"_s, u"0"_s}
                                  << QString() << u"--fsdp_hybrid_group_size must be >= 1"_s;
    // The launcher's variables are read (and checked) for --strategy fsdp and under ACCELERATE_USE_FSDP.
    QTest::newRow("bad launcher variable") << QStringList{u"--strategy"_s, u"fsdp"_s} << u"FSDP_MIN_NUM_PARAMS=1e8"_s
                                           << u"FSDP_MIN_NUM_PARAMS='1e8' is not a non-negative integer"_s;
    QTest::newRow("fsdp flag adjusting a bad launcher")
        << QStringList{u"--fsdp_min_num_params"_s, u"10"_s} << u"ACCELERATE_USE_FSDP=maybe"_s
        << u"given without --strategy fsdp"_s;
  }

  void badShardingFlagsAreUsageErrors() {
    QFETCH(QStringList, args);
    QFETCH(QString, variable);
    QFETCH(QString, message);
    QProcessEnvironment env = fathom::test::launcherFreeEnvironment();
    if (!variable.isEmpty()) {
      env.insert(variable.section(u'=', 0, 0), variable.section(u'=', 1));
    }
    const auto run = runFathom(kTiny + QStringList{u"--steps"_s, u"1"_s} + args, env);
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains(message.toUtf8()), run.err.constData());
    QVERIFY2(!run.out.contains("step "), run.out.constData());  // nothing trained
  }

  void statsJsonInOneProcess() {
    QTemporaryDir dir;
    const QString path = dir.filePath(u"stats.json"_s);
    const auto run = runFathom(
        kTiny + QStringList{u"--steps"_s, u"3"_s, u"--gradient_accumulation_steps"_s, u"2"_s, u"--stats_json"_s, path},
        fathom::test::launcherFreeEnvironment(), {}, 120'000);
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QJsonObject stats = readJson(path);
    QCOMPARE(stats[u"strategy"_s].toString(), u"ddp"_s);
    QCOMPARE(stats[u"world_size"_s].toInt(), 1);
    const QJsonArray ranks = stats[u"ranks"_s].toArray();
    const QString idProblem = fathom::test::statsRanksProblem(ranks, 1);
    QVERIFY2(idProblem.isEmpty(), qPrintable(idProblem));
    const QJsonObject rank = ranks[0].toObject();
    QCOMPARE(rank[u"rank"_s].toInt(), 0);
    const QJsonObject bytes = rank[u"bytes"_s].toObject();
    QCOMPARE(bytes[u"parameters"_s].toDouble(), kTinyBytes);
    QCOMPARE(bytes[u"gradients"_s].toDouble(), kTinyBytes);
    QCOMPARE(bytes[u"optimizer_states"_s].toDouble(), 2 * kTinyBytes);  // AdamW: two fp32 moments
    QCOMPARE(bytes[u"master_weights"_s].toDouble(), 0.0);
    QCOMPARE(bytes[u"offloaded"_s].toObject()[u"parameters"_s].toDouble(), 0.0);
    QVERIFY(bytes.contains(u"peak_gathered_parameters"_s));
    const QJsonArray steps = rank[u"steps"_s].toArray();
    QCOMPARE(steps.size(), 3);
    double previous = -1;
    for (int i = 0; i < steps.size(); ++i) {
      const QJsonObject step = steps[i].toObject();
      QCOMPARE(step[u"step"_s].toInt(), i + 1);
      const double loss = step[u"loss"_s].toDouble();
      QVERIFY2(std::isfinite(loss) && loss > 0 && loss != previous, qPrintable(QString::number(loss)));
      previous = loss;
      QCOMPARE(step[u"collectives"_s].toArray().size(), 0);  // one process: nothing communicated
    }
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{u"stats.json"_s});  // no temporary left
  }

  void statsJsonGathersEveryRank() {
    QTemporaryDir dir;
    const QString path = dir.filePath(u"stats.json"_s);
    const auto run = runFathom(
        QStringList{u"launch"_s, u"--num_processes"_s, u"2"_s, u"--quiet"_s, fathom::test::fathomExecutable()} + kTiny +
            QStringList{u"--steps"_s, u"2"_s, u"--stats_json"_s, path},
        fathom::test::launcherFreeEnvironment(), {}, 180'000);
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QJsonObject stats = readJson(path);
    QCOMPARE(stats[u"strategy"_s].toString(), u"ddp"_s);
    QCOMPARE(stats[u"world_size"_s].toInt(), 2);
    const QJsonArray ranks = stats[u"ranks"_s].toArray();
    const QString idProblem = fathom::test::statsRanksProblem(ranks, 2);  // one entry per rank, ids distinct
    QVERIFY2(idProblem.isEmpty(), qPrintable(idProblem));
    double firstLoss[2] = {0, 0};
    for (int r = 0; r < 2; ++r) {
      const QJsonObject rank = ranks[r].toObject();
      QCOMPARE(rank[u"rank"_s].toInt(), r);
      QCOMPARE(rank[u"bytes"_s].toObject()[u"parameters"_s].toDouble(), kTinyBytes);
      const QJsonArray steps = rank[u"steps"_s].toArray();
      QCOMPARE(steps.size(), 2);
      firstLoss[r] = steps[0].toObject()[u"loss"_s].toDouble();
      for (const auto& item : steps) {
        // DDP: gpt-tiny's gradients in one bucket, all-reduced once per step (what `fathom plan` predicts).
        const QJsonArray collectives = item.toObject()[u"collectives"_s].toArray();
        QCOMPARE(collectives.size(), 1);
        const QJsonObject c = collectives[0].toObject();
        QCOMPARE(c[u"kind"_s].toString(), u"all_reduce"_s);
        QCOMPARE(c[u"count"_s].toInt(), 1);
        QCOMPARE(c[u"bytes"_s].toDouble(), kTinyBytes);
      }
    }
    QVERIFY2(firstLoss[0] != firstLoss[1], "each rank reports its own loss");  // different batches
  }

  // The launcher's configuration decides under --strategy ddp (Accelerate's semantics); --strategy zeroN and the
  // FSDP flags win over it (docs/sharding.md). Checked through what each run reports in --stats_json.
  void configFileAndFlagsSelectTheStrategy() {
    QTemporaryDir dir;
    const auto write = [&](const QString& name, const QByteArray& text) {
      QFile file(dir.filePath(name));
      return file.open(QIODevice::WriteOnly) && file.write(text) == text.size();
    };
    QVERIFY(write(u"ds.yaml"_s, "distributed_type: DEEPSPEED\nnum_processes: 2\ndeepspeed_config:\n  zero_stage: 3\n"));
    QVERIFY(write(u"fsdp.yaml"_s, "distributed_type: FSDP\nnum_processes: 2\nfsdp_config:\n"
                                  "  fsdp_sharding_strategy: NO_SHARD\n"));
    const QString path = dir.filePath(u"stats.json"_s);
    const auto run = [&](const QString& config, const QStringList& extra) {
      QFile::remove(path);
      const auto r = runFathom(QStringList{u"launch"_s, u"--config_file"_s, dir.filePath(config), u"--quiet"_s,
                                           fathom::test::fathomExecutable()} +
                                   kTiny + QStringList{u"--steps"_s, u"1"_s, u"--stats_json"_s, path} + extra,
                               fathom::test::launcherFreeEnvironment(), {}, 180'000);
      if (r.exitCode != 0) {
        qWarning().noquote() << r.err;
      }
      return readJson(path);
    };
    const auto parameters = [](const QJsonObject& stats) {
      return stats[u"ranks"_s].toArray()[0].toObject()[u"bytes"_s].toObject()[u"parameters"_s].toDouble();
    };
    // ZeRO-3 from the file: each rank holds its parameter shard (112,384 / 2 elements).
    QJsonObject stats = run(u"ds.yaml"_s, {});
    QCOMPARE(stats[u"strategy"_s].toString(), u"zero3"_s);
    QCOMPARE(stats[u"world_size"_s].toInt(), 2);
    QCOMPARE(parameters(stats), kTinyBytes / 2);
    // An explicit stage wins over the file's.
    stats = run(u"ds.yaml"_s, {u"--strategy"_s, u"zero1"_s});
    QCOMPARE(stats[u"strategy"_s].toString(), u"zero1"_s);
    QCOMPARE(parameters(stats), kTinyBytes);
    // FSDP NO_SHARD from the file, kept by an explicit --strategy ddp; a flag adjusts it.
    stats = run(u"fsdp.yaml"_s, {u"--strategy"_s, u"ddp"_s});
    QCOMPARE(stats[u"strategy"_s].toString(), u"fsdp"_s);
    QCOMPARE(parameters(stats), kTinyBytes);
    stats = run(u"fsdp.yaml"_s, {u"--fsdp_sharding_strategy"_s, u"FULL_SHARD"_s});
    QCOMPARE(stats[u"strategy"_s].toString(), u"fsdp"_s);
    QCOMPARE(parameters(stats), kTinyBytes / 2);
  }

private:
  QTemporaryDir m_workspaceDir;
};

QTEST_GUILESS_MAIN(TrainShardingCliTest)
#include "tst_train_sharding_cli.moc"
