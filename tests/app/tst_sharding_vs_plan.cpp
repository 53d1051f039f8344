// SPDX-License-Identifier: Apache-2.0
// Issue 6, end to end: `fathom launch --num_processes N fathom train --model gpt-tiny --strategy S` on 2 and 4
// Gloo processes, for every strategy and offload variant, against the same run under DDP and against
// `fathom plan` for the same model and plan. Every strategy runs on 2 and on 4 ranks (the hybrid ones as 2 shard
// groups of 2, on 4), each offload variant once, on 2 or on 4 ranks: offload moves the same layout's shards to the
// host, and the layouts of both world sizes are checked by the strategies themselves. Each run checks:
// - every rank's loss at each of 20 steps equals DDP's within 1e-5 (float32) or 1e-2 (bf16 autocast), and the
//   final parameters (--save_final, FULL_STATE_DICT gathered on rank 0) equal DDP's within 1e-4;
// - every rank's parameter / gradient / optimizer-state / master-weight bytes (--stats_json, on the device and
//   offloaded to the host) equal the planner's per-rank prediction exactly;
// - every step's collectives (calls and bytes per kind, as the Comm layer recorded them) equal the planner's.
// docs/sharding.md and docs/planner.md ("Exact layout for built-in models").
#include "cli_runner.h"

#include <fathom/io/safetensors.h>

#include <ATen/ATen.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <map>

using namespace Qt::StringLiterals;
using fathom::test::runFathom;

namespace {

struct Variant {
  QString name;
  QStringList train;  ///< fathom train flags
  QStringList plan;   ///< fathom plan flags for the same plan
  int onlyRanks = 0;  ///< 0: run on 2 and 4 ranks, else on this many only
};

QList<Variant> variants() {
  const QStringList fsdp{u"--strategy"_s, u"fsdp"_s};
  return {
      {u"fsdp full_shard"_s, fsdp + QStringList{u"--fsdp_sharding_strategy"_s, u"FULL_SHARD"_s},
       fsdp + QStringList{u"--fsdp_sharding_strategy"_s, u"full_shard"_s}},
      {u"fsdp shard_grad_op"_s, fsdp + QStringList{u"--fsdp_sharding_strategy"_s, u"SHARD_GRAD_OP"_s},
       fsdp + QStringList{u"--fsdp_sharding_strategy"_s, u"shard_grad_op"_s}},
      {u"fsdp no_shard"_s, fsdp + QStringList{u"--fsdp_sharding_strategy"_s, u"NO_SHARD"_s},
       fsdp + QStringList{u"--fsdp_sharding_strategy"_s, u"no_shard"_s}},
      {u"fsdp hybrid_shard 2x2"_s,
       fsdp + QStringList{u"--fsdp_sharding_strategy"_s, u"HYBRID_SHARD"_s, u"--fsdp_hybrid_group_size"_s, u"2"_s},
       fsdp + QStringList{u"--fsdp_sharding_strategy"_s, u"hybrid_shard"_s, u"--gpus_per_node"_s, u"2"_s}, 4},
      {u"fsdp hybrid_shard_zero2 2x2"_s,
       fsdp +
           QStringList{u"--fsdp_sharding_strategy"_s, u"HYBRID_SHARD_ZERO2"_s, u"--fsdp_hybrid_group_size"_s, u"2"_s},
       fsdp + QStringList{u"--fsdp_sharding_strategy"_s, u"hybrid_shard_zero2"_s, u"--gpus_per_node"_s, u"2"_s}, 4},
      {u"fsdp full_shard offload"_s, fsdp + QStringList{u"--fsdp_offload_params"_s, u"true"_s},
       fsdp + QStringList{u"--offload_params"_s, u"--offload_optimizer"_s}, 4},
      {u"zero1"_s, {u"--strategy"_s, u"zero1"_s}, {u"--strategy"_s, u"zero1"_s}},
      {u"zero1 offload"_s,
       {u"--strategy"_s, u"zero1"_s, u"--offload_optimizer_device"_s, u"cpu"_s},
       {u"--strategy"_s, u"zero1"_s, u"--offload_optimizer"_s},
       2},
      {u"zero2"_s, {u"--strategy"_s, u"zero2"_s}, {u"--strategy"_s, u"zero2"_s}},
      {u"zero2 buckets"_s,
       {u"--strategy"_s, u"zero2"_s, u"--zero_reduce_bucket_size"_s, u"20000"_s},
       {u"--strategy"_s, u"zero2"_s, u"--zero_bucket_size"_s, u"20000"_s}},
      {u"zero2 offload"_s,
       {u"--strategy"_s, u"zero2"_s, u"--offload_optimizer_device"_s, u"cpu"_s},
       {u"--strategy"_s, u"zero2"_s, u"--offload_optimizer"_s},
       4},
      {u"zero3"_s, {u"--strategy"_s, u"zero3"_s}, {u"--strategy"_s, u"zero3"_s}},
      {u"zero3 offload optimizer"_s,
       {u"--strategy"_s, u"zero3"_s, u"--offload_optimizer_device"_s, u"cpu"_s},
       {u"--strategy"_s, u"zero3"_s, u"--offload_optimizer"_s},
       2},
      {u"zero3 offload all"_s,
       {u"--strategy"_s, u"zero3"_s, u"--offload_optimizer_device"_s, u"cpu"_s, u"--offload_param_device"_s, u"cpu"_s},
       {u"--strategy"_s, u"zero3"_s, u"--offload_optimizer"_s, u"--offload_params"_s},
       4},
  };
}

qint64 integer(const QJsonObject& object, const char* key) {
  return static_cast<qint64>(object.value(QLatin1StringView(key)).toDouble(-1));
}

struct Trained {
  QJsonObject stats;
  std::map<std::string, at::Tensor> params;
};

/// Runs gpt-tiny for 20 steps on `ranks` processes; QVERIFYs inside fail the calling test.
Trained train(const QTemporaryDir& dir, const QString& tag, int ranks, const QStringList& flags,
              const QString& precision = u"no"_s) {
  const QString stats = dir.filePath(tag + u".json"_s);
  const QString weights = dir.filePath(tag + u".safetensors"_s);
  const QStringList args =
      QStringList{
          u"launch"_s, u"--num_processes"_s, QString::number(ranks),           u"--num_cpu_threads_per_process"_s,
          u"1"_s,      u"--quiet"_s,         fathom::test::fathomExecutable(), u"train"_s} +
      flags + QStringList{u"--model"_s,
                          u"gpt-tiny"_s,
                          u"--optimizer"_s,
                          u"adamw"_s,
                          u"--steps"_s,
                          u"20"_s,
                          u"--seed"_s,
                          u"0"_s,
                          u"--log_every"_s,
                          u"0"_s,
                          u"--mixed_precision"_s,
                          precision,
                          u"--stats_json"_s,
                          stats,
                          u"--save_final"_s,
                          weights,
                          u"--workspace"_s,
                          dir.filePath(u"ws.sqlite"_s)};
  const auto run = runFathom(args, QProcessEnvironment::systemEnvironment(), {}, 300'000);
  Trained t;
  if (run.exitCode != 0) {
    qWarning().noquote() << tag << run.out << run.err;
    return t;
  }
  QFile file(stats);
  if (file.open(QIODevice::ReadOnly))
    t.stats = QJsonDocument::fromJson(file.readAll()).object();
  for (auto& [name, tensor] : fathom::io::readSafetensors(weights.toStdString()).tensors)
    t.params[name] = tensor;
  return t;
}

double maxLossDiff(const QJsonObject& a, const QJsonObject& b) {
  double diff = 0;
  const QJsonArray ra = a.value(u"ranks"_s).toArray();
  const QJsonArray rb = b.value(u"ranks"_s).toArray();
  for (qsizetype r = 0; r < std::min(ra.size(), rb.size()); ++r) {
    const QJsonArray sa = ra[r].toObject().value(u"steps"_s).toArray();
    const QJsonArray sb = rb[r].toObject().value(u"steps"_s).toArray();
    if (sa.size() != sb.size() || sa.isEmpty())
      return INFINITY;
    for (qsizetype i = 0; i < sa.size(); ++i)
      diff = std::max(
          diff, std::abs(sa[i].toObject().value(u"loss"_s).toDouble() - sb[i].toObject().value(u"loss"_s).toDouble()));
  }
  return ra.size() == rb.size() ? diff : INFINITY;
}

double maxParamDiff(const Trained& a, const Trained& b) {
  if (a.params.size() != b.params.size() || a.params.empty())
    return INFINITY;
  double diff = 0;
  for (const auto& [name, t] : a.params) {
    const auto it = b.params.find(name);
    if (it == b.params.end() || it->second.sizes() != t.sizes())
      return INFINITY;
    diff = std::max(diff, (it->second - t).abs().max().item<double>());
  }
  return diff;
}

}  // namespace

class ShardingVsPlanTest : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  std::map<int, Trained> m_ddp;

  const Trained& ddp(int ranks) {
    if (!m_ddp.count(ranks))
      m_ddp[ranks] = train(m_dir, u"ddp-%1"_s.arg(ranks), ranks, {u"--strategy"_s, u"ddp"_s});
    return m_ddp[ranks];
  }

private slots:
  void strategies_data() {
    QTest::addColumn<int>("ranks");
    QTest::addColumn<int>("variant");
    const auto all = variants();
    for (int ranks : {2, 4}) {
      for (int i = 0; i < all.size(); ++i) {
        if (all[i].onlyRanks == 0 || all[i].onlyRanks == ranks)
          QTest::newRow(qPrintable(u"%1 ranks, %2"_s.arg(ranks).arg(all[i].name))) << ranks << i;
      }
    }
  }

  void strategies() {
    QFETCH(int, ranks);
    QFETCH(int, variant);
    const Variant v = variants()[variant];
    // The planner, for the same model and plan (fp32, AdamW, fathom train's micro-batch of 8), predicts while the
    // runs train: a process of its own, read once they are done.
    const QStringList planArgs =
        QStringList{u"plan"_s, u"--model"_s, u"gpt-tiny"_s} + v.plan +
        QStringList{u"--num_gpus"_s, QString::number(ranks), u"--precision"_s, u"fp32"_s,          u"--optimizer"_s,
                    u"adamw"_s,      u"--hardware"_s,        u"cpu-host"_s,    u"--micro_batch"_s, u"8"_s,
                    u"--json"_s};
    QProcess planner;
    planner.start(fathom::test::fathomExecutable(), planArgs);
    const Trained& reference = ddp(ranks);
    QVERIFY2(!reference.stats.isEmpty(), "the DDP reference run failed");
    const Trained run = train(m_dir, u"v%1-%2"_s.arg(variant).arg(ranks), ranks, v.train);
    QVERIFY2(!run.stats.isEmpty(), "the run failed");
    const double lossDiff = maxLossDiff(run.stats, reference.stats);
    const double paramDiff = maxParamDiff(run, reference);
    qInfo().noquote()
        << u"%1 ranks, %2: max loss diff %3, max parameter diff %4"_s.arg(ranks).arg(v.name).arg(lossDiff).arg(
               paramDiff);
    QVERIFY2(lossDiff <= 1e-5, qPrintable(u"loss differs from DDP by %1"_s.arg(lossDiff)));
    QVERIFY2(paramDiff <= 1e-4, qPrintable(u"parameters differ from DDP by %1"_s.arg(paramDiff)));

    QVERIFY2(planner.waitForFinished(60'000), "fathom plan did not finish");
    const QByteArray plannedOut = planner.readAllStandardOutput();
    QVERIFY2(planner.exitStatus() == QProcess::NormalExit && planner.exitCode() == 0,
             (plannedOut + planner.readAllStandardError()).constData());
    const QJsonObject prediction = QJsonDocument::fromJson(plannedOut).object();
    const QJsonObject perRank = prediction.value(u"memory"_s).toObject().value(u"per_rank_bytes"_s).toObject();
    const QJsonObject offloaded =
        prediction.value(u"memory"_s).toObject().value(u"offloaded_per_rank_bytes"_s).toObject();
    std::map<QString, std::pair<qint64, qint64>> predictedComm;  // kind -> (calls, bytes) per step
    for (const QJsonValue& value : prediction.value(u"communication"_s).toObject().value(u"collectives"_s).toArray()) {
      auto& [calls, bytes] = predictedComm[value.toObject().value(u"kind"_s).toString()];
      calls += integer(value.toObject(), "count");
      bytes += integer(value.toObject(), "bytes");
    }

    const QJsonArray rankEntries = run.stats.value(u"ranks"_s).toArray();
    const QString idProblem = fathom::test::statsRanksProblem(rankEntries, ranks);  // one entry per rank, ids distinct
    QVERIFY2(idProblem.isEmpty(), qPrintable(idProblem));
    for (const QJsonValue& entry : rankEntries) {
      const QJsonObject bytes = entry.toObject().value(u"bytes"_s).toObject();
      const QJsonObject host = bytes.value(u"offloaded"_s).toObject();
      for (const char* key : {"parameters", "gradients", "optimizer_states", "master_weights"}) {
        QVERIFY2(integer(bytes, key) == integer(perRank, key),
                 qPrintable(u"rank %1 %2: measured %3, planned %4"_s.arg(entry.toObject().value(u"rank"_s).toInt())
                                .arg(QLatin1StringView(key))
                                .arg(integer(bytes, key))
                                .arg(integer(perRank, key))));
        const qint64 plannedHost = offloaded.contains(QLatin1StringView(key)) ? integer(offloaded, key) : 0;
        QVERIFY2(integer(host, key) == plannedHost, qPrintable(u"rank %1 offloaded %2: measured %3, planned %4"_s
                                                                   .arg(entry.toObject().value(u"rank"_s).toInt())
                                                                   .arg(QLatin1StringView(key))
                                                                   .arg(integer(host, key))
                                                                   .arg(plannedHost)));
      }
      for (const QJsonValue& step : entry.toObject().value(u"steps"_s).toArray()) {
        std::map<QString, std::pair<qint64, qint64>> measured;
        for (const QJsonValue& c : step.toObject().value(u"collectives"_s).toArray())
          measured[c.toObject().value(u"kind"_s).toString()] = {integer(c.toObject(), "count"),
                                                                integer(c.toObject(), "bytes")};
        for (const auto& [kind, planned] : predictedComm) {
          QVERIFY2(measured[kind] == planned, qPrintable(u"step %1 %2: measured %3 calls %4 B, planned %5 calls %6 B"_s
                                                             .arg(step.toObject().value(u"step"_s).toInt())
                                                             .arg(kind)
                                                             .arg(measured[kind].first)
                                                             .arg(measured[kind].second)
                                                             .arg(planned.first)
                                                             .arg(planned.second)));
        }
        QCOMPARE(measured.size(), predictedComm.size());
      }
    }
  }

  void bf16() {
    // Accelerate's bf16 mixed precision (autocast, float32 parameters) under FSDP and ZeRO-3 on 2 ranks.
    const Trained reference = train(m_dir, u"ddp-bf16"_s, 2, {u"--strategy"_s, u"ddp"_s}, u"bf16"_s);
    QVERIFY2(!reference.stats.isEmpty(), "the DDP bf16 run failed");
    for (const QStringList& flags : {QStringList{u"--strategy"_s, u"fsdp"_s}, QStringList{u"--strategy"_s, u"zero3"_s},
                                     QStringList{u"--strategy"_s, u"zero2"_s}}) {
      const Trained run = train(m_dir, u"bf16-"_s + flags.last(), 2, flags, u"bf16"_s);
      QVERIFY2(!run.stats.isEmpty(), qPrintable(flags.join(u' ')));
      const double lossDiff = maxLossDiff(run.stats, reference.stats);
      qInfo().noquote() << u"bf16 %1: max loss diff %2, max parameter diff %3"_s.arg(flags.last())
                               .arg(lossDiff)
                               .arg(maxParamDiff(run, reference));
      QVERIFY2(lossDiff <= 1e-2, qPrintable(u"%1: bf16 loss differs from DDP by %2"_s.arg(flags.last()).arg(lossDiff)));
    }
  }
};

QTEST_GUILESS_MAIN(ShardingVsPlanTest)
#include "tst_sharding_vs_plan.moc"
