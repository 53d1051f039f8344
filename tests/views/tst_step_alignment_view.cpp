// SPDX-License-Identifier: Apache-2.0
// The step alignment tab (issue 19) on the real 2-rank Gloo trace and a generated 4-rank trace with a straggler: the
// rank it highlights as last at each collective, in the table and in the marks it paints, is core's
// (trace::alignSteps); with a plan, the measured vs predicted table shows the chosen rank's step.
#include "timeline/plan_step_model.h"
#include "timeline/step_alignment_view.h"
#include "trace_generator.h"

#include <fathom/plan/planned_step.h>
#include <fathom/trace/step_alignment.h>
#include <fathom/trace/timeline_index.h>

#include <QTemporaryDir>
#include <QTest>

using namespace fathom;
using namespace fathom::views;

namespace {

std::shared_ptr<const trace::TimelineIndex> load(const std::filesystem::path& path) {
  auto index = trace::TimelineIndex::load(path);
  if (!index) {
    throw std::runtime_error("cancelled");
  }
  return std::make_shared<const trace::TimelineIndex>(std::move(*index));
}

/// Checks that the view, showing step `s`, highlights core's last rank of every collective, in its table and paint.
void checkStep(StepAlignmentView& view, const trace::StepAlignment& core, int s) {
  view.setCurrentStep(s);
  QCOMPARE(view.currentStep(), s);
  const trace::AlignedStep& step = core.steps.at(static_cast<std::size_t>(s));
  std::vector<int> expected;
  std::size_t arrivals = 0;
  for (const trace::AlignedCollective& c : step.collectives) {
    expected.push_back(c.lastRank);
    arrivals += c.ranks.size();
  }
  QCOMPARE(view.highlightedLastRanks(), expected);
  view.grab();  // paints the canvas
  const auto& marks = view.lastPaintMarks();
  QCOMPARE(marks.size(), arrivals);
  for (const trace::AlignedCollective& c : step.collectives) {
    int highlighted = 0;
    for (const StepAlignmentView::Mark& m : marks) {
      if (m.ordinal == c.ordinal && m.last) {
        ++highlighted;
        QCOMPARE(m.rank, c.lastRank);
      }
    }
    QCOMPARE(highlighted, c.ranks.size() > 1 ? 1 : 0);
  }
  // The last arrival is drawn right of (or at) every other arrival of its collective.
  for (const StepAlignmentView::Mark& last : marks) {
    if (!last.last) {
      continue;
    }
    for (const StepAlignmentView::Mark& m : marks) {
      if (m.ordinal == last.ordinal) {
        QVERIFY(m.x <= last.x);
      }
    }
  }
}

}  // namespace

class TestStepAlignmentView : public QObject {
  Q_OBJECT

private slots:
  void glooTwoRanks() {
    const auto index = load(std::filesystem::path(FATHOM_TEST_DATA_DIR) / "traces/gloo_2rank_merged.json.gz");
    StepAlignmentView view;
    view.resize(900, 500);
    view.setIndex(index);
    QCOMPARE(view.alignment().steps.size(), std::size_t{1});
    checkStep(view, trace::alignSteps(*index), 0);
    QCOMPARE(view.highlightedLastRanks(), std::vector<int>{1});  // rank 1 reached the all-reduce 90.5 ms late

    // With a plan: the measured step of the chosen rank against the planned step.
    QVERIFY(view.comparisonModel());
    plan::Prediction prediction;
    prediction.time.computeS = 0.12;
    prediction.time.stepS = 0.12;
    const plan::PlannedStep planned = plan::plannedStep(prediction, plan::Plan{});
    view.setPlan(planned);
    view.setComparedRank(1);
    QCOMPARE(view.comparedRank(), 1);
    const auto measured = trace::rankStepSummary(*index, 1, 1);
    QVERIFY(measured);
    const PlanStepModel* model = view.comparisonModel();
    QCOMPARE(model->measuredSeconds(PlanStepModel::StepTimeRow), static_cast<double>(measured->time.spanNs) / 1e9);
    QCOMPARE(model->predictedSeconds(PlanStepModel::StepTimeRow), 0.12);
    view.setPlan(std::nullopt);
    QVERIFY(!model->predictedSeconds(PlanStepModel::StepTimeRow));
  }

  void generatedStraggler() {
    QTemporaryDir dir;
    const auto path = std::filesystem::path(dir.path().toStdString()) / "straggler.json.gz";
    fathom::test::TraceGeneratorOptions options;
    options.events = 60'000;
    options.ranks = 4;
    options.slowRank = 3;
    options.slowRankDelayNs = 4'000'000;
    fathom::test::generateTrace(path, options);
    const auto index = load(path);
    StepAlignmentView view;
    view.resize(1000, 600);
    view.setIndex(index);
    const trace::StepAlignment core = trace::alignSteps(*index);
    QVERIFY(core.steps.size() >= 3);
    QCOMPARE(view.alignment().steps.size(), core.steps.size());
    for (int s = 0; s < static_cast<int>(core.steps.size()); ++s) {
      checkStep(view, core, s);
    }
    // The straggler is the last rank at every collective the four ranks share.
    view.setCurrentStep(1);
    for (const int last : view.highlightedLastRanks()) {
      QCOMPARE(last, 3);
    }
    view.setIndex(nullptr);
    QVERIFY(view.highlightedLastRanks().empty());
    QCOMPARE(view.currentStep(), -1);
  }
};

QTEST_MAIN(TestStepAlignmentView)
#include "tst_step_alignment_view.moc"
