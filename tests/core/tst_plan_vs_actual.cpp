// SPDX-License-Identifier: Apache-2.0
// Plan vs actual in core: the comparison (plan/plan_vs_actual.h) and its JSON, the collective metric keys
// (plan/collective_metric_keys.h), the run plans of the workspace (schema 7) and what store::measuredRanks reads from
// a run's metrics. The end-to-end check on real runs is tests/app/tst_runs_plan_vs_actual.
#include <fathom/common/error.h>
#include <fathom/common/memory_metric_keys.h>
#include <fathom/plan/collective_metric_keys.h>
#include <fathom/plan/plan_vs_actual.h>
#include <fathom/store/run_measurements.h>
#include <fathom/store/workspace.h>

#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QTest>

#include <string>
#include <vector>

using namespace fathom;

namespace {

plan::Prediction prediction() {
  plan::Prediction p;
  p.memory.parameters = 1000;
  p.memory.gradients = 1000;
  p.memory.optimizerStates = 2000;
  p.memory.masterWeights = 0;
  p.memory.activations = 500;
  p.memory.total = 4500;
  // Two entries of one kind (forward and backward gathers) are one kind per step.
  p.communication.collectives = {
      {plan::CollectiveKind::AllGather, "parameters (forward)", 4000, 2},
      {plan::CollectiveKind::AllGather, "parameters (backward)", 4000, 2},
      {plan::CollectiveKind::ReduceScatter, "gradients", 4000, 2},
  };
  p.time.stepS = 0.5;
  return p;
}

}  // namespace

class PlanVsActualTest : public QObject {
  Q_OBJECT

private slots:
  void collectiveMetricKeysRoundTrip() {
    for (int k = 0; k <= static_cast<int>(plan::CollectiveKind::SendRecv); ++k) {
      const auto kind = static_cast<plan::CollectiveKind>(k);
      for (const auto metric : {plan::CollectiveMetric::Count, plan::CollectiveMetric::Bytes}) {
        const auto parsed = plan::parseCollectiveMetricKey(plan::collectiveMetricKey(kind, metric));
        QVERIFY(parsed.has_value());
        QVERIFY(parsed->kind == kind && parsed->metric == metric);
      }
    }
    QCOMPARE(plan::collectiveMetricKey(plan::CollectiveKind::ReduceScatter, plan::CollectiveMetric::Bytes),
             std::string("comm/reduce_scatter/bytes"));
    QVERIFY(!plan::parseCollectiveMetricKey("comm/barrier/count"));
    QVERIFY(!plan::parseCollectiveMetricKey("loss"));
  }

  void exactAndSignedDifferences() {
    plan::MeasuredRank equal;
    equal.rank = 0;
    equal.memory = {{MemoryCategory::Parameters, 1000},
                    {MemoryCategory::Gradients, 1000},
                    {MemoryCategory::OptimizerStates, 2000},
                    {MemoryCategory::MasterWeights, 0}};
    equal.collectiveStep = 3;
    equal.collectives = {{plan::CollectiveKind::AllGather, {4, 8000}},
                         {plan::CollectiveKind::ReduceScatter, {2, 4000}}};
    plan::MeasuredRank other = equal;
    other.rank = 1;
    other.memory[MemoryCategory::Gradients] = 1200;
    other.memory[MemoryCategory::Activations] = 450;
    other.collectives[plan::CollectiveKind::AllReduce] = {1, 4};  // a logging reduction the plan does not make
    other.stepSeconds = 0.75;

    const plan::PlanVsActual c = plan::comparePlanToRun(7, prediction(), {equal, other});
    QCOMPARE(c.ranks.size(), std::size_t{2});
    const plan::RankComparison& r0 = c.ranks[0];
    for (std::size_t i = 0; i < 4; ++i) {
      QVERIFY2(r0.memory[i].exact(), toString(plan::kComparedMemoryCategories[i]).data());
    }
    QVERIFY(!r0.memory[4].measured);  // no profile: activations unmeasured, neither exact nor a difference
    QVERIFY(!r0.memory[4].exact() && !r0.memory[4].difference());
    QCOMPARE(r0.collectives.size(), std::size_t{2});
    QVERIFY(r0.collectives[0].kind == plan::CollectiveKind::AllGather && r0.collectives[0].exact());
    QVERIFY(r0.collectives[1].kind == plan::CollectiveKind::ReduceScatter && r0.collectives[1].exact());
    QVERIFY(!r0.stepSeconds.measured);

    const plan::RankComparison& r1 = c.ranks[1];
    QCOMPARE(*r1.memory[1].difference(), 200.0);  // more gradients than planned: positive
    QCOMPARE(*r1.memory[4].difference(), -50.0);  // fewer activations: negative
    QCOMPARE(r1.collectives.size(), std::size_t{3});
    QVERIFY(r1.collectives[0].kind == plan::CollectiveKind::AllReduce);
    QVERIFY(!r1.collectives[0].predicted && !r1.collectives[0].exact());
    QCOMPARE(*r1.stepSeconds.difference(), 0.25);

    // A rank that logged no collectives has none measured, even for the kinds the plan has.
    plan::MeasuredRank silent;
    silent.rank = 2;
    const plan::PlanVsActual s = plan::comparePlanToRun(7, prediction(), {silent});
    QVERIFY(!s.ranks[0].collectives[0].measured);
  }

  void jsonHasTheDocumentedShape() {
    plan::MeasuredRank m;
    m.rank = 1;
    m.memory = {{MemoryCategory::Parameters, 1000}, {MemoryCategory::Activations, 400}};
    m.totalBytes = 9000;
    m.collectiveStep = 2;
    m.collectives = {{plan::CollectiveKind::AllGather, {4, 8000}}};
    m.stepSeconds = 0.25;
    const nlohmann::json j = plan::toJson(plan::comparePlanToRun(12, prediction(), {m}));
    const nlohmann::json expected = nlohmann::json::parse(R"({"run": 12, "ranks": [{"rank": 1,
      "memory": {"parameters": {"predicted": 1000, "measured": 1000}, "gradients": {"predicted": 1000, "measured": null},
                 "optimizer_states": {"predicted": 2000, "measured": null},
                 "master_weights": {"predicted": 0, "measured": null},
                 "activations": {"predicted": 500, "measured": 400}, "total": {"predicted": 4500, "measured": 9000}},
      "collectives": {"all_gather": {"predicted": {"count": 4, "bytes": 8000}, "measured": {"count": 4, "bytes": 8000}},
                      "reduce_scatter": {"predicted": {"count": 2, "bytes": 4000}, "measured": null}},
      "step_s": {"predicted": 0.5, "measured": 0.25}}]})");
    QVERIFY2(j == expected, j.dump(2).c_str());
    // Keys in the documented order.
    std::vector<std::string> keys;
    const nlohmann::ordered_json ordered = plan::toJson(plan::comparePlanToRun(12, prediction(), {m}));
    for (const auto& item : ordered["ranks"][0].items()) {
      keys.push_back(item.key());
    }
    QCOMPARE(keys, (std::vector<std::string>{"rank", "memory", "collectives", "step_s"}));
  }

  void workspaceStoresRunPlans() {
    QTemporaryDir dir;
    store::Workspace ws((dir.path() + "/ws.sqlite").toStdString());
    QCOMPARE(ws.schemaVersion(), store::Workspace::kSchemaVersion);
    store::NewRun launched;
    launched.name = "with plan";
    launched.planJson = R"({"plan":{"strategy":"ddp"}})";
    const store::RunId a = ws.createRun(launched);
    const store::RunId b = ws.createRun({"without plan", "", "", ""});
    QVERIFY(ws.runPlan(a).has_value());
    QCOMPARE(ws.runPlan(a)->source, std::string("launch"));
    QCOMPARE(ws.runPlan(a)->predictionJson, launched.planJson);
    QVERIFY(!ws.runPlan(b));
    ws.setRunPlan(b, "computed", "{}");
    QCOMPARE(ws.runPlan(b)->source, std::string("computed"));
    ws.setRunPlan(b, "computed", R"({"x":1})");  // replaces
    QCOMPARE(ws.runPlan(b)->predictionJson, std::string(R"({"x":1})"));
    QVERIFY_THROWS_EXCEPTION(ConfigError, ws.setRunPlan(store::RunId{999}, "computed", "{}"));
    ws.finishRun(a, store::RunStatus::Succeeded, 0);
    ws.deleteRun(a);
    QVERIFY(!ws.runPlan(a));  // deleted with its run
  }

  void measuredRanksReadTheRunsMetrics() {
    QTemporaryDir dir;
    store::Workspace ws((dir.path() + "/ws.sqlite").toStdString());
    const store::RunId run = ws.createRun({"measured", "", "", ""});
    ws.upsertRank(run, {0, "host", 1, "cpu", std::nullopt});
    ws.upsertRank(run, {1, "host", 2, "cpu", std::nullopt});
    const std::string params = memoryMetricKey(MemoryPlace::Device, MemoryCategory::Parameters);
    const std::string count = plan::collectiveMetricKey(plan::CollectiveKind::AllReduce, plan::CollectiveMetric::Count);
    const std::string bytes = plan::collectiveMetricKey(plan::CollectiveKind::AllReduce, plan::CollectiveMetric::Bytes);
    const std::string gatherCount =
        plan::collectiveMetricKey(plan::CollectiveKind::AllGather, plan::CollectiveMetric::Count);
    std::vector<store::MetricPoint> points{
        {0, 1, 1.0, params, 100},  // an older sample
        {0, 3, 3.0, params, 120},  // the last one counts
        {0, 2, 2.0, count, 5},
        {0, 2, 2.0, bytes, 50},
        {0, 2, 2.0, gatherCount, 9},
        {0, 3, 3.0, count, 4},
        {0, 3, 3.0, bytes, 40},  // step 3 has no all_gather: none measured
        {0, 3, 3.0, profiledPeakMetricKey("cpu", MemoryCategory::Activations), 70},
        {0, 5, 5.0, profiledPeakMetricKey("cpu", MemoryCategory::Activations), 60},  // the highest peak counts
        {0, 5, 5.0, profiledPeakTotalMetricKey("cpu"), 900},
        {0, 3, 3.0, "steps_per_second", 4.0},
        {1, 3, 3.0, params, 120},
    };
    ws.appendMetrics(run, points);
    const std::vector<plan::MeasuredRank> ranks = store::measuredRanks(ws, run);
    QCOMPARE(ranks.size(), std::size_t{2});
    const plan::MeasuredRank& r0 = ranks[0];
    QCOMPARE(r0.memory.at(MemoryCategory::Parameters), 120.0);
    QCOMPARE(r0.memory.at(MemoryCategory::Activations), 70.0);
    QCOMPARE(*r0.totalBytes, 900.0);
    QCOMPARE(*r0.collectiveStep, std::int64_t{3});
    QCOMPARE(r0.collectives.size(), std::size_t{1});
    QCOMPARE(r0.collectives.at(plan::CollectiveKind::AllReduce), (plan::CollectiveCount{4, 40}));
    QCOMPARE(*r0.stepSeconds, 0.25);
    QCOMPARE(ranks[1].rank, 1);
    QVERIFY(!ranks[1].collectiveStep && !ranks[1].stepSeconds && !ranks[1].totalBytes);
  }
};

QTEST_GUILESS_MAIN(PlanVsActualTest)
#include "tst_plan_vs_actual.moc"
