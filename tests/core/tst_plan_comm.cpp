// SPDX-License-Identifier: Apache-2.0
// Communication per optimizer step: ZeRO §7 volume claims, FSDP §3.2 cross-host traffic, Megatron TP/SP, and the
// alpha-beta ring/tree model. Buffer bytes follow the Comm layer's definition (the whole buffer per call).
#include "plan_test_support.h"

#include <fathom/plan/comm_model.h>
#include <fathom/plan/predict.h>

#include <QTest>

#include <cmath>

using namespace fathom::plan;

namespace {

bool close(double a, double b, double rel = 1e-9) {
  return std::fabs(a - b) <= rel * std::max(std::fabs(a), std::fabs(b));
}

double total(const Prediction& p, CollectiveKind kind) {
  double bytes = 0;
  for (const auto& c : p.communication.collectives) {
    bytes += c.kind == kind ? c.bytes : 0.0;
  }
  return bytes;
}

Plan zeroPlan(Strategy s, int gpus) {
  Plan p;
  p.strategy = s;
  p.numGpus = gpus;
  p.precision = Precision::Fp16;
  p.optimizer = Optimizer::Adam;
  p.bytes = BytesConvention::Zero;
  return p;
}

/// "kind purpose: bytes/count" for every collective, in order: the exact-layout tests compare whole lists.
QStringList collectiveList(const Prediction& p) {
  QStringList out;
  for (const auto& c : p.communication.collectives) {
    out << QStringLiteral("%1 %2: %3/%4 g%5")
               .arg(QString::fromLatin1(toString(c.kind)), QString::fromStdString(c.purpose))
               .arg(c.bytes, 0, 'f', 0)
               .arg(c.count)
               .arg(c.groupSize);
  }
  return out;
}

Plan tinyPlan(Strategy s, int gpus, int accumulation = 1) {
  Plan p;
  p.strategy = s;
  p.numGpus = gpus;
  p.gradAccum = accumulation;
  p.precision = Precision::Fp32;
  p.optimizer = Optimizer::AdamW;
  p.microBatch = 8;
  p.seqLen = 64;
  return p;
}

}  // namespace

class TestPlanComm : public QObject {
  Q_OBJECT

private slots:
  void zeroCommunicationVolume() {
    // ZeRO §7: DP all-reduce moves 2Ψ per rank; P_os and P_os+g move the same (reduce-scatter Ψ + all-gather Ψ);
    // P_os+g+p moves 3Ψ (1.5x). Ring-exact: multiply by (N-1)/N; fp16 elements are 2 bytes.
    const double psi = 7.5e9;
    const int n = 64;
    const auto model = modelFromParams(7'500'000'000LL);
    const auto hw = plantest::bigDevice();
    const auto ddp = predict(model, hw, zeroPlan(Strategy::Ddp, n));
    QVERIFY(close(total(ddp, CollectiveKind::AllReduce), 2 * psi));  // the buffer: Ψ fp16 elements
    QVERIFY(close(ddp.communication.bytesPerRankPerStep, 2.0 * (n - 1) / n * 2 * psi));
    for (Strategy s : {Strategy::Zero1, Strategy::Zero2}) {
      const auto z = predict(model, hw, zeroPlan(s, n));
      QVERIFY(close(total(z, CollectiveKind::ReduceScatter), 2 * psi));
      QVERIFY(close(total(z, CollectiveKind::AllGather), 2 * psi));
      QVERIFY(close(z.communication.bytesPerRankPerStep, ddp.communication.bytesPerRankPerStep));
    }
    const auto z3 = predict(model, hw, zeroPlan(Strategy::Zero3, n));
    QVERIFY(close(total(z3, CollectiveKind::AllGather), 2 * 2 * psi));
    QVERIFY(close(total(z3, CollectiveKind::ReduceScatter), 2 * psi));
    QVERIFY(close(z3.communication.bytesPerRankPerStep / ddp.communication.bytesPerRankPerStep, 1.5));
  }

  void fsdpCrossHostTraffic() {
    // FSDP paper §3.2, per-GPU traffic for an M-element model on W GPUs, G per host: replication 2M(W-1)/W,
    // full sharding 3M(W-1)/W, hybrid (shard inside a host, replicate across) 2M(W/G-1)/W across hosts.
    const double m = 1e9;
    const int w = 32, g = 8;
    const auto model = modelFromParams(1'000'000'000LL);
    const auto hw = plantest::bigDevice();
    Plan p;
    p.strategy = Strategy::Fsdp;
    p.numGpus = w;
    p.fsdpSharding = FsdpSharding::NoShard;
    const double e = 2;  // bf16 gathers and reductions
    QVERIFY(close(predict(model, hw, p).communication.bytesPerRankPerStep, 2 * m * (w - 1) / w * e));
    p.fsdpSharding = FsdpSharding::FullShard;
    QVERIFY(close(predict(model, hw, p).communication.bytesPerRankPerStep, 3 * m * (w - 1) / w * e));
    p.fsdpSharding = FsdpSharding::HybridShard;
    const auto hybrid = predict(model, hw, p);
    QVERIFY(!hybrid.communication.collectives.empty());
    double interNode = 0;
    for (const auto& c : hybrid.communication.collectives) {
      if (c.scope == Scope::InterNode) {
        interNode += c.bytesSentPerRank;
        QCOMPARE(c.groupSize, w / g);
      }
    }
    QVERIFY(close(interNode, 2 * m * (double(w) / g - 1) / w * e));
    // HYBRID_SHARD_ZERO2: the same traffic across hosts; inside a host SHARD_GRAD_OP's all-gather and reduce-scatter,
    // 2M(G-1)/G, instead of FULL_SHARD's 3M(G-1)/G.
    p.fsdpSharding = FsdpSharding::HybridShardZero2;
    const auto zero2 = predict(model, hw, p);
    QVERIFY(!zero2.communication.collectives.empty());
    double zero2InterNode = 0;
    for (const auto& c : zero2.communication.collectives) {
      zero2InterNode += c.scope == Scope::InterNode ? c.bytesSentPerRank : 0.0;
    }
    QVERIFY(close(zero2InterNode, interNode));
    QVERIFY(close(zero2.communication.bytesPerRankPerStep - zero2InterNode, 2 * m * (g - 1.0) / g * e));
    QVERIFY(close(hybrid.communication.bytesPerRankPerStep - interNode, 3 * m * (g - 1.0) / g * e));
  }

  void gradientAccumulation() {
    // DDP under Accelerate's accumulate(): one all-reduce per optimizer step. ZeRO-2 reduces every micro-step.
    const auto model = modelFromParams(1'000'000'000LL);
    const auto hw = plantest::bigDevice();
    Plan p = zeroPlan(Strategy::Ddp, 8);
    p.gradAccum = 4;
    QVERIFY(close(total(predict(model, hw, p), CollectiveKind::AllReduce), 2e9));
    p.gradSync = GradSync::EveryMicroStep;
    QVERIFY(close(total(predict(model, hw, p), CollectiveKind::AllReduce), 4 * 2e9));
    p = zeroPlan(Strategy::Zero2, 8);
    p.gradAccum = 4;
    QVERIFY(close(total(predict(model, hw, p), CollectiveKind::ReduceScatter), 4 * 2e9));
    QVERIFY(close(total(predict(model, hw, p), CollectiveKind::AllGather), 2e9));
  }

  void ddpBucketsAreCounted() {
    // PyTorch DDP: first bucket 1 MiB, then 25 MiB buckets; fp32 gradients (autocast) of 100M params.
    const auto model = modelFromParams(100'000'000LL);
    Plan p;
    p.numGpus = 2;
    p.masterWeights = MasterWeights::Autocast;
    const auto r = predict(model, plantest::bigDevice(), p);
    QCOMPARE(r.communication.collectives.size(), std::size_t(1));
    const auto& c = r.communication.collectives[0];
    QVERIFY(close(c.bytes, 4e8));
    QCOMPARE(c.count, 1 + static_cast<long long>(std::ceil((4e8 - (1 << 20)) / (25.0 * (1 << 20)))));
    QVERIFY(c.scope == Scope::IntraNode);
  }

  void tensorAndSequenceParallel() {
    // Megatron TP: 4 all-reduces of s·b·h per layer per micro-batch (+1 for the embedding); with SP each becomes an
    // all-gather plus a reduce-scatter of the same buffer (Korthikanti §4.2.2: same volume).
    const auto model = plantest::gptModel(4, 1024, 16);
    Plan p;
    p.numGpus = 4;
    p.tp = 4;
    p.seqLen = 1024;
    p.microBatch = 2;
    const auto hw = plantest::bigDevice();
    const auto tp = predict(model, hw, p);
    const double act = 1024.0 * 2 * 1024 * 2;
    QVERIFY(close(total(tp, CollectiveKind::AllReduce), act * (4 * 4 + 1)));
    p.sequenceParallel = true;
    const auto sp = predict(model, hw, p);
    QVERIFY(close(total(sp, CollectiveKind::AllGather), act * (4 * 4 + 1)));
    QVERIFY(close(total(sp, CollectiveKind::ReduceScatter), act * (4 * 4 + 1)));
    QVERIFY(close(sp.communication.bytesPerRankPerStep, tp.communication.bytesPerRankPerStep));
  }

  void megatronRecomputeAllReduces() {
    // ZeRO §8: Megatron with activation checkpointing all-reduces 12 × seq × hidden per block (per sample): six
    // all-reduces of s·h (two forward, two recompute-forward, two backward), each moving twice its size.
    const double s = 2048, h = 4096, b = 1, layers = 8;
    const int t = 8;
    const auto model = plantest::gptModel(8, 4096, 32);
    Plan p;
    p.numGpus = t;
    p.tp = t;
    p.seqLen = 2048;
    p.recompute = Recompute::Full;
    const auto r = predict(model, plantest::bigDevice(), p);
    const Collective* tp = nullptr;
    for (const auto& c : r.communication.collectives) {
      tp = c.purpose == "tp activations" ? &c : tp;
    }
    QVERIFY(tp != nullptr);
    const double e = 2;
    QCOMPARE(tp->count, static_cast<long long>(6 * layers + 1));  // + the embedding's forward all-reduce
    const double perBlock = (tp->bytesSentPerRank - 2.0 * (t - 1) / t * s * b * h * e) / layers;
    QVERIFY(close(perBlock, 12 * s * h * b * e * (t - 1) / t));
  }

  void alphaBeta() {
    const LinkSpec link{100e9, 5e-6};
    const double s = 1e9;
    QCOMPARE(collectiveTime(CollectiveKind::AllReduce, s, 1, link), 0.0);
    // Large message on 8 ranks: ring wins (2(N-1)/N < 2 bandwidth factor).
    QVERIFY(close(collectiveTime(CollectiveKind::AllReduce, s, 8, link), 2 * 7 * 5e-6 + 2.0 * 7 / 8 * s / 100e9));
    // Tiny message on 64 ranks: tree wins (2·log2 N latency steps instead of 2(N-1)).
    QVERIFY(close(collectiveTime(CollectiveKind::AllReduce, 8, 64, link), 2 * 6 * 5e-6 + 2 * 8 / 100e9));
    QVERIFY(close(collectiveTime(CollectiveKind::AllGather, s, 4, link), 3 * 5e-6 + 0.75 * s / 100e9));
    QVERIFY(close(collectiveTime(CollectiveKind::SendRecv, s, 2, link), 5e-6 + s / 100e9));
    QVERIFY(close(ringBytesSent(CollectiveKind::ReduceScatter, s, 4), 0.75 * s));
  }

  void scopes() {
    // 16 GPUs, 8 per node: data parallelism crosses nodes; tp = 8 stays inside one.
    const auto model = plantest::gptModel(8, 1024, 16);
    Plan p;
    p.numGpus = 16;
    p.tp = 8;
    const auto r = predict(model, plantest::bigDevice(), p);
    int intra = 0;
    int inter = 0;
    for (const auto& c : r.communication.collectives) {
      QVERIFY(c.scope == (c.purpose == "tp activations" ? Scope::IntraNode : Scope::InterNode));
      (c.scope == Scope::IntraNode ? intra : inter) += 1;
    }
    // Both kinds were seen: an empty list would have passed the loop above.
    QVERIFY(intra > 0);
    QVERIFY(inter > 0);
  }

  // gpt-tiny's exact collectives by hand (fp32: 4 B per element). Units root 12,416 + 2 × 49,984 (padded sums:
  // 2 and 4 ranks 112,384; 3 ranks 112,389); ZeRO-1/2 one bucket of 112,384 (5e8 default).
  void exactCollectivesGptTiny() {
    const ModelSpec model = plantest::gptTiny();
    const auto run = [&](Plan p) { return collectiveList(predict(model, plantest::bigDevice(), p)); };
    Plan p = tinyPlan(Strategy::Fsdp, 2);
    const QStringList fullShard{"all_gather parameters (forward): 449536/3 g2",
                                "all_gather parameters (backward): 399872/2 g2",
                                "reduce_scatter gradients: 449536/3 g2"};
    QCOMPARE(run(p), fullShard);
    p.numGpus = 4;  // no padding on 4 ranks either: the same buffers, a bigger group
    QCOMPARE(run(p), QStringList(fullShard).replaceInStrings(" g2", " g4"));
    p.numGpus = 3;
    QCOMPARE(run(p),
             (QStringList{"all_gather parameters (forward): 449556/3 g3",
                          "all_gather parameters (backward): 399888/2 g3", "reduce_scatter gradients: 449556/3 g3"}));
    // Accumulation: gathers every micro-step, one reduce-scatter per unit under no_sync.
    p = tinyPlan(Strategy::Fsdp, 2, 2);
    QCOMPARE(run(p),
             (QStringList{"all_gather parameters (forward): 899072/6 g2",
                          "all_gather parameters (backward): 799744/4 g2", "reduce_scatter gradients: 449536/3 g2"}));
    p.gradSync = GradSync::EveryMicroStep;
    QCOMPARE(run(p).last(), QStringLiteral("reduce_scatter gradients: 899072/6 g2"));
    p = tinyPlan(Strategy::Fsdp, 4);
    p.fsdpSharding = FsdpSharding::ShardGradOp;
    QCOMPARE(run(p),
             (QStringList{"all_gather parameters (forward): 449536/3 g4", "reduce_scatter gradients: 449536/3 g4"}));
    p.fsdpSharding = FsdpSharding::NoShard;
    QCOMPARE(run(p), QStringList{"all_reduce gradients: 449536/3 g4"});
    p.fsdpSharding = FsdpSharding::HybridShard;
    p.gpusPerNode = 2;  // 2 "nodes" of 2: shards of 56,192 all-reduced across the 2 replicas
    QCOMPARE(
        run(p),
        (QStringList{"all_gather parameters (forward): 449536/3 g2", "all_gather parameters (backward): 399872/2 g2",
                     "reduce_scatter gradients: 449536/3 g2", "all_reduce gradient shards (replicas): 224768/3 g2"}));
    // HYBRID_SHARD_ZERO2: SHARD_GRAD_OP inside each node (no backward gathers), the same replica all-reduces.
    p.fsdpSharding = FsdpSharding::HybridShardZero2;
    QCOMPARE(run(p),
             (QStringList{"all_gather parameters (forward): 449536/3 g2", "reduce_scatter gradients: 449536/3 g2",
                          "all_reduce gradient shards (replicas): 224768/3 g2"}));
    // With 2 micro-steps and no_sync: gathered every micro-step, reduced once per step, within and across nodes.
    p.gradAccum = 2;
    QCOMPARE(run(p),
             (QStringList{"all_gather parameters (forward): 899072/6 g2", "reduce_scatter gradients: 449536/3 g2",
                          "all_reduce gradient shards (replicas): 224768/3 g2"}));
    // ZeRO-3: the root is gathered again in backward; gradients reduced every micro-step.
    p = tinyPlan(Strategy::Zero3, 2);
    QCOMPARE(run(p),
             (QStringList{"all_gather parameters (forward): 449536/3 g2",
                          "all_gather parameters (backward): 449536/3 g2", "reduce_scatter gradients: 449536/3 g2"}));
    p.gradAccum = 2;
    QCOMPARE(run(p),
             (QStringList{"all_gather parameters (forward): 899072/6 g2",
                          "all_gather parameters (backward): 899072/6 g2", "reduce_scatter gradients: 899072/6 g2"}));
    // ZeRO-1 reduces once per step, ZeRO-2 every micro-step; both all-gather the updated buckets once.
    p = tinyPlan(Strategy::Zero1, 4, 2);
    QCOMPARE(run(p),
             (QStringList{"reduce_scatter gradients: 449536/1 g4", "all_gather parameters (after step): 449536/1 g4"}));
    p.strategy = Strategy::Zero2;
    QCOMPARE(run(p),
             (QStringList{"reduce_scatter gradients: 899072/2 g4", "all_gather parameters (after step): 449536/1 g4"}));
    // Buckets of 50,000 elements, reverse registration order: ln_f + block 1 but its ln_1.weight (50,048), that
    // weight + block 0 (50,048), wpe + wte (12,288). On 3 ranks 50,048 pads to 50,049.
    p = tinyPlan(Strategy::Zero2, 3);
    p.zeroBucketElements = 50'000;
    QCOMPARE(run(p),
             (QStringList{"reduce_scatter gradients: 449544/3 g3", "all_gather parameters (after step): 449544/3 g3"}));
    // One process: nothing is communicated.
    QVERIFY(run(tinyPlan(Strategy::Zero3, 1)).isEmpty());
  }
};

QTEST_GUILESS_MAIN(TestPlanComm)
#include "tst_plan_comm.moc"
