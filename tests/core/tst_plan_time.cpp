// SPDX-License-Identifier: Apache-2.0
// FLOPs and the time model: Korthikanti et al. Eq. 7/8 against Table 5's measured MFU/HFU, Narayanan et al.'s
// full-recompute count, 6PD, and the step-time composition.
#include "plan_test_support.h"

#include <fathom/plan/compute_model.h>
#include <fathom/plan/predict.h>
#include <fathom/plan/report.h>

#include <QTest>

#include <cmath>

using namespace fathom::plan;

namespace {
bool close(double a, double b, double rel = 1e-12) {
  return std::fabs(a - b) <= rel * std::max(std::fabs(a), std::fabs(b));
}
}  // namespace

class TestPlanTime : public QObject {
  Q_OBJECT

private slots:
  void korthikantiEq7And8() {
    const double B = 4, L = 48, s = 2048, h = 6144, v = 51200;
    const auto model = plantest::gptModel(48, 6144, 64);
    const double tokens = B * s;
    QVERIFY(close(modelFlops(model, tokens, s), 72 * B * L * s * h * h * (1 + s / (6 * h) + v / (12 * h * L))));
    QVERIFY(close(hardwareFlops(model, tokens, s, Recompute::Selective),
                  72 * B * L * s * h * h * (1 + s / (3 * h) + v / (12 * h * L))));
    // Narayanan et al. 2021 (full recomputation): 96·B·s·L·h²·(1 + s/(6h) + v/(16Lh)).
    QVERIFY(close(hardwareFlops(model, tokens, s, Recompute::Full),
                  96 * B * s * L * h * h * (1 + s / (6 * h) + v / (16 * L * h))));
  }

  void korthikantiTable5_data() {
    QTest::addColumn<int>("layers");
    QTest::addColumn<int>("hidden");
    QTest::addColumn<int>("heads");
    QTest::addColumn<int>("gpus");
    QTest::addColumn<int>("batch");
    QTest::addColumn<double>("iterationS");
    QTest::addColumn<double>("mfu");
    QTest::addColumn<double>("hfu");
    // Table 3 configurations, Table 5 iteration times (selective recompute + SP) and printed MFU / HFU (A100, 312 TF).
    QTest::newRow("22B") << 48 << 6144 << 64 << 8 << 4 << 1.10 << 0.415 << 0.437;
    QTest::newRow("175B") << 96 << 12288 << 96 << 64 << 64 << 13.75 << 0.514 << 0.528;
    QTest::newRow("530B") << 105 << 20480 << 128 << 280 << 280 << 37.83 << 0.560 << 0.570;
    QTest::newRow("1T") << 128 << 25600 << 160 << 512 << 512 << 71.49 << 0.563 << 0.570;
  }

  void korthikantiTable5() {
    QFETCH(int, layers);
    QFETCH(int, hidden);
    QFETCH(int, heads);
    QFETCH(int, gpus);
    QFETCH(int, batch);
    QFETCH(double, iterationS);
    QFETCH(double, mfu);
    QFETCH(double, hfu);
    const auto model = plantest::gptModel(layers, hidden, heads);
    const double tokens = batch * 2048.0;
    const double peak = 312e12 * gpus * iterationS;
    // Within 0.16 percentage points of the printed values (they are rounded to 0.1).
    QVERIFY(std::fabs(modelFlops(model, tokens, 2048) / peak - mfu) < 0.0016);
    QVERIFY(std::fabs(hardwareFlops(model, tokens, 2048, Recompute::Selective) / peak - hfu) < 0.0016);
  }

  void kaplanSixPD() {
    const auto model = modelFromParams(175'000'000'000LL);
    QVERIFY(close(modelFlops(model, 300e9, 2048), 3.15e23));  // GPT-3: 6 · 175e9 · 300e9
    QVERIFY(close(hardwareFlops(model, 1e6, 2048, Recompute::Full), 8 * 175e9 * 1e6));
  }

  void stepTimeComposition() {
    const auto model = plantest::gptModel(24, 2048, 16);
    Plan p;
    p.numGpus = 16;
    p.strategy = Strategy::Zero3;
    p.seqLen = 2048;
    p.microBatch = 4;
    p.gradAccum = 2;
    PredictOptions opt;
    opt.computeEfficiency = 0.4;
    const auto hw = plantest::bigDevice();
    const auto r = predict(model, hw, p, opt);
    const auto& t = r.time;
    QVERIFY(close(t.tokensPerStep, 4.0 * 2048 * 2 * 16));
    QVERIFY(close(t.computeS, t.hardwareFlopsPerStep / (16 * 312e12 * 0.4)));
    QVERIFY(close(t.stepS, t.computeS + t.exposedCommS + t.offloadS));
    QVERIFY(t.exposedCommS >= 0 && t.exposedCommS <= t.commS);
    QVERIFY(close(t.tokensPerS, t.tokensPerStep / t.stepS));
    QVERIFY(close(t.mfu, t.modelFlopsPerStep / (t.stepS * 16 * 312e12)));
    // No overlap: every collective is exposed.
    opt.overlapGradReduce = false;
    const auto serial = predict(model, hw, p, opt);
    QVERIFY(close(serial.time.exposedCommS, serial.time.commS));
    QVERIFY(serial.time.stepS >= r.time.stepS);
  }

  void pipelineBubble() {
    const auto model = plantest::gptModel(32, 2048, 16);
    Plan p;
    p.numGpus = 4;
    p.pp = 4;
    p.gradAccum = 8;
    const auto r = predict(model, plantest::bigDevice(), p);
    QVERIFY(close(r.time.bubbleS, (r.time.computeS - r.time.bubbleS) * 3.0 / 8.0));
  }

  void explanationsCarrySources() {
    const auto model = plantest::gptModel(12, 768, 12);
    Plan p;
    p.numGpus = 8;
    p.strategy = Strategy::Zero2;
    PredictOptions opt;
    opt.explain = true;
    const auto r = predict(model, plantest::bigDevice(), p, opt);
    QVERIFY(!r.explanations.empty());
    bool sawMemory = false, sawTime = false;
    for (const auto& e : r.explanations) {
      QVERIFY2(!e.formula.empty() && !e.source.empty(), e.key.c_str());
      sawMemory = sawMemory || e.key == "memory.optimizer_states";
      sawTime = sawTime || e.key == "time.step_s";
    }
    QVERIFY(sawMemory && sawTime);
    opt.explain = false;
    QVERIFY(predict(model, plantest::bigDevice(), p, opt).explanations.empty());
  }

  // The Studio shows one number's `--explain` block on hover: the same text, filtered by key.
  void explanationsFilterByKey() {
    const auto model = plantest::gptModel(12, 768, 12);
    Plan p;
    p.numGpus = 8;
    const auto r = predict(model, plantest::bigDevice(), p, {.explain = true});
    std::string all;
    for (const auto& e : r.explanations) {
      all += formatExplanation(e);
    }
    QCOMPARE(formatExplanations(r), all);
    const std::string activations = formatExplanations(r, "memory.activations");
    QVERIFY2(activations.find("memory.activations.per_layer = ") != std::string::npos, activations.c_str());
    QVERIFY2(activations.find("\nmemory.activations = ") != std::string::npos, activations.c_str());
    QVERIFY(activations.find("memory.parameters") == std::string::npos);
    QVERIFY(all.find(activations) != std::string::npos);  // the blocks as --explain prints them
    const std::string step = formatExplanations(r, "time.step_s");
    QVERIFY(step.rfind("time.step_s = ", 0) == 0);
    QVERIFY(step.find("    formula: compute + exposed communication + offload + overhead\n") != std::string::npos);
    QVERIFY(formatExplanations(r, "memory.act").empty());  // a key, not a string prefix
    QVERIFY(formatExplanations(predict(model, plantest::bigDevice(), p), "time.step_s").empty());
  }
};

QTEST_GUILESS_MAIN(TestPlanTime)
#include "tst_plan_time.moc"
