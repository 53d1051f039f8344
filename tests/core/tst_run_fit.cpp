// SPDX-License-Identifier: Apache-2.0
// Calibration from a profiled run (issue 24): a rank's trace broken down by the planner's operator classes
// (trace::operatorClassTimes, on a hand-built trace whose numbers are worked out in the comments), the fit of a
// calibrated profile to such breakdowns (calibrate::fitRun: the fitted profile predicts the run it was fitted to),
// the run_fit section's round trip and refusals, and the report's JSON round trip.
#include "error_helpers.h"
#include "plan_test_support.h"
#include "trace_fixtures.h"

#include <fathom/calibrate/run_fit.h>
#include <fathom/calibrate/run_fit_report.h>
#include <fathom/common/error.h>
#include <fathom/plan/predict.h>
#include <fathom/plan/report.h>

#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <filesystem>
#include <string>

using namespace fathom;
namespace fs = std::filesystem;
using fathom::test::contains;

namespace {

constexpr std::int64_t us = 1000;

/// The message of the ConfigError `fn` throws; "<not a ConfigError>" for anything else.
template <typename Fn> std::string configError(Fn&& fn) {
  return test::throwsType<ConfigError>(fn) ? test::messageOf(fn) : std::string("<not a ConfigError>");
}

std::string allReduce(int start, int end) {
  return test::completeEvent("user_annotation", "fathom::all_reduce", 1, 99, std::to_string(start) + ".000",
                             std::to_string(end - start) + ".000", R"({"bytes":4096})");
}

/// Two profiled steps of one rank (training thread 1, Fathom's collective row 99), and work outside them.
std::vector<std::string> rankEvents() {
  return {
      test::span("ProfilerStep#3", 1, 0, 100),
      // Step 3: a linear layer (addmm inside aten::linear: self 18), the attention core (bmm 10), an activation,
      // the two gradient products (mm 10 + 5), then the optimizer step [70,90] whose add_ runs [72,88] while an
      // all_reduce of ZeRO's runs inside it [80,85]; the gradient all_reduce [90,98] runs under no compute.
      test::cpuOp("aten::linear", 1, 10, 30),
      test::cpuOp("aten::addmm", 1, 11, 29),
      test::cpuOp("aten::bmm", 1, 30, 40),
      test::cpuOp("aten::gelu", 1, 40, 50),
      test::cpuOp("aten::mm", 1, 50, 60),
      test::cpuOp("aten::mm", 1, 60, 65),
      test::span("fathom::optimizer_step", 1, 70, 90),
      test::cpuOp("aten::add_", 1, 72, 88),
      allReduce(80, 85),
      allReduce(90, 98),
      // Step 4: one product [110,150], an exposed all_reduce [150,170].
      test::span("ProfilerStep#4", 1, 100, 200),
      test::cpuOp("aten::mm", 1, 110, 150),
      allReduce(150, 170),
      // After the steps: not part of them.
      test::cpuOp("aten::mm", 1, 210, 230),
  };
}

}  // namespace

class TestRunFit : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  fs::path write(const std::string& name, const std::vector<std::string>& events) {
    return test::writeRankTrace(m_dir.path().toStdString(), name, events, 0);
  }

private slots:
  void operatorClassesOfARank() {
    const trace::OperatorClassTimes t = trace::operatorClassTimes(write("rank0.json", rankEvents()));
    QCOMPARE(t.steps, 2);
    QCOMPARE(t.spanNs, 200 * us);
    QCOMPARE(t.matmulNs, (18 + 10 + 5 + 40) * us);  // addmm's self time and the mm's; not the one after the steps
    QCOMPARE(t.batchedMatmulNs, 10 * us);
    QCOMPARE(t.optimizerNs, (20 - 5) * us);  // the span less the all_reduce inside it
    // Compute: [10,65] + [72,88] + [110,150] = 55 + 16 + 40 = 111; the rest of it: 111 - 73 - 10 - 15 = 13 (linear's
    // own 2, gelu 10, and the add_'s 16 less the optimizer's 15).
    QCOMPARE(t.otherComputeNs, 13 * us);
    QCOMPARE(t.communicationNs, (5 + 8 + 20) * us);
    QCOMPARE(t.exposedCommunicationNs, (8 + 20) * us);  // [80,85] ran under the add_
    QCOMPARE(t.otherNs, (200 - 111 - 28) * us);
    QCOMPARE(t.collectives.size(), std::size_t{1});
    QCOMPARE(QString::fromStdString(t.collectives[0].kind), QStringLiteral("all_reduce"));
    QCOMPARE(t.collectives[0].count, std::uint64_t{3});
    QCOMPARE(t.matmulNs + t.batchedMatmulNs + t.optimizerNs + t.otherComputeNs + t.exposedCommunicationNs + t.otherNs,
             t.spanNs);
  }

  /// A GPU rank (as torch.profiler and Fathom's CUPTI profiler write it): each kernel's time goes to the class of the
  /// operator that launched it (its External id), or to the optimizer when launched inside its span.
  void operatorClassesOfAGpuRank() {
    auto opWithId = [](std::string_view name, int start, int end, int id) {
      return test::cpuOp(name, 1, start, end, "{\"External id\":" + std::to_string(id) + "}");
    };
    auto launch = [](int ts, int correlation, int id) {
      return test::kernelLaunch(ts, "{\"correlation\":" + std::to_string(correlation) +
                                        ",\"External id\":" + std::to_string(id) + "}");
    };
    auto kernel = [](std::string_view name, int start, int end, int correlation, int id, std::string_view more = "") {
      return test::gpuActivity("kernel", name, start, end,
                               "{\"stream\":7,\"correlation\":" + std::to_string(correlation) +
                                   ",\"External id\":" + std::to_string(id) + std::string(more) + "}");
    };
    const std::vector<std::string> events = {
        test::span("ProfilerStep#1", 1, 0, 100),
        // The CPU side: a product, the attention core (PyTorch's fused kernel), an activation, the optimizer's step.
        opWithId("aten::mm", 10, 20, 1),
        launch(11, 11, 1),
        opWithId("aten::_scaled_dot_product_flash_attention", 20, 30, 2),
        launch(21, 12, 2),
        opWithId("aten::gelu", 30, 40, 3),
        launch(31, 13, 3),
        launch(50, 15, 5),
        test::span("fathom::optimizer_step", 1, 60, 80),
        opWithId("aten::add_", 61, 79, 4),
        launch(62, 14, 4),
        // The GPU side, after the CPU events as Kineto writes them: step 1's GPU work spans [40,95].
        kernel("sm90_xmma_gemm_f32f32", 40, 60, 11, 1),
        kernel("pytorch_flash::flash_fwd_kernel", 60, 70, 12, 2),
        kernel("vectorized_elementwise_kernel", 70, 75, 13, 3),
        kernel("multi_tensor_apply_kernel", 80, 90, 14, 4),
        kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 85, 95, 15, 5, R"(,"Collective name":"allreduce")"),
    };
    const trace::OperatorClassTimes t = trace::operatorClassTimes(write("gpu.json", events));
    QCOMPARE(t.steps, 1);
    QCOMPARE(t.spanNs, 55 * us);
    QCOMPARE(t.matmulNs, 20 * us);
    QCOMPARE(t.batchedMatmulNs, 10 * us);
    QCOMPARE(t.optimizerNs, 10 * us);
    QCOMPARE(t.otherComputeNs, 5 * us);  // compute [40,75] + [80,90] = 45, less 20 + 10 + 10
    QCOMPARE(t.communicationNs, 10 * us);
    QCOMPARE(t.exposedCommunicationNs, 5 * us);  // [90,95]: [85,90] ran under the optimizer's kernel
    QCOMPARE(t.otherNs, 5 * us);                 // [75,80]
    QCOMPARE(t.matmulNs + t.batchedMatmulNs + t.optimizerNs + t.otherComputeNs + t.exposedCommunicationNs + t.otherNs,
             t.spanNs);
    QCOMPARE(t.collectives.size(), std::size_t{1});
    QCOMPARE(QString::fromStdString(t.collectives[0].kind), QStringLiteral("allreduce"));
  }

  void aTraceWithoutStepsIsRefused() {
    std::vector<std::string> events = rankEvents();
    std::erase_if(events, [](const std::string& e) { return contains(e, "ProfilerStep"); });
    const fs::path file = write("nosteps.json", events);
    const std::string message = configError([&] { trace::operatorClassTimes(file); });
    QVERIFY2(contains(message, "nosteps.json") && contains(message, "no ProfilerStep"), message.c_str());
  }

  // The fitted profile predicts the run it was fitted to: every class at its measured time, the collectives at
  // their exposed time, the rest as overhead (a CPU node the ranks fill: nothing overlaps in the model).
  void theFitPredictsItsRun() {
    const plan::ModelSpec model = plantest::gptTiny();
    const plan::HardwareSpec base = plantest::calibratedCpu();
    plan::Plan p = plantest::cpuPlan(2);
    const plan::Prediction predicted = plan::predict(model, base, p);
    QVERIFY(predicted.time.matmulS > 0 && predicted.time.attentionS > 0 && predicted.time.elementwiseS > 0 &&
            predicted.time.optimizerS > 0 && predicted.time.commS > 0);
    QCOMPARE(predicted.time.exposedCommS, predicted.time.commS);  // 2 ranks x 1 thread on 2 cores

    // Two ranks, each 4 steps of 1 s: matmul 0.3, batched 0.1, optimizer 0.05, other compute 0.2, communication 0.25
    // of which 0.2 exposed (one kind, one call a step), other 0.15.
    trace::OperatorClassTimes rank;
    rank.steps = 4;
    auto s = [](double seconds) { return static_cast<std::int64_t>(std::llround(seconds * 4e9)); };
    rank.spanNs = s(1.0);
    rank.matmulNs = s(0.3);
    rank.batchedMatmulNs = s(0.1);
    rank.optimizerNs = s(0.05);
    rank.otherComputeNs = s(0.2);
    rank.communicationNs = s(0.25);
    rank.exposedCommunicationNs = s(0.2);
    rank.otherNs = s(0.15);
    rank.collectives = {{"all_reduce", 4, s(0.25), 4 * 4096}, {"barrier", 1, s(0.01), 0}};

    calibrate::RunFitInput in;
    in.base = base;
    in.model = model;
    in.predicted = plan::predictionReport(model, base, p, predicted);
    in.ranks = {rank, rank};
    in.runId = 7;
    in.runName = "fit-me";
    in.fittedAt = "2026-11-28T18:00:00Z";
    const calibrate::RunFitResult fit = calibrate::fitRun(in);
    QVERIFY(fit.fitted.calibration && fit.fitted.calibration->runFit);
    const plan::RunFit& f = *fit.fitted.calibration->runFit;
    QCOMPARE(f.run, std::int64_t{7});
    QCOMPARE(f.processes, 2);
    QCOMPARE(f.threads, 1);
    QCOMPARE(f.ranks, 2);
    QCOMPARE(f.steps, 4);
    QCOMPARE(f.measuredStepS, 1.0);
    QCOMPARE(f.matmul, 0.3 / predicted.time.matmulS);
    QCOMPARE(f.attention, 0.1 / predicted.time.attentionS);
    QCOMPARE(f.elementwise, 0.2 / predicted.time.elementwiseS);
    QCOMPARE(f.optimizer, 0.05 / predicted.time.optimizerS);
    QVERIFY(std::abs(f.overheadPerMicroStepS - 0.15) < 1e-9);  // nothing overlaps: the time outside both
    QCOMPARE(f.collectives.size(), std::size_t{1});            // the barrier is priced by no fit
    QCOMPARE(f.collectives[0].kind, plan::CollectiveKind::AllReduce);
    QCOMPARE(f.collectives[0].callsPerStep, std::int64_t{1});
    // The span time scaled to its exposed share (0.2 / 0.25) over the predicted all_reduce time.
    QVERIFY(std::abs(f.collectives[0].factor - 0.2 / predicted.time.commS) < 1e-12);
    QCOMPARE(fit.measuredStepS, 1.0);
    QCOMPARE(fit.predictedStepS, predicted.time.stepS);
    QVERIFY(std::abs(fit.fittedStepS - 1.0) < 1e-9);
    QCOMPARE(fit.classes.size(), std::size_t{6});  // 4 classes, overhead, all_reduce (a barrier is no fit's kind)

    const plan::Prediction after = plan::predict(model, fit.fitted, p);
    QVERIFY2(std::abs(after.time.stepS - 1.0) < 1e-9, std::to_string(after.time.stepS).c_str());
    QVERIFY(std::abs(after.time.overheadS - 0.15) < 1e-12);
    // The table names it, so its parts add up to the step it prints.
    const std::string table = plan::formatPredictionTable(model, fit.fitted, p, after);
    QVERIFY2(table.find(", overhead 0.1500 s\n") != std::string::npos, table.c_str());
    QVERIFY(plan::formatPredictionTable(model, in.base, p, predicted).find("overhead 0.") == std::string::npos);
    // Accumulation: the overhead is per micro-step, the classes scale with the work.
    p.gradAccum = 2;
    const plan::Prediction twice = plan::predict(model, fit.fitted, p);
    QVERIFY(std::abs(twice.time.overheadS - 0.3) < 1e-12);
    QVERIFY(std::abs(twice.time.matmulS - 0.6) < 1e-9);
    // PyTorch's NCCL kernels name the kinds as c10d does ("allreduce", "_allgather_base", ...): the same fit.
    calibrate::RunFitInput nccl = in;
    for (trace::OperatorClassTimes& r : nccl.ranks) {
      r.collectives = {{"allreduce", 4, s(0.25), std::nullopt}, {"barrier", 1, s(0.01), std::nullopt}};
    }
    const plan::RunFit byNccl = *calibrate::fitRun(nccl).fitted.calibration->runFit;
    QCOMPARE(byNccl.collectives.size(), std::size_t{1});
    QCOMPARE(byNccl.collectives[0].kind, plan::CollectiveKind::AllReduce);
    QCOMPARE(byNccl.collectives[0].factor, f.collectives[0].factor);
    // A preset is refused: there is no calibration to refine.
    calibrate::RunFitInput preset = in;
    preset.base = plantest::bigDevice();
    const std::string message = configError([&] { calibrate::fitRun(preset); });
    QVERIFY2(contains(message, "fathom calibrate"), message.c_str());
  }

  void theRunFitRoundTripsAndIsChecked() {
    plan::HardwareSpec hw = plantest::calibratedCpu();
    hw.memoryBandwidth = 2e10;
    plan::RunFit f;
    f.fittedAt = "2026-11-28T18:00:00Z";
    f.run = 12;
    f.runName = "gpt \"quoted\"";
    f.processes = 2;
    f.threads = 1;
    f.ranks = 2;
    f.steps = 3;
    f.measuredStepS = 0.4375;
    f.matmul = 1.0625;
    f.attention = 0.875;
    f.elementwise = 1.5;
    f.optimizer = 1.25;
    f.overheadPerMicroStepS = 0.0125;
    f.collectives = {{plan::CollectiveKind::AllReduce, 2, 0.75, 9}};
    hw.calibration->runFit = f;
    const std::string yaml = plan::formatHardwareYaml(hw);
    const plan::HardwareSpec back = plan::parseHardware(yaml, "fitted.yaml");
    QVERIFY(back.calibration && back.calibration->runFit);
    const plan::RunFit& g = *back.calibration->runFit;
    QCOMPARE(g.fittedAt, f.fittedAt);
    QCOMPARE(g.run, f.run);
    QCOMPARE(g.runName, f.runName);
    QCOMPARE(g.steps, 3);
    QCOMPARE(g.measuredStepS, 0.4375);
    QCOMPARE(g.matmul, 1.0625);
    QCOMPARE(g.attention, 0.875);
    QCOMPARE(g.elementwise, 1.5);
    QCOMPARE(g.optimizer, 1.25);
    QCOMPARE(g.overheadPerMicroStepS, 0.0125);
    QCOMPARE(g.collectives.size(), std::size_t{1});
    QCOMPARE(g.collectives[0].factor, 0.75);
    QCOMPARE(g.collectives[0].callsPerStep, std::int64_t{9});
    QCOMPARE(g.collectiveFactor(plan::CollectiveKind::AllGather), 1.0);
    // Every factor by name, the operator classes in the time model's order, then the collectives.
    const std::vector<plan::RunFit::NamedFactor> named = g.factors();
    QCOMPARE(named.size(), std::size_t{5});
    const std::vector<std::pair<std::string_view, double>> expected = {
        {"matmul", 1.0625}, {"attention", 0.875}, {"elementwise", 1.5}, {"optimizer", 1.25}, {"all_reduce", 0.75}};
    for (std::size_t i = 0; i < expected.size(); ++i) {
      QCOMPARE(named[i].name, expected[i].first);
      QCOMPARE(named[i].factor, expected[i].second);
    }

    // Refusals name the key and the value.
    auto refused = [&](const std::string& from, const std::string& to) {
      std::string bad = yaml;
      const std::size_t at = bad.find(from);
      Q_ASSERT(at != std::string::npos);
      bad.replace(at, from.size(), to);
      return configError([&] { plan::parseHardware(bad, "fitted.yaml"); });
    };
    std::string m = refused("matmul: 1.0625", "matmul: 0");
    QVERIFY2(contains(m, "fitted.yaml") && contains(m, "run_fit.factors.matmul") && contains(m, "> 0"), m.c_str());
    m = refused("fitted_at: 2026-11-28T18:00:00Z", "fitted_at: yesterday");
    QVERIFY2(contains(m, "run_fit.fitted_at") && contains(m, "yesterday"), m.c_str());
    m = refused("run: 12", "run: 0");
    QVERIFY2(contains(m, "run_fit.run"), m.c_str());
    m = refused("kind: all_reduce, ranks: 2, factor: 0.75", "kind: all_to_all, ranks: 2, factor: 0.75");
    QVERIFY2(contains(m, "run_fit.collectives[0].kind") && contains(m, "all_to_all"), m.c_str());
  }

  void theReportRoundTrips() {
    calibrate::RunFitReport r;
    r.run = 3;
    r.runName = "n";
    r.fitId = 2;
    r.workspace = "/w/fathom.sqlite";
    r.hardware = "this-machine";
    r.measuredAt = "2026-11-28T10:00:00Z";
    r.host = "h";
    r.traces = 2;
    r.steps = 3;
    r.classes = {{"matmul", 0.5, 0.25, 2.0}, {"overhead", 0.125, 0.0, 1.0}};
    r.measuredStepS = 1.5;
    r.calibratedStepS = 1.25;
    r.fittedStepS = 1.5;
    const nlohmann::json json = nlohmann::json::parse(calibrate::toJson(r).dump());
    const calibrate::RunFitReport back = calibrate::runFitReportFromJson(json, "report");
    QCOMPARE(back.fitId, std::int64_t{2});
    QCOMPARE(back.classes.size(), std::size_t{2});
    QCOMPARE(back.classes[0].factor, 2.0);
    QCOMPARE(back.fittedStepS, 1.5);
    QCOMPARE(back.host, std::string("h"));
    nlohmann::json bad = json;
    bad["step_s"]["fitted"] = "fast";
    const std::string m = configError([&] { calibrate::runFitReportFromJson(bad, "report"); });
    QVERIFY2(contains(m, "report.step_s") && contains(m, "'fitted'") && contains(m, "fast"), m.c_str());
  }
};

QTEST_APPLESS_MAIN(TestRunFit)
#include "tst_run_fit.moc"
