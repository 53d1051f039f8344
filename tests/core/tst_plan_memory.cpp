// SPDX-License-Identifier: Apache-2.0
// Memory: published figures reproduced exactly (ZeRO Figure 1, Korthikanti Table 2 / Eq. 5-6, Megatron's
// distributed-optimizer table, DeepSpeed's estimator functions) and the FSDP layout.
#include "plan_test_support.h"

#include <fathom/common/error.h>
#include <fathom/plan/hf_config.h>
#include <fathom/plan/memory.h>
#include <fathom/plan/predict.h>

#include <QTest>

#include <cmath>

using namespace fathom::plan;

namespace {

double modelStates(const Prediction& p) {
  return p.memory.parameters + p.memory.gradients + p.memory.optimizerStates + p.memory.masterWeights;
}

bool close(double a, double b, double rel = 1e-12) {
  return std::fabs(a - b) <= rel * std::max(std::fabs(a), std::fabs(b));
}

Plan mixedAdam(Strategy s, int gpus, BytesConvention c) {
  Plan p;
  p.strategy = s;
  p.numGpus = gpus;
  p.precision = Precision::Fp16;
  p.masterWeights = MasterWeights::Fp32Copy;
  p.optimizer = Optimizer::Adam;
  p.bytes = c;
  return p;
}

LayerShape gptLayer(double s, double b, double h, double a, int t) {
  LayerShape x;
  x.seq = s;
  x.microBatch = b;
  x.hidden = h;
  x.heads = a;
  x.tp = t;
  return x;
}

}  // namespace

class TestPlanMemory : public QObject {
  Q_OBJECT

private slots:
  void zeroFigure1_data() {
    QTest::addColumn<int>("strategy");
    QTest::addColumn<double>("expected");
    QTest::addColumn<qlonglong>("params");
    // ZeRO (Rajbhandari et al. 2020) Figure 1: Ψ = 7.5B, Nd = 64, K = 12. Printed 120, 31.4, 16.6, 1.9 GB;
    // the formulas give these exactly.
    QTest::newRow("baseline 16Ψ") << int(Strategy::Ddp) << 120e9 << 7'500'000'000LL;
    QTest::newRow("P_os 4Ψ+KΨ/Nd") << int(Strategy::Zero1) << 31.40625e9 << 7'500'000'000LL;
    QTest::newRow("P_os+g 2Ψ+14Ψ/Nd") << int(Strategy::Zero2) << 16.640625e9 << 7'500'000'000LL;
    QTest::newRow("P_os+g+p 16Ψ/Nd") << int(Strategy::Zero3) << 1.875e9 << 7'500'000'000LL;
    // §3.1: "a GPT-2 model with 1.5B parameters ... requires at least 24 GB" (16Ψ).
    QTest::newRow("GPT-2 1.5B baseline") << int(Strategy::Ddp) << 24e9 << 1'500'000'000LL;
  }

  void zeroFigure1() {
    QFETCH(int, strategy);
    QFETCH(double, expected);
    QFETCH(qlonglong, params);
    const auto model = modelFromParams(params);
    const auto p = predict(model, plantest::bigDevice(), mixedAdam(Strategy(strategy), 64, BytesConvention::Zero));
    QVERIFY2(close(modelStates(p), expected), std::to_string(modelStates(p)).c_str());
    // The printed figure, rounded to one decimal in GB.
    QCOMPARE(std::round(modelStates(p) / 1e8) / 10, std::round(expected / 1e8) / 10);
  }

  void bytesConventionsPerParameter() {
    const auto model = modelFromParams(1'000'000LL);
    const auto hw = plantest::bigDevice();
    const auto perParam = [&](Plan p) { return modelStates(predict(model, hw, p)) / 1e6; };
    Plan p = mixedAdam(Strategy::Ddp, 1, BytesConvention::Zero);
    QCOMPARE(perParam(p), 16.0);  // ZeRO §3.1
    p.bytes = BytesConvention::Megatron;
    p.precision = Precision::Bf16;
    QCOMPARE(perParam(p), 18.0);  // Megatron bf16/fp32 grads, HF "model training anatomy"
    p.precision = Precision::Fp16;
    QCOMPARE(perParam(p), 20.0);  // Megatron fp16/fp16
    p.precision = Precision::Fp32;
    QCOMPARE(perParam(p), 16.0);  // fp32/fp32
    p.precision = Precision::Bf16;
    p.masterWeights = MasterWeights::Autocast;
    QCOMPARE(perParam(p), 16.0);  // torch.autocast over fp32 params: 4 + 4 + 8
    p.optimizer = Optimizer::SgdMomentum;
    QCOMPARE(perParam(p), 12.0);
    p.optimizer = Optimizer::Sgd;
    QCOMPARE(perParam(p), 8.0);
  }

  void megatronDistributedOptimizerTable() {
    // Megatron-LM docs (dist_optimizer.md): bytes/param non-distributed vs distributed over d ranks.
    const auto model = modelFromParams(1'000'000LL);
    const auto hw = plantest::bigDevice();
    const int d = 8;
    struct Row {
      Precision precision;
      double plain, fixedPart, sharded;
    } rows[] = {{Precision::Fp16, 20, 4, 16}, {Precision::Bf16, 18, 6, 12}, {Precision::Fp32, 16, 8, 8}};
    for (const Row& r : rows) {
      Plan p = mixedAdam(Strategy::Ddp, d, BytesConvention::Megatron);
      p.precision = r.precision;
      QCOMPARE(modelStates(predict(model, hw, p)) / 1e6, r.plain);
      p.strategy = Strategy::Zero1;
      QVERIFY(close(modelStates(predict(model, hw, p)) / 1e6, r.fixedPart + r.sharded / d));
    }
  }

  void deepspeedEstimators() {
    // deepspeed/runtime/zero/stage_1_and_2.py and stage3.py (estimate_zero{2,3}_model_states_mem_needs).
    const auto model = modelFromHfConfig(std::string(FATHOM_TEST_DATA_DIR) + "/hf_configs/llama-2-7b/config.json");
    const double P = static_cast<double>(model.totalParams);
    const double L = static_cast<double>(model.largestModuleParams);
    QCOMPARE(model.largestModuleParams, 131'072'000LL);  // embed_tokens / lm_head
    auto hw = plantest::bigDevice();
    const int T = 16;  // 2 nodes x 8
    Plan p = mixedAdam(Strategy::Zero2, T, BytesConvention::DeepSpeed);
    const auto gpu = [&](const Plan& plan) {
      const auto r = predict(model, hw, plan);
      return modelStates(r) + r.memory.gatheredParameters;
    };
    QVERIFY(std::fabs(gpu(p) - (2 * P + std::floor(18 * P / T))) < 1.0);
    p.offloadOptimizer = true;
    QVERIFY(close(gpu(p), 2 * P));
    QVERIFY(close(predict(model, hw, p).cpuBytesPerNode, P * std::max(4.0 * T, 16.0) * 1.5));
    p = mixedAdam(Strategy::Zero3, T, BytesConvention::DeepSpeed);
    QVERIFY(std::fabs(gpu(p) - (4 * L + std::floor(18 * P / T))) < 1.0);
    p.offloadOptimizer = true;
    QVERIFY(std::fabs(gpu(p) - (4 * L + std::floor(2 * P / T))) < 1.0);
    QVERIFY(close(predict(model, hw, p).cpuBytesPerNode, P * 16 / 2 * 1.5));
    p.offloadParams = true;
    QVERIFY(close(gpu(p), 4 * L));
    QVERIFY(close(predict(model, hw, p).cpuBytesPerNode, P * 18 / 2 * 1.5));
  }

  void korthikantiTable2() {
    // Table 2 rows for GPT-3 175B shapes: s = 2048, b = 1, h = 12288, a = 96, t = 8.
    const double s = 2048, b = 1, h = 12288, a = 96;
    const int t = 8;
    const double sbh = s * b * h;
    LayerShape x = gptLayer(s, b, h, a, 1);
    QVERIFY(close(activationBytesPerLayer(x), sbh * (34 + 5 * a * s / h)));
    x.tp = t;
    QVERIFY(close(activationBytesPerLayer(x), sbh * (10 + 24.0 / t + 5 * a * s / (h * t))));
    x.sequenceParallel = true;
    QVERIFY(close(activationBytesPerLayer(x), sbh * (34.0 / t + 5 * a * s / (h * t))));
    x.sequenceParallel = false;
    x.recompute = Recompute::Selective;
    QVERIFY(close(activationBytesPerLayer(x), sbh * (10 + 24.0 / t)));
    x.sequenceParallel = true;
    QVERIFY(close(activationBytesPerLayer(x), sbh * (34.0 / t)));
    x.recompute = Recompute::Full;
    QVERIFY(close(activationBytesPerLayer(x), 2 * sbh));
  }

  void selectiveRecomputeSavings() {
    // §5: 5as/h = 80 for GPT-3 and 64 for MT-NLG; selective recomputation saves 70% and 65% of activations.
    LayerShape gpt3 = gptLayer(2048, 1, 12288, 96, 8);
    LayerShape mtnlg = gptLayer(2048, 1, 20480, 128, 8);
    for (LayerShape* x : {&gpt3, &mtnlg}) {
      x->sequenceParallel = true;
    }
    const auto saving = [](LayerShape x) {
      const double none = activationBytesPerLayer(x);
      x.recompute = Recompute::Selective;
      return std::round(100.0 * (1.0 - activationBytesPerLayer(x) / none));
    };
    QCOMPARE(saving(gpt3), 70.0);
    QCOMPARE(saving(mtnlg), 65.0);
  }

  void generalisedActivations() {
    // Term-by-term generalisation of §4.1: each change moves exactly its own term.
    const double s = 4096, b = 2, h = 4096, a = 32, e = 2, f = 11008;
    LayerShape base = gptLayer(s, b, h, a, 1);
    base.ffn = f;
    LayerShape gqa = base;
    gqa.kvHeads = 8;  // K and V shrink from a·d to kv·d
    QVERIFY(close(activationBytesPerLayer(base) - activationBytesPerLayer(gqa), 2 * s * b * e * (32 - 8) * (h / a)));
    LayerShape gated = base;
    gated.gatedMlp = true;  // four ffn-wide tensors instead of two
    QVERIFY(close(activationBytesPerLayer(gated) - activationBytesPerLayer(base), 2 * s * b * e * f));
    LayerShape moe = gated;
    moe.expertsPerToken = 2;  // top-2 routing stores the MLP tensors twice
    QVERIFY(close(activationBytesPerLayer(moe) - activationBytesPerLayer(gated), 4 * s * b * e * f));
    LayerShape flash = base;
    flash.flashAttention = true;  // the a·s² terms are never stored: as selective recomputation
    LayerShape selective = base;
    selective.recompute = Recompute::Selective;
    QVERIFY(close(activationBytesPerLayer(flash), activationBytesPerLayer(selective)));
    LayerShape noDropout = base;
    noDropout.dropout = false;  // Llama: no masks, and only the softmax output of the core
    QVERIFY(close(activationBytesPerLayer(base) - activationBytesPerLayer(noDropout),
                  2 * s * b * h + a * s * s * b * (2 * e + 1 - e)));
    LayerShape fp32 = base;
    fp32.activationBytes = 4;  // doubles everything but the 1-byte masks (2sbh residual + as²b core)
    const double masks = 2 * s * b * h + a * s * s * b;
    QVERIFY(
        close(activationBytesPerLayer(fp32) - activationBytesPerLayer(base), activationBytesPerLayer(base) - masks));
  }

  void adafactorState() {
    // Factored second moment: (rows + cols) fp32 values per rows x cols matrix, about 2/h values per parameter.
    const auto model = plantest::gptModel(12, 1024, 16);
    Plan p;
    p.optimizer = Optimizer::Adafactor;
    p.masterWeights = MasterWeights::Autocast;
    const auto r = predict(model, plantest::bigDevice(), p);
    QVERIFY(close(r.memory.optimizerStates, static_cast<double>(model.totalParams) * 8.0 / 1024));
    QVERIFY_THROWS_EXCEPTION(fathom::ConfigError, predict(modelFromParams(1000), plantest::bigDevice(), p));
  }

  void korthikantiPipelineFirstStage() {
    // Eq. 5: with 1F1B the first stage stores p micro-batches of L/p layers: sbhL/t·(34 + 5as/h) with SP;
    // Eq. 6 with selective recomputation: 34·sbhL/t. §4.3 extras: + sbhp/t (embedding dropout), p > 1.
    const auto model = plantest::gptModel(96, 12288, 96);
    const double s = 2048, b = 1, h = 12288, a = 96, L = 96;
    const int t = 8, pp = 8;
    Plan p;
    p.numGpus = 64;
    p.tp = t;
    p.pp = pp;
    p.sequenceParallel = true;
    p.seqLen = 2048;
    p.gradAccum = 64;
    p.precision = Precision::Bf16;
    PredictOptions opt;
    opt.activationExtras = false;
    const auto hw = plantest::bigDevice();
    QVERIFY(close(predict(model, hw, p, opt).memory.activations, s * b * h * L / t * (34 + 5 * a * s / h)));
    p.recompute = Recompute::Selective;
    QVERIFY(close(predict(model, hw, p, opt).memory.activations, 34 * s * b * h * L / t));
    opt.activationExtras = true;
    QVERIFY(close(predict(model, hw, p, opt).memory.activations, 34 * s * b * h * L / t + s * b * h * pp / t));
    // Fewer micro-batches than stages: only m are in flight (Megatron's min(1, m/p) factor).
    p.gradAccum = 2;
    opt.activationExtras = false;
    QVERIFY(close(predict(model, hw, p, opt).memory.activations, 34 * s * b * h * (L / pp) * 2 / t));
  }

  void fsdpLayout() {
    // FSDP keeps fp32 shards (the master copy) + fp32 sharded grads + Adam: 16Ψ/W, plus the gathered working
    // set: 2 bf16 units in flight + one unit gradient (FSDP paper §3.2, §4.4).
    const auto model = plantest::gptModel(24, 2048, 16);
    Plan p;
    p.strategy = Strategy::Fsdp;
    p.numGpus = 8;
    p.optimizer = Optimizer::AdamW;
    const auto r = predict(model, plantest::bigDevice(), p);
    const double psi = static_cast<double>(model.totalParams);
    QVERIFY(close(modelStates(r), 16 * psi / 8));
    QCOMPARE(r.memory.masterWeights, 0.0);
    QVERIFY(close(r.memory.gatheredParameters, (2 * 2 + 2) * static_cast<double>(model.largestUnitParams)));
    p.fsdpSharding = FsdpSharding::ShardGradOp;
    const auto sgo = predict(model, plantest::bigDevice(), p);
    QVERIFY(close(sgo.memory.gatheredParameters, 2 * psi + 2 * static_cast<double>(model.largestUnitParams)));
    // The hybrid strategies shard over a node's 4 ranks (16Ψ/4) and gather as their strategy within the node does:
    // HYBRID_SHARD as FULL_SHARD, HYBRID_SHARD_ZERO2 as SHARD_GRAD_OP (every unit held from forward to backward).
    p.gpusPerNode = 4;
    p.fsdpSharding = FsdpSharding::HybridShard;
    const auto hybrid = predict(model, plantest::bigDevice(), p);
    QVERIFY(close(modelStates(hybrid), 16 * psi / 4));
    QCOMPARE(hybrid.memory.gatheredParameters, r.memory.gatheredParameters);
    p.fsdpSharding = FsdpSharding::HybridShardZero2;
    const auto hybridZero2 = predict(model, plantest::bigDevice(), p);
    QCOMPARE(modelStates(hybridZero2), modelStates(hybrid));
    QCOMPARE(hybridZero2.memory.gatheredParameters, sgo.memory.gatheredParameters);
    p.gpusPerNode = 0;
    // Accumulation with no_sync (Accelerate's default for FSDP) keeps unsharded bf16 gradients.
    p.fsdpSharding = FsdpSharding::FullShard;
    p.gradAccum = 4;
    QVERIFY(close(predict(model, plantest::bigDevice(), p).memory.gradients, 4 * psi / 8 + 2 * psi));
  }

  void fitsAndHeadroom() {
    auto hw = plantest::bigDevice();
    hw.memoryBytes = 80'000'000'000LL;
    const auto model = modelFromParams(7'500'000'000LL);
    Plan p = mixedAdam(Strategy::Ddp, 64, BytesConvention::Zero);
    const auto ddp = predict(model, hw, p);
    QVERIFY(!ddp.fits);
    QVERIFY(close(ddp.headroomBytes, 80e9 - ddp.memory.total));
    p.strategy = Strategy::Zero3;
    QVERIFY(predict(model, hw, p).fits);
  }

  void invalidPlansAreRejected() {
    const auto model = plantest::gptModel(24, 2048, 16);
    const auto hw = plantest::bigDevice();
    const auto message = [&](Plan p) {
      try {
        predict(model, hw, p);
      } catch (const fathom::ConfigError& e) {
        return std::string(e.what());
      }
      return std::string("accepted");
    };
    Plan p;
    p.numGpus = 6;
    p.tp = 4;
    QVERIFY(message(p).find("num_gpus (6) must be a multiple of tp") != std::string::npos);
    p = Plan{};
    p.offloadOptimizer = true;
    QVERIFY(message(p).find("offload_optimizer needs") != std::string::npos);
    p = Plan{};
    p.numGpus = 6;
    p.tp = 3;
    QVERIFY(message(p).find("tp (3) must divide the attention heads (16)") != std::string::npos);
    p = Plan{};
    p.numGpus = 4;
    p.pp = 2;
    p.strategy = Strategy::Zero3;
    QVERIFY(message(p).find("pipeline") != std::string::npos);
    p = Plan{};
    p.microBatch = 0;
    QVERIFY(message(p).find("micro_batch must be >= 1, got 0") != std::string::npos);
    p = Plan{};
    p.precision = Precision::Fp8;
    QVERIFY(message(p).find("fp8") != std::string::npos);
    // Learned position tables bound the sequence; the default is capped at them.
    TransformerDims g;
    g.arch = Arch::Gpt;
    g.layers = 2;
    g.hidden = 64;
    g.heads = 4;
    g.vocab = 100;
    g.maxPositions = 1024;
    const ModelSpec small = modelFromDims(g);
    QCOMPARE(predict(small, hw, Plan{}).seqLen, 1024LL);
    p = Plan{};
    p.seqLen = 4096;
    try {
      predict(small, hw, p);
      QFAIL("seq beyond the position table was accepted");
    } catch (const fathom::ConfigError& e) {
      QVERIFY2(std::string(e.what()).find("seq (4096) exceeds the model's learned positions (1024)") !=
                   std::string::npos,
               e.what());
    }
    QVERIFY_THROWS_EXCEPTION(fathom::ConfigError, parseStrategy("zero4"));
    QVERIFY_THROWS_EXCEPTION(fathom::ConfigError, parseBytesConvention("hf"));
  }

  // The exact layout of gpt-tiny (docs/planner.md, "Exact layout for built-in models"), by hand: units root
  // 12,416 + two blocks of 49,984; fp32 AdamW (4 B per element, 2 moments). Shards per unit: 2 ranks 6,208 +
  // 24,992 + 24,992 = 56,192; 4 ranks 3,104 + 12,496 + 12,496 = 28,096; 3 ranks pad each unit to a multiple of 3
  // (12,417, 49,986, 49,986) and shard 4,139 + 16,662 + 16,662 = 37,463.
  void exactLayoutGptTiny() {
    struct Row {
      const char* name;
      Strategy strategy;
      FsdpSharding sharding;
      int gpus;
      int gpusPerNode;
      double parameters, gradients, optimizer;
    };
    const Row rows[] = {
        {"fsdp full_shard 2", Strategy::Fsdp, FsdpSharding::FullShard, 2, 8, 224'768, 224'768, 449'536},
        {"fsdp full_shard 4", Strategy::Fsdp, FsdpSharding::FullShard, 4, 8, 112'384, 112'384, 224'768},
        {"fsdp full_shard 3 (padded)", Strategy::Fsdp, FsdpSharding::FullShard, 3, 8, 149'852, 149'852, 299'704},
        {"fsdp shard_grad_op 4", Strategy::Fsdp, FsdpSharding::ShardGradOp, 4, 8, 112'384, 112'384, 224'768},
        {"fsdp hybrid 4 = 2 nodes x 2", Strategy::Fsdp, FsdpSharding::HybridShard, 4, 2, 224'768, 224'768, 449'536},
        {"fsdp hybrid zero2 4 = 2 nodes x 2", Strategy::Fsdp, FsdpSharding::HybridShardZero2, 4, 2, 224'768, 224'768,
         449'536},
        {"fsdp no_shard 4", Strategy::Fsdp, FsdpSharding::NoShard, 4, 8, 449'536, 449'536, 899'072},
        {"zero3 2", Strategy::Zero3, FsdpSharding::FullShard, 2, 8, 224'768, 224'768, 449'536},
        {"zero3 4", Strategy::Zero3, FsdpSharding::FullShard, 4, 8, 112'384, 112'384, 224'768},
        // ZeRO-1/2, one bucket of 112,384 (5e8 default): replicated flat parameters, sharded moments.
        {"zero1 2", Strategy::Zero1, FsdpSharding::FullShard, 2, 8, 449'536, 449'536, 449'536},
        {"zero1 4", Strategy::Zero1, FsdpSharding::FullShard, 4, 8, 449'536, 449'536, 224'768},
        {"zero2 2", Strategy::Zero2, FsdpSharding::FullShard, 2, 8, 449'536, 224'768, 449'536},
        {"zero2 4", Strategy::Zero2, FsdpSharding::FullShard, 4, 8, 449'536, 112'384, 224'768},
        {"zero2 3 (padded to 112,386)", Strategy::Zero2, FsdpSharding::FullShard, 3, 8, 449'544, 149'848, 299'696},
    };
    const ModelSpec model = plantest::gptTiny();
    for (const Row& r : rows) {
      Plan p;
      p.strategy = r.strategy;
      p.fsdpSharding = r.sharding;
      p.numGpus = r.gpus;
      p.gpusPerNode = r.gpusPerNode;
      p.precision = Precision::Fp32;
      p.optimizer = Optimizer::AdamW;
      p.microBatch = 8;
      p.seqLen = 64;
      const Prediction out = predict(model, plantest::bigDevice(), p);
      QVERIFY2(out.memory.parameters == r.parameters, r.name);
      QVERIFY2(out.memory.gradients == r.gradients, r.name);
      QVERIFY2(out.memory.optimizerStates == r.optimizer, r.name);
      QVERIFY2(out.memory.masterWeights == 0.0, r.name);
      // autocast mixed precision (`fathom train --mixed_precision bf16`) keeps fp32 parameters: the same bytes.
      p.precision = Precision::Bf16;
      p.masterWeights = MasterWeights::Autocast;
      QVERIFY2(modelStates(predict(model, plantest::bigDevice(), p)) == modelStates(out), r.name);
    }
  }

  void exactLayoutWrapPoliciesAndOffload() {
    const ModelSpec model = plantest::gptTiny();
    Plan p;
    p.strategy = Strategy::Fsdp;
    p.numGpus = 3;
    p.precision = Precision::Fp32;
    p.optimizer = Optimizer::AdamW;
    p.seqLen = 64;
    // NO_WRAP: one unit of 112,384 elements, padded to 112,386 on 3 ranks: shard 37,462.
    p.fsdpWrap = FsdpWrap::NoWrap;
    QCOMPARE(predict(model, plantest::bigDevice(), p).memory.parameters, 37'462.0 * 4);
    // SIZE_BASED_WRAP below the block size wraps both blocks (as transformer wrap); above, none.
    p.fsdpWrap = FsdpWrap::SizeBased;
    p.fsdpMinNumParams = 49'984;
    QCOMPARE(predict(model, plantest::bigDevice(), p).memory.parameters, 37'463.0 * 4);
    p.fsdpMinNumParams = 49'985;
    QCOMPARE(predict(model, plantest::bigDevice(), p).memory.parameters, 37'462.0 * 4);
    // The largest gathered unit is a padded block: (2 in flight + 1 gradient) · 49,986 · 4.
    p.fsdpWrap = FsdpWrap::TransformerBased;
    QCOMPARE(predict(model, plantest::bigDevice(), p).memory.gatheredParameters, 3.0 * 49'986 * 4);
    // FSDP CPU offload: every state goes to the host.
    p.numGpus = 2;
    p.offloadParams = p.offloadOptimizer = true;
    Prediction out = predict(model, plantest::bigDevice(), p);
    QCOMPARE(modelStates(out), 0.0);
    QCOMPARE(out.cpuBytesPerNode, 2.0 * (224'768 + 224'768 + 449'536));
    // ZeRO optimizer offload (ZeRO-Offload): the gradient shard, an fp32 master shard and the moments live on the
    // host; the device keeps the flat parameters (ZeRO-1 also its flat gradients). 2 ranks: shard 56,192.
    p = Plan{};
    p.strategy = Strategy::Zero2;
    p.numGpus = 2;
    p.precision = Precision::Fp32;
    p.optimizer = Optimizer::AdamW;
    p.seqLen = 64;
    p.offloadOptimizer = true;
    p.bytes = BytesConvention::Zero;
    out = predict(model, plantest::bigDevice(), p);
    QCOMPARE(out.memory.parameters, 449'536.0);
    QCOMPARE(out.memory.gradients + out.memory.optimizerStates + out.memory.masterWeights, 0.0);
    QCOMPARE(out.cpuBytesPerNode, 2.0 * (224'768 + 224'768 + 449'536));
    p.strategy = Strategy::Zero1;
    out = predict(model, plantest::bigDevice(), p);
    QCOMPARE(out.memory.gradients, 449'536.0);
    QCOMPARE(out.cpuBytesPerNode, 2.0 * (224'768 + 224'768 + 449'536));
    p.strategy = Strategy::Zero3;
    out = predict(model, plantest::bigDevice(), p);
    QCOMPARE(out.memory.parameters, 224'768.0);
    QCOMPARE(out.memory.gradients, 0.0);
    QCOMPARE(out.cpuBytesPerNode, 2.0 * (224'768 + 224'768 + 449'536));
    // ZeRO-3 with offload_param too: the shard is the master; parameters, gradients and moments on the host.
    p.offloadParams = true;
    out = predict(model, plantest::bigDevice(), p);
    QCOMPARE(modelStates(out), 0.0);
    QCOMPARE(out.cpuBytesPerNode, 2.0 * (224'768 + 224'768 + 449'536));
    p.offloadParams = false;
    p.strategy = Strategy::Zero2;
    // Without the tensor sizes the approximate formulas stay: Ψ/N with no padding.
    ModelSpec bare = model;
    bare.parameterTensors.clear();
    p.offloadOptimizer = false;
    p.numGpus = 3;
    QCOMPARE(predict(bare, plantest::bigDevice(), p).memory.gradients, 112'384.0 * 4 / 3);
    QCOMPARE(predict(model, plantest::bigDevice(), p).memory.gradients, 37'462.0 * 4);
  }
};

QTEST_GUILESS_MAIN(TestPlanMemory)
#include "tst_plan_memory.moc"
