// SPDX-License-Identifier: Apache-2.0
// The planned step (plan/planned_step.h) against the prediction it lays out: the critical path tiles the predicted
// step time, every collective keeps the comm model's time, the exposed communication is the planner's, and the
// schedule puts each strategy's collectives where its engine issues them.
#include "plan_test_support.h"

#include <fathom/common/error.h>
#include <fathom/plan/comm_model.h>
#include <fathom/plan/planned_step.h>
#include <fathom/plan/predict.h>

#include <QTest>

#include <cmath>

using namespace fathom::plan;

Q_DECLARE_METATYPE(fathom::plan::Plan)

namespace {

bool close(double a, double b, double rel = 1e-9) {
  return std::fabs(a - b) <= rel * std::max({std::fabs(a), std::fabs(b), 1e-12});
}

/// A 1.3B GPT on the test device (8 GPUs a node, 100 GB/s intra, 10 GB/s inter).
ModelSpec model() {
  return plantest::gptModel(24, 2048, 16);
}

Plan basePlan(Strategy strategy, int gpus) {
  Plan p;
  p.strategy = strategy;
  p.numGpus = gpus;
  p.seqLen = 2048;
  return p;
}

}  // namespace

class TestPlannedStep : public QObject {
  Q_OBJECT

private slots:
  void totalsMatchThePrediction_data() {
    QTest::addColumn<Plan>("plan");
    QTest::addColumn<double>("bandwidthScale");  // < 1: a slow link, so that communication is exposed
    const auto add = [](const char* name, Plan p, double scale = 1.0) { QTest::newRow(name) << p << scale; };
    add("ddp", basePlan(Strategy::Ddp, 8));
    add("ddp slow link", basePlan(Strategy::Ddp, 8), 0.01);
    Plan accum = basePlan(Strategy::Ddp, 8);
    accum.gradAccum = 4;
    add("ddp accumulation", accum);
    add("ddp accumulation slow", accum, 0.01);
    accum.gradSync = GradSync::EveryMicroStep;
    add("ddp every micro-step slow", accum, 0.02);
    add("fsdp", basePlan(Strategy::Fsdp, 8));
    add("fsdp slow", basePlan(Strategy::Fsdp, 8), 0.01);
    Plan fsdpAccum = basePlan(Strategy::Fsdp, 16);
    fsdpAccum.gradAccum = 3;
    add("fsdp two nodes accumulation", fsdpAccum);
    fsdpAccum.fsdpSharding = FsdpSharding::HybridShard;
    add("hybrid shard", fsdpAccum, 0.05);
    add("zero1", basePlan(Strategy::Zero1, 8));
    add("zero2 slow", basePlan(Strategy::Zero2, 8), 0.02);
    Plan zero3 = basePlan(Strategy::Zero3, 16);
    zero3.gradAccum = 2;
    add("zero3", zero3);
    zero3.offloadOptimizer = true;
    zero3.offloadParams = true;
    add("zero3 offload", zero3);
    Plan megatron = basePlan(Strategy::Ddp, 16);
    megatron.tp = 2;
    megatron.pp = 2;
    megatron.gradAccum = 4;
    megatron.recompute = Recompute::Full;
    add("tp2 pp2 full recompute", megatron);
    megatron.sequenceParallel = true;
    megatron.strategy = Strategy::Zero1;
    add("tp2 pp2 sequence parallel zero1 slow", megatron, 0.05);
  }

  void totalsMatchThePrediction() {
    QFETCH(Plan, plan);
    QFETCH(double, bandwidthScale);
    HardwareSpec hw = plantest::bigDevice();
    hw.intraNode.bandwidth *= bandwidthScale;
    hw.interNode.bandwidth *= bandwidthScale;
    const Prediction prediction = predict(model(), hw, plan);
    const TimePrediction& t = prediction.time;
    QVERIFY(!prediction.communication.collectives.empty());
    const PlannedStep step = plannedStep(prediction, plan);

    // The critical path tiles [0, stepS] and its segments add up to the predicted step time.
    QVERIFY(!step.path.empty());
    QCOMPARE(step.path.front().startS, 0.0);
    double sum = 0;
    double compute = 0;
    double forward = 0;
    double backward = 0;
    for (std::size_t i = 0; i < step.path.size(); ++i) {
      const PlannedSegment& s = step.path[i];
      QVERIFY2(s.durationS() > 0, toString(s.phase));
      if (i > 0) {
        QVERIFY2(close(s.startS, step.path[i - 1].endS), toString(s.phase));
      }
      sum += s.durationS();
      compute +=
          s.phase == PlannedPhase::Forward || s.phase == PlannedPhase::Backward || s.phase == PlannedPhase::Bubble
              ? s.durationS()
              : 0.0;
      forward += s.phase == PlannedPhase::Forward ? s.durationS() : 0.0;
      backward += s.phase == PlannedPhase::Backward ? s.durationS() : 0.0;
      QCOMPARE(s.exposed, s.phase == PlannedPhase::Communication);
    }
    QVERIFY(close(sum, t.stepS));
    QVERIFY(close(step.path.back().endS, t.stepS));
    QVERIFY(close(step.stepS, t.stepS));
    QVERIFY(close(compute, t.computeS));
    QVERIFY(close(backward, forward * (plan.recompute == Recompute::Full ? 3.0 : 2.0)));

    // Every collective keeps the comm model's time; the exposed part is the planner's exposed communication.
    std::vector<double> perCollective(prediction.communication.collectives.size(), 0.0);
    double exposed = 0;
    for (std::size_t i = 0; i < step.communication.size(); ++i) {
      const PlannedSegment& s = step.communication[i];
      QCOMPARE(s.phase, PlannedPhase::Communication);
      QVERIFY(s.collective >= 0 && s.collective < static_cast<int>(perCollective.size()));
      QVERIFY(s.durationS() > 0);
      perCollective[s.collective] += s.durationS();
      exposed += s.exposed ? s.durationS() : 0.0;
      if (i > 0) {  // one serial stream
        QVERIFY(s.startS >= step.communication[i - 1].endS - 1e-12 * t.stepS);
      }
      if (!s.exposed) {  // a hidden part lies under compute: it meets no other segment of the path
        const double eps = 1e-12 * t.stepS;
        const bool clear = std::none_of(step.path.begin(), step.path.end(), [&](const PlannedSegment& p) {
          return p.phase != PlannedPhase::Forward && p.phase != PlannedPhase::Backward && p.startS < s.endS - eps &&
                 s.startS < p.endS - eps;
        });
        QVERIFY2(clear, prediction.communication.collectives[s.collective].purpose.c_str());
        QVERIFY(s.endS <= step.path.back().endS);
      }
    }
    for (std::size_t c = 0; c < perCollective.size(); ++c) {
      const Collective& collective = prediction.communication.collectives[c];
      QVERIFY2(close(perCollective[c], collective.timeS), collective.purpose.c_str());
      QVERIFY(close(collective.timeS,
                    collectiveTime(collective.kind, collective.bytes / collective.count, collective.groupSize,
                                   collective.scope == Scope::IntraNode ? hw.intraNode : hw.interNode) *
                        collective.count,
                    1e-6));
    }
    QVERIFY(close(exposed, t.exposedCommS));
    QVERIFY(close(step.exposedCommS, t.exposedCommS));
    QVERIFY(close(step.commS, t.commS));
    if (bandwidthScale < 0.1) {
      QVERIFY(t.exposedCommS > 0);  // the slow rows do test the exposed tail
    }
  }

  void ddpBucketsRunInTheLastBackward() {
    const Plan plan = basePlan(Strategy::Ddp, 8);
    HardwareSpec hw = plantest::bigDevice();
    hw.intraNode.bandwidth *= 10;  // so that the buckets fit under the backward
    const Prediction prediction = predict(model(), hw, plan);
    const PlannedStep step = plannedStep(prediction, plan);
    QCOMPARE(prediction.time.exposedCommS, 0.0);
    const PlannedSegment& backward = step.path.at(1);
    QCOMPARE(backward.phase, PlannedPhase::Backward);
    QCOMPARE(step.communication.size(), std::size_t{1});
    const PlannedSegment& buckets = step.communication.front();
    QCOMPARE(buckets.startS, backward.startS);  // issued as backward starts, hidden under it
    QVERIFY(buckets.endS <= backward.endS);
    QCOMPARE(buckets.microStep, -1);
  }

  void fsdpGathersForwardAndReducesInBackward() {
    Plan plan = basePlan(Strategy::Fsdp, 8);
    plan.gradAccum = 2;
    plan.gradSync = GradSync::EveryMicroStep;
    HardwareSpec hw = plantest::bigDevice();
    hw.intraNode.bandwidth *= 10;
    const Prediction prediction = predict(model(), hw, plan);
    const PlannedStep step = plannedStep(prediction, plan);
    QCOMPARE(prediction.time.exposedCommS, 0.0);
    int forwardGathers = 0;
    for (const PlannedSegment& s : step.communication) {
      const Collective& c = step.collectives.at(s.collective);
      QVERIFY(s.microStep == 0 || s.microStep == 1);
      const PlannedSegment& forward = step.path.at(2 * s.microStep);
      QCOMPARE(forward.phase, PlannedPhase::Forward);
      if (c.purpose == kForwardGatherPurpose) {
        QCOMPARE(s.startS, forward.startS);  // prefetched as the forward starts
        ++forwardGathers;
      } else {
        QVERIFY(s.startS >= forward.endS);  // backward gathers and the reduce-scatters wait for the backward
      }
    }
    QCOMPARE(forwardGathers, 2);
  }

  void exposedTailFollowsTheCompute() {
    HardwareSpec hw = plantest::bigDevice();
    hw.intraNode.bandwidth *= 0.01;
    const Plan plan = basePlan(Strategy::Ddp, 8);
    const Prediction prediction = predict(model(), hw, plan);
    const PlannedStep step = plannedStep(prediction, plan);
    // DDP's buckets hide behind the backward only: what is longer than it shows after it, on the path.
    const PlannedSegment& backward = step.path.at(1);
    QCOMPARE(step.path.size(), std::size_t{3});
    QCOMPARE(step.path.back().phase, PlannedPhase::Communication);
    QVERIFY(step.path.back().exposed);
    QVERIFY(close(step.path.back().durationS(), prediction.communication.timeS - backward.durationS()));
  }

  // A run fit's overhead is the path's last segment, so the path still adds up to the predicted step.
  void aRunFitsOverheadEndsThePath() {
    HardwareSpec hw = plantest::calibratedCpu();
    fathom::plan::RunFit fit;
    fit.fittedAt = "2026-11-28T18:00:00Z";
    fit.run = 1;
    fit.overheadPerMicroStepS = 0.25;
    hw.calibration->runFit = fit;
    Plan plan = plantest::cpuPlan(2);
    plan.gradAccum = 2;
    const Prediction prediction = predict(plantest::gptTiny(), hw, plan);
    QVERIFY(close(prediction.time.overheadS, 0.5));
    const PlannedStep step = plannedStep(prediction, plan);
    QCOMPARE(step.path.back().phase, PlannedPhase::Overhead);
    QVERIFY(close(step.path.back().durationS(), 0.5));
    QVERIFY(close(step.stepS, prediction.time.stepS));
    // Two CPU ranks filling both cores: the time model overlaps nothing, so DDP's all-reduce follows the compute.
    QVERIFY(prediction.time.exposedCommS > 0);
    QVERIFY(close(step.exposedCommS, prediction.time.exposedCommS));
    QCOMPARE(step.path[step.path.size() - 2].phase, PlannedPhase::Communication);
    QCOMPARE(toString(PlannedPhase::Overhead), "overhead");
  }

  void rejectsBadTimes() {
    Prediction prediction;
    prediction.time.computeS = -1;
    QVERIFY_THROWS_EXCEPTION(fathom::ConfigError, plannedStep(prediction, Plan{}));
    prediction.time.computeS = 1;
    prediction.time.bubbleS = 2;
    QVERIFY_THROWS_EXCEPTION(fathom::ConfigError, plannedStep(prediction, Plan{}));
    prediction.time.bubbleS = 0;
    prediction.communication.collectives.push_back({});
    prediction.communication.collectives.back().timeS = std::nan("");
    QVERIFY_THROWS_EXCEPTION(fathom::ConfigError, plannedStep(prediction, Plan{}));
  }

  void phaseNames() {
    QCOMPARE(toString(PlannedPhase::Bubble), "bubble");
    QCOMPARE(toString(PlannedPhase::Communication), "communication");
  }
};

QTEST_GUILESS_MAIN(TestPlannedStep)
#include "tst_planned_step.moc"
