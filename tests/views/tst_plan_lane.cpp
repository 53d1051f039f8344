// SPDX-License-Identifier: Apache-2.0
// The timeline's plan lanes (issue 19): a saved plan (tests/data/saved_plan_v3.prediction.json, the what-if
// comparison a released Studio saved) laid out by plan::plannedStep and drawn on the real 2-rank Gloo trace at each
// rank's ProfilerStep: one lane per rank, rectangles that are the planned step's segments at their pixels and in
// their colours, tooltips; and the measured vs predicted table (PlanStepModel) for a step.
#include "timeline/plan_lane_painter.h"
#include "timeline/plan_step_model.h"
#include "timeline/time_coords.h"
#include "timeline/timeline_view.h"
#include "trace_generator.h"

#include <fathom/plan/planned_step.h>
#include <fathom/plan/prediction_json.h>
#include <fathom/trace/step_alignment.h>
#include <fathom/trace/timeline_index.h>

#include <nlohmann/json.hpp>

#include <QAbstractItemModelTester>
#include <QFile>
#include <QImage>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <map>
#include <set>

using namespace fathom;
using namespace fathom::views;

namespace {

const std::filesystem::path kGloo = std::filesystem::path(FATHOM_TEST_DATA_DIR) / "traces/gloo_2rank_merged.json.gz";

/// The saved comparison's prediction for `strategy` ("zero1", ...): a `fathom plan --json` object.
plan::PredictionReport savedPlan(const std::string& strategy) {
  QFile file(QStringLiteral(FATHOM_TEST_DATA_DIR "/saved_plan_v3.prediction.json"));
  if (!file.open(QIODevice::ReadOnly)) {
    throw std::runtime_error("saved_plan_v3.prediction.json is missing");
  }
  const nlohmann::json json = nlohmann::json::parse(file.readAll().toStdString());
  for (const nlohmann::json& entry : json.at("strategies")) {
    if (entry.at("plan").at("strategy") == strategy) {
      return plan::predictionReportFromJson(entry, "saved_plan_v3");
    }
  }
  throw std::runtime_error("no such strategy in the fixture: " + strategy);
}

std::int64_t ns(double seconds) {
  return static_cast<std::int64_t>(std::llround(seconds * 1e9));
}

}  // namespace

class TestPlanLane : public QObject {
  Q_OBJECT

private slots:
  void initTestCase() {
    auto index = trace::TimelineIndex::load(kGloo);
    QVERIFY(index);
    m_index = std::make_shared<const trace::TimelineIndex>(std::move(*index));
    m_report = savedPlan("zero1");
    m_step = plan::plannedStep(m_report.prediction, m_report.plan);
  }

  void savedPlanLaysOutToItsOwnTotals() {
    // The release that saved it predicted with the same time model: the layout reproduces its step and exposure.
    QVERIFY(std::fabs(m_step.stepS - m_report.prediction.time.stepS) < 1e-12);
    QVERIFY(std::fabs(m_step.exposedCommS - m_report.prediction.time.exposedCommS) < 1e-12);
    QVERIFY(m_step.exposedCommS > 0);  // ZeRO-1 gathers the updated parameters after the step
  }

  void oneLanePerRankAtItsSteps() {
    TimelineView view;
    view.resize(1400, 900);
    view.setIndex(m_index);
    QCOMPARE(view.planLaneCount(), 0);
    view.setPlan(m_report.prediction, m_report.plan);
    QCOMPARE(view.planLaneCount(), 2);  // the two ranks' CPU processes hold the ProfilerSteps
    QCOMPARE(view.headers().count(QStringLiteral("plan (predicted step)")), 2);
    view.clearPlan();
    QCOMPARE(view.planLaneCount(), 0);
    view.setPlan(m_step);
    QCOMPARE(view.planLaneCount(), 2);

    // Show exactly rank 0's planned step: from its ProfilerStep's start, the planned step's length. The plan (Llama 2
    // 7B on H100s, 0.38 s) is longer than the trace (0.19 s): the view's time extent includes the plan lanes.
    const auto& lanes = view.planLanes();
    std::uint32_t rank0 = 0;
    while (m_index->processes()[rank0].rank != 0) {
      ++rank0;
    }
    QCOMPARE(lanes.stepStarts(rank0).size(), std::size_t{1});
    const std::int64_t start = lanes.stepStarts(rank0).front();
    QVERIFY(start + ns(m_step.stepS) > m_index->data().endNs);
    const trace::TimeRange range{start, start + ns(m_step.stepS)};
    view.setVisibleRange(range);
    QCOMPARE(view.visibleRange().startNs, range.startNs);
    QCOMPARE(view.visibleRange().endNs, range.endNs);
    const QImage image = view.viewport()->grab().toImage();
    const int pixels = view.plotWidth();

    // Row 0 of rank 0's lane: the critical path, left to right, covering the whole plot.
    std::vector<PlanLanePainter::Rect> path;
    std::vector<PlanLanePainter::Rect> comm;
    for (const PlanLanePainter::Rect& r : lanes.lastFrame()) {
      QVERIFY(r.x0 >= 0 && r.x1 <= pixels && r.x1 > r.x0);
      QCOMPARE(r.step, 1);
      if (r.process == rank0) {
        (r.row == 0 ? path : comm).push_back(r);
      }
    }
    QVERIFY(!path.empty());
    QCOMPARE(path.front().x0, 0);
    QCOMPARE(path.back().x1, pixels);
    for (std::size_t i = 1; i < path.size(); ++i) {
      QCOMPARE(path[i].x0, path[i - 1].x1);  // contiguous: the path tiles the step
      QVERIFY(path[i].segment > path[i - 1].segment);
    }
    // Each drawn rectangle is its segment at its pixels, in its phase's colour.
    for (const PlanLanePainter::Rect& r : path) {
      const plan::PlannedSegment& s = m_step.path.at(static_cast<std::size_t>(r.segment));
      QCOMPARE(r.shade, PlanLanePainter::shadeOf(s));
      QVERIFY(std::abs(r.x0 - std::floor(timeToPixel(range, pixels, start + ns(s.startS)))) <= 1);
      QVERIFY(std::abs(r.x1 - std::ceil(timeToPixel(range, pixels, start + ns(s.endS)))) <= 1);
    }
    // Every segment at least 2 px wide that starts in the range is drawn.
    for (std::size_t i = 0; i < m_step.path.size(); ++i) {
      const double width = timeToPixel(range, pixels, start + ns(m_step.path[i].endS)) -
                           timeToPixel(range, pixels, start + ns(m_step.path[i].startS));
      if (width >= 2 && start + ns(m_step.path[i].startS) < range.endNs) {
        QVERIFY2(std::any_of(path.begin(), path.end(), [&](const auto& r) { return r.segment == static_cast<int>(i); }),
                 plan::toString(m_step.path[i].phase));
      }
    }
    // The communication row: ZeRO-1's reduce-scatter hidden under the backward, its after-step gather exposed.
    QVERIFY(std::any_of(comm.begin(), comm.end(),
                        [](const auto& r) { return r.shade == PlanLanePainter::Shade::Overlapped; }));
    QVERIFY(std::any_of(comm.begin(), comm.end(),
                        [](const auto& r) { return r.shade == PlanLanePainter::Shade::ExposedComm; }));
    for (const PlanLanePainter::Rect& r : comm) {
      QCOMPARE(r.shade, PlanLanePainter::shadeOf(m_step.communication.at(static_cast<std::size_t>(r.segment))));
    }

    // The pixels: the middle of the widest compute rectangle and of the exposed gather have their colours.
    const int left = view.viewport()->width() - pixels;  // the header column
    const auto columnHas = [&](int x, const QColor& colour) {
      for (int y = 0; y < image.height(); ++y) {
        if (image.pixelColor(left + x, y) == colour) {
          return true;
        }
      }
      return false;
    };
    const auto widestCompute = std::max_element(path.begin(), path.end(), [](const auto& a, const auto& b) {
      return (a.shade == PlanLanePainter::Shade::Compute ? a.x1 - a.x0 : -1) <
             (b.shade == PlanLanePainter::Shade::Compute ? b.x1 - b.x0 : -1);
    });
    QCOMPARE(widestCompute->shade, PlanLanePainter::Shade::Compute);
    QVERIFY(columnHas((widestCompute->x0 + widestCompute->x1) / 2,
                      PlanLanePainter::colour(PlanLanePainter::Shade::Compute)));
    const auto exposed = std::find_if(path.begin(), path.end(),
                                      [](const auto& r) { return r.shade == PlanLanePainter::Shade::ExposedComm; });
    QVERIFY(exposed != path.end());
    QVERIFY(columnHas((exposed->x0 + exposed->x1) / 2, PlanLanePainter::colour(PlanLanePainter::Shade::ExposedComm)));

    // Hovering the plan lane names the planned segment.
    QCOMPARE(lanes.toolTipAt(rank0, 0, start + ns(m_step.path.front().endS / 2)).section(u'\n', 0, 0),
             QStringLiteral("planned forward"));
    QVERIFY(lanes
                .toolTipAt(rank0, 1,
                           start + ns((m_step.communication.back().startS + m_step.communication.back().endS) / 2))
                .contains(QStringLiteral("all_gather")));
    QVERIFY(lanes.toolTipAt(rank0, 0, start - 1).isEmpty());
  }

  // On a generated 3-rank trace with several steps a rank, a plan shorter than the steps is drawn once at each
  // measured step start, on every rank's lane.
  void drawnAtEveryStep() {
    QTemporaryDir dir;
    const auto path = std::filesystem::path(dir.path().toStdString()) / "steps.json";
    fathom::test::TraceGeneratorOptions options;
    options.events = 40'000;
    options.ranks = 3;
    fathom::test::generateTrace(path, options);
    auto loaded = trace::TimelineIndex::load(path);
    QVERIFY(loaded);
    const auto index = std::make_shared<const trace::TimelineIndex>(std::move(*loaded));
    plan::Prediction prediction;
    prediction.time.computeS = 0.001;  // 1 ms: far shorter than a generated step
    prediction.time.stepS = 0.001;
    TimelineView view;
    view.resize(1600, 1400);
    view.setIndex(index);
    view.setPlan(prediction, plan::Plan{});
    QCOMPARE(view.planLaneCount(), 3);
    view.viewport()->grab();
    std::map<std::uint32_t, std::set<std::int64_t>> drawn;  // process -> steps drawn at
    for (const PlanLanePainter::Rect& r : view.planLanes().lastFrame()) {
      drawn[r.process].insert(r.step);
    }
    int lanes = 0;
    for (std::uint32_t p = 0; p < index->processes().size(); ++p) {
      if (view.planLanes().stepStarts(p).empty()) {
        continue;
      }
      std::set<std::int64_t> measured;
      for (const trace::TimelineStep& step : index->steps()) {
        if (index->lane(step.slice.lane).process == p) {
          measured.insert(step.number);
        }
      }
      QVERIFY(measured.size() >= 2);
      // Rows below the viewport are not painted; those painted show every step.
      if (drawn.contains(p)) {
        QCOMPARE(drawn[p], measured);
        ++lanes;
      }
    }
    QVERIFY(lanes >= 1);
  }

  void measuredVersusPredicted() {
    PlanStepModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), int{PlanStepModel::RowCount});
    QVERIFY(!model.data(model.index(PlanStepModel::StepTimeRow, PlanStepModel::MeasuredColumn)).isValid());
    const auto measured = trace::rankStepSummary(*m_index, 1, 1);
    QVERIFY(measured);
    model.setStep(measured, m_step);
    const auto seconds = [&](PlanStepModel::Quantity row, PlanStepModel::Column column) {
      return model.data(model.index(row, column), PlanStepModel::SecondsRole).toDouble();
    };
    QCOMPARE(seconds(PlanStepModel::StepTimeRow, PlanStepModel::MeasuredColumn),
             static_cast<double>(measured->time.spanNs) / 1e9);
    QCOMPARE(seconds(PlanStepModel::StepTimeRow, PlanStepModel::PredictedColumn), m_step.stepS);
    QCOMPARE(seconds(PlanStepModel::ExposedCommunicationRow, PlanStepModel::MeasuredColumn),
             static_cast<double>(measured->time.communicationNs - measured->time.overlapNs) / 1e9);
    QCOMPARE(seconds(PlanStepModel::ExposedCommunicationRow, PlanStepModel::PredictedColumn), m_step.exposedCommS);
    QCOMPARE(seconds(PlanStepModel::ComputeRow, PlanStepModel::DifferenceColumn),
             static_cast<double>(measured->time.computeNs) / 1e9 - m_step.computeS);
    QCOMPARE(seconds(PlanStepModel::CommunicationRow, PlanStepModel::PredictedColumn), m_step.commS);
    model.setStep(measured, std::nullopt);
    QVERIFY(!model.data(model.index(PlanStepModel::StepTimeRow, PlanStepModel::DifferenceColumn)).isValid());
    QVERIFY(model.data(model.index(PlanStepModel::StepTimeRow, PlanStepModel::MeasuredColumn)).isValid());
  }

private:
  std::shared_ptr<const trace::TimelineIndex> m_index;
  plan::PredictionReport m_report;
  plan::PlannedStep m_step;
};

QTEST_MAIN(TestPlanLane)
#include "tst_plan_lane.moc"
