// SPDX-License-Identifier: Apache-2.0
// The planner's time model on a calibrated profile (issue 24): each operator class at the rate `fathom calibrate`
// measured for the plan's processes and threads, the linear layers' three products at their layouts' rates, ranks
// beyond the cores slowed by their share, collectives from their kind's fit, and no overlap on a full CPU node.
#include "plan_test_support.h"

#include <fathom/plan/compute_model.h>
#include <fathom/plan/hardware_calibration.h>
#include <fathom/plan/predict.h>

#include <QTest>

#include <string>

using namespace fathom;
using plan::MatmulLayout;

namespace {

/// A 2-core CPU measured at 1 process x 2 threads and 2 processes x 1 thread, with layout rates in the ratio
/// Debian's reference BLAS shows (nt slower): round numbers, so the expected times are plain arithmetic.
plan::HardwareSpec calibratedCpu() {
  plan::HardwareCalibration c;
  c.measuredAt = "2026-11-28T10:00:00Z";
  c.host = "test";
  c.device = "cpu";
  c.backend = "gloo";
  c.mode = "default";
  c.cpuCores = 2;
  for (auto [p, t] : {std::pair{1, 2}, std::pair{2, 1}}) {
    c.matmul.push_back({"fp32", MatmulLayout::NT, p, t, 256, 256, 1024, 1e9});
    c.matmul.push_back({"fp32", MatmulLayout::NN, p, t, 256, 256, 1024, 2e9});
    c.matmul.push_back({"fp32", MatmulLayout::TN, p, t, 256, 256, 1024, 4e9});
    c.elementwise.push_back({p, t, 1e-9, 1e-6});
    c.optimizer.push_back({"adamw", p, t, 2e-9});
    c.optimizer.push_back({"sgd", p, t, 5e-10});
  }
  c.memoryCopyBandwidth = 2e10;
  c.memoryAddBandwidth = 2e10;
  plan::CollectiveFit allReduce;
  allReduce.kind = plan::CollectiveKind::AllReduce;
  allReduce.ranks = 2;
  allReduce.alpha = 2e-4;
  allReduce.beta = 1e9;
  allReduce.points = {{1024, 2e-4}, {1 << 20, 1.2e-3}};
  c.collectives.push_back(allReduce);

  plan::HardwareSpec hw = plantest::bigDevice();
  hw.name = "this-machine";
  hw.device = plan::DeviceKind::Cpu;
  hw.gpusPerNode = 2;
  hw.peak = {};
  hw.peak.fp32 = 1e9;
  hw.calibration = c;
  return hw;
}

plan::Plan cpuPlan(int ranks, plan::Strategy strategy = plan::Strategy::Ddp) {
  plan::Plan p;
  p.strategy = strategy;
  p.numGpus = ranks;
  p.gpusPerNode = ranks;
  p.microBatch = 2;
  p.seqLen = 64;
  p.precision = plan::Precision::Fp32;
  return p;
}

double explained(const plan::Prediction& prediction, const std::string& key) {
  for (const plan::Explanation& e : prediction.explanations) {
    if (e.key == key) {
      return e.value;
    }
  }
  qFatal("no explanation %s", key.c_str());
}

plan::Prediction predictExplained(const plan::ModelSpec& model, const plan::HardwareSpec& hw, const plan::Plan& p) {
  return plan::predict(model, hw, p, {.explain = true});
}

}  // namespace

class TestPlanCalibrated : public QObject {
  Q_OBJECT

private slots:
  void linearLayersRunAtTheirLayoutsRates() {
    const plan::ModelSpec model = plantest::gptTiny();
    const plan::Prediction out = predictExplained(model, calibratedCpu(), cpuPlan(1));
    const double tokens = 2.0 * 64.0;
    const double forward = 2.0 * static_cast<double>(model.matmulParamsPerToken) * tokens;
    // forward x·Wᵀ at nt, input gradient at nn, weight gradient at tn; one process runs with both cores' threads.
    QCOMPARE(explained(out, "compute.calibrated.matmul_s"), forward / 1e9 + forward / 2e9 + forward / 4e9);
    const double attention = plan::attentionCoreFlops(model, tokens, 64.0);
    QVERIFY(attention > 0);
    const double half = attention / 2.0;
    QCOMPARE(explained(out, "compute.calibrated.attention_s"),
             half / 1e9 + half / 2e9 + half / 1e9 + half / 2e9 + 2.0 * half / 4e9);
  }

  void optimizerStepCoversTheRanksShard() {
    const plan::ModelSpec model = plantest::gptTiny();
    const auto params = static_cast<double>(model.totalParams);
    const plan::Prediction ddp = predictExplained(model, calibratedCpu(), cpuPlan(2));
    QCOMPARE(explained(ddp, "compute.calibrated.optimizer_s"), params * 2e-9);
    const plan::Prediction zero1 = predictExplained(model, calibratedCpu(), cpuPlan(2, plan::Strategy::Zero1));
    QCOMPARE(explained(zero1, "compute.calibrated.optimizer_s"), params / 2.0 * 2e-9);
    plan::Plan sgd = cpuPlan(2);
    sgd.optimizer = plan::Optimizer::Sgd;
    QCOMPARE(explained(predictExplained(model, calibratedCpu(), sgd), "compute.calibrated.optimizer_s"),
             params * 5e-10);
  }

  void ranksBeyondTheCoresShareThem() {
    const plan::ModelSpec model = plantest::gptTiny();
    const plan::Prediction two = predictExplained(model, calibratedCpu(), cpuPlan(2));
    // Four single-threaded processes on two cores, measured only up to two: each gets half a core.
    const plan::Prediction four = predictExplained(model, calibratedCpu(), cpuPlan(4));
    QCOMPARE(explained(four, "compute.calibrated.matmul_s"), 2.0 * explained(two, "compute.calibrated.matmul_s"));
    QCOMPARE(explained(four, "compute.calibrated.elementwise_s"),
             2.0 * explained(two, "compute.calibrated.elementwise_s"));
    // Two threads each on a full node: measured at 2 x 1, so each product takes twice as long again.
    plan::Plan threads = cpuPlan(2);
    threads.cpuThreadsPerProcess = 2;
    QCOMPARE(explained(predictExplained(model, calibratedCpu(), threads), "compute.calibrated.matmul_s"),
             2.0 * explained(two, "compute.calibrated.matmul_s"));
  }

  void collectivesTakeTheirKindsFitAndCannotHideOnAFullNode() {
    const plan::ModelSpec model = plantest::gptTiny();
    const plan::HardwareSpec hw = calibratedCpu();
    const plan::Prediction out = predictExplained(model, hw, cpuPlan(2));
    double expected = 0.0;
    for (const plan::Collective& c : out.communication.collectives) {
      QCOMPARE(c.kind, plan::CollectiveKind::AllReduce);
      const double perCall = c.bytes / static_cast<double>(c.count);
      expected += hw.calibration->collectives.front().predictSeconds(perCall) * static_cast<double>(c.count);
    }
    QVERIFY(expected > 0);
    QCOMPARE(out.communication.timeS, expected);
    // Two single-threaded ranks fill both cores: Gloo's reductions take turns with the compute.
    QCOMPARE(out.time.exposedCommS, out.communication.timeS);
    QCOMPARE(out.time.stepS, out.time.computeS + out.time.exposedCommS);
    QCOMPARE(out.time.computeS, explained(out, "time.compute_busy_s"));
  }

  void aMissingDtypeIsAClearError() {
    plan::Plan p = cpuPlan(1);
    p.precision = plan::Precision::Bf16;
    plan::HardwareSpec hw = calibratedCpu();
    hw.peak.bf16 = 1e9;  // validatePlan's check passes; the calibration has no bf16 rate
    try {
      plan::predict(plantest::gptTiny(), hw, p);
      QFAIL("predicted without a bf16 rate");
    } catch (const ConfigError& e) {
      QVERIFY2(std::string(e.what()).find("no calibrated bf16 matmul rate") != std::string::npos, e.what());
    }
  }

  void presetsKeepTheirModel() {
    // Without a calibration: FLOPs at the preset's peak times the efficiency, as before.
    const plan::Prediction out = plan::predict(plantest::gptTiny(), plantest::bigDevice(), cpuPlan(1));
    QCOMPARE(out.time.computeS, out.time.hardwareFlopsPerStep / (100e12 * 0.5));
  }
};

QTEST_APPLESS_MAIN(TestPlanCalibrated)
#include "tst_plan_calibrated.moc"
