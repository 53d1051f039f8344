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
    const plan::Prediction out = predictExplained(model, plantest::calibratedCpu(), plantest::cpuPlan(1));
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
    const plan::Prediction ddp = predictExplained(model, plantest::calibratedCpu(), plantest::cpuPlan(2));
    QCOMPARE(explained(ddp, "compute.calibrated.optimizer_s"), params * 2e-9);
    const plan::Prediction zero1 =
        predictExplained(model, plantest::calibratedCpu(), plantest::cpuPlan(2, plan::Strategy::Zero1));
    QCOMPARE(explained(zero1, "compute.calibrated.optimizer_s"), params / 2.0 * 2e-9);
    plan::Plan sgd = plantest::cpuPlan(2);
    sgd.optimizer = plan::Optimizer::Sgd;
    QCOMPARE(explained(predictExplained(model, plantest::calibratedCpu(), sgd), "compute.calibrated.optimizer_s"),
             params * 5e-10);
  }

  void ranksBeyondTheCoresShareThem() {
    const plan::ModelSpec model = plantest::gptTiny();
    const plan::Prediction two = predictExplained(model, plantest::calibratedCpu(), plantest::cpuPlan(2));
    // Four single-threaded processes on two cores, measured only up to two: each gets half a core.
    const plan::Prediction four = predictExplained(model, plantest::calibratedCpu(), plantest::cpuPlan(4));
    QCOMPARE(explained(four, "compute.calibrated.matmul_s"), 2.0 * explained(two, "compute.calibrated.matmul_s"));
    QCOMPARE(explained(four, "compute.calibrated.elementwise_s"),
             2.0 * explained(two, "compute.calibrated.elementwise_s"));
    // Two threads each on a full node: measured at 2 x 1, so each product takes twice as long again.
    plan::Plan threads = plantest::cpuPlan(2);
    threads.cpuThreadsPerProcess = 2;
    QCOMPARE(explained(predictExplained(model, plantest::calibratedCpu(), threads), "compute.calibrated.matmul_s"),
             2.0 * explained(two, "compute.calibrated.matmul_s"));
  }

  void collectivesTakeTheirKindsFitAndCannotHideOnAFullNode() {
    const plan::ModelSpec model = plantest::gptTiny();
    const plan::HardwareSpec hw = plantest::calibratedCpu();
    const plan::Prediction out = predictExplained(model, hw, plantest::cpuPlan(2));
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
    plan::Plan p = plantest::cpuPlan(1);
    p.precision = plan::Precision::Bf16;
    plan::HardwareSpec hw = plantest::calibratedCpu();
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
    const plan::Prediction out = plan::predict(plantest::gptTiny(), plantest::bigDevice(), plantest::cpuPlan(1));
    QCOMPARE(out.time.computeS, out.time.hardwareFlopsPerStep / (100e12 * 0.5));
  }
};

QTEST_APPLESS_MAIN(TestPlanCalibrated)
#include "tst_plan_calibrated.moc"
