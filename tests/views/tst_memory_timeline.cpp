// SPDX-License-Identifier: Apache-2.0
// The memory timeline (views::MemoryTimeline) driven offscreen: a rank's measured bytes per category as lines and the
// plan's bytes as dashed levels, the rank switch, points appended while it is shown (no re-read of the store; new
// lines for offloaded and profiled memory), decimation of a long series, the hover text; then the run page's Plan vs
// actual tab with its rank selector under the table. Expected values are computed from the fed points and plan.
#include "charts/memory_timeline.h"
#include "common/formatting.h"
#include "common/memory_categories.h"
#include "planner/plan_vs_actual_model.h"
#include "runs/run_details_page.h"

#include "model_dump.h"

#include <fathom/common/memory_metric_keys.h>

#include <QChart>
#include <QComboBox>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QSignalSpy>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTest>
#include <QValueAxis>

#include <array>
#include <cmath>

using namespace Qt::StringLiterals;
using namespace fathom;
using views::MemoryCurve;
using views::MemoryTimeline;
using views::MetricSeriesStore;

namespace {

constexpr std::int64_t kRun = 7;
constexpr std::int64_t kStepEvery = 5;  // Accelerator::logMemory at every logged step
/// The model states the engines sample (parallel::kStateCategoryFields' categories).
constexpr std::array<MemoryCategory, 4> kStates{MemoryCategory::Parameters, MemoryCategory::Gradients,
                                                MemoryCategory::OptimizerStates, MemoryCategory::MasterWeights};

/// What rank `rank` holds of `category` at `step`: constant model states, optimizer states from the first step on.
double measured(int rank, MemoryCategory category, std::int64_t step) {
  const double base = (1 + static_cast<int>(category)) * 3.0 * 1024 * 1024 + rank * 65536.0;
  return category == MemoryCategory::OptimizerStates && step == 0 ? 0.0 : base;
}

/// What the plan predicts: measured bytes for parameters, 4 KiB less for gradients (so one difference shows), and
/// activations, which the engines do not sample.
double planned(int rank, MemoryCategory category) {
  if (category == MemoryCategory::Activations) {
    return 40.0 * 1024 * 1024;
  }
  return measured(rank, category, 1) - (category == MemoryCategory::Gradients ? 4096.0 : 0.0);
}

struct Feed {
  std::vector<store::MetricRow> rows;
  qint64 id = 1;
  void add(int rank, std::int64_t step, const std::string& key, double value) {
    rows.push_back(
        {store::MetricId{id++}, store::RunId{kRun}, store::MetricPoint{rank, step, 1000.0 + double(step), key, value}});
  }
};

/// Memory samples of `ranks` ranks at steps [first, last) every kStepEvery: the device states, nothing offloaded,
/// plus a loss the chart ignores.
void addSteps(Feed& feed, int ranks, std::int64_t first, std::int64_t last) {
  for (std::int64_t step = first; step < last; step += kStepEvery) {
    for (int rank = 0; rank < ranks; ++rank) {
      for (const MemoryCategory c : kStates) {
        feed.add(rank, step, memoryMetricKey(MemoryPlace::Device, c), measured(rank, c, step));
        feed.add(rank, step, memoryMetricKey(MemoryPlace::Host, c), 0.0);
      }
      feed.add(rank, step, "loss", 1.0);
    }
  }
}

/// The samples of 2 ranks at steps [0, last).
Feed fed(std::int64_t last) {
  Feed feed;
  addSteps(feed, 2, 0, last);
  return feed;
}

plan::PlanVsActual comparison(int ranks) {
  plan::PlanVsActual out;
  out.run = kRun;
  for (int rank = 0; rank < ranks; ++rank) {
    plan::RankComparison r;
    r.rank = rank;
    for (std::size_t i = 0; i < plan::kComparedMemoryCategories.size(); ++i) {
      r.memory[i].predicted = planned(rank, plan::kComparedMemoryCategories[i]);
    }
    out.ranks.push_back(r);
  }
  return out;
}

/// Shows `chart` offscreen on run kRun, with the plan of two ranks when `plan`; false when no window showed.
bool showOnRun(MemoryTimeline& chart, bool plan = true) {
  chart.resize(900, 400);
  chart.show();
  if (!QTest::qWaitForWindowExposed(&chart)) {
    return false;
  }
  chart.setRun(kRun);
  if (plan) {
    chart.setComparison(comparison(2));
  }
  chart.redrawNow();
  return true;
}

MemoryCurve device(MemoryCategory c) {
  return {c, MemoryPlace::Device, {}};
}

bool legendShows(const QChart* chart, QLineSeries* series) {
  const QList<QLegendMarker*> markers = chart->legend()->markers(series);
  return !markers.isEmpty() && markers.front()->isVisible();
}

/// Checks that the line of `category` draws exactly the points of `rank`'s `category` at `steps` (the series hold bytes
/// / unit).
void checkMeasured(const MemoryTimeline& chart, MemoryCategory category, int rank,
                   const std::vector<std::int64_t>& steps) {
  QLineSeries* series = chart.measuredSeries(device(category));
  QVERIFY(series != nullptr);
  QCOMPARE(chart.measuredPoints(device(category)), steps.size());
  QCOMPARE(series->count(), qsizetype(steps.size()));  // few points: one per pixel column, none merged
  for (qsizetype i = 0; i < series->count(); ++i) {
    const std::int64_t step = steps[static_cast<std::size_t>(i)];
    QCOMPARE(series->at(i).x(), double(step));
    QCOMPARE(series->at(i).y() * chart.unitBytes(), measured(rank, category, step));
  }
}

std::vector<std::int64_t> stepsOf(std::int64_t first, std::int64_t last) {
  std::vector<std::int64_t> out;
  for (std::int64_t s = first; s < last; s += kStepEvery) {
    out.push_back(s);
  }
  return out;
}

}  // namespace

class TestMemoryTimeline : public QObject {
  Q_OBJECT

private slots:
  void initTestCase() { fathom::test::useFixedLocale(); }

  void measuredLinesAndPlannedLevels() {
    MetricSeriesStore store;
    Feed feed = fed(100);
    store.append(feed.rows);
    MemoryTimeline chart(&store);
    QVERIFY(showOnRun(chart));
    // The legend shows its markers once it is laid out.
    QTRY_VERIFY(legendShows(chart.chart(), chart.measuredSeries(device(MemoryCategory::Parameters))));

    QCOMPARE(chart.ranks(), std::vector<int>({0, 1}));
    auto* xAxis = qobject_cast<QValueAxis*>(chart.chart()->axes(Qt::Horizontal).front());
    QVERIFY(xAxis->min() <= 0 && xAxis->max() >= 95);  // the steps logged, on round numbers
    // One line per sampled category on the device; the host's zeros draw nothing.
    std::vector<MemoryCurve> expected;
    for (const MemoryCategory c : kStates) {
      expected.push_back(device(c));
    }
    QCOMPARE(chart.curves(), expected);
    for (const MemoryCategory c : kStates) {
      checkMeasured(chart, c, 0, stepsOf(0, 100));
      QCOMPARE(chart.measuredSeries(device(c))->name(), views::PlanVsActualModel::categoryName(c));
      QCOMPARE(chart.measuredSeries(device(c))->pen().style(), Qt::SolidLine);
    }
    // A dashed level per planned category in the category's colour, at exactly the planned bytes, across the steps.
    for (const MemoryCategory c : plan::kComparedMemoryCategories) {
      QLineSeries* level = chart.plannedSeries(c);
      QVERIFY(level != nullptr);
      QCOMPARE(level->pen().style(), Qt::DashLine);
      QCOMPARE(level->pen().color(), views::categoryColor(c));
      QCOMPARE(level->count(), 2);
      QCOMPARE(level->at(0).x(), xAxis->min());
      QCOMPARE(level->at(1).x(), xAxis->max());
      QCOMPARE(level->at(0).y() * chart.unitBytes(), planned(0, c));
      QCOMPARE(level->at(1).y() * chart.unitBytes(), planned(0, c));
      QCOMPARE(chart.plannedBytes(c), std::optional<double>(planned(0, c)));
      // The legend names a level only where no measured line of its colour does (activations: not sampled).
      QCOMPARE(legendShows(chart.chart(), level), c == MemoryCategory::Activations);
    }
    // The highest value is 40 MiB (the planned activations): the axis is in MiB.
    QCOMPARE(chart.unitBytes(), 1024.0 * 1024.0);
  }

  void rankSwitchReadsThatRank() {
    MetricSeriesStore store;
    Feed feed = fed(50);
    store.append(feed.rows);
    MemoryTimeline chart(&store);
    QVERIFY(showOnRun(chart));
    const int rebuilds = chart.rebuildCount();
    chart.setRank(1);
    chart.redrawNow();
    QCOMPARE(chart.rank(), 1);
    QCOMPARE(chart.rebuildCount(), rebuilds + 1);
    for (const MemoryCategory c : kStates) {
      checkMeasured(chart, c, 1, stepsOf(0, 50));
    }
    for (const MemoryCategory c : plan::kComparedMemoryCategories) {
      QCOMPARE(chart.plannedSeries(c)->at(0).y() * chart.unitBytes(), planned(1, c));
    }
    chart.setRank(1);  // the rank shown: nothing to do
    QCOMPARE(chart.rebuildCount(), rebuilds + 1);
    chart.setRank(5);  // no samples, no plan: an empty chart
    QVERIFY(chart.curves().empty());
    QVERIFY(chart.plannedSeries(MemoryCategory::Parameters) == nullptr);
  }

  void appendedPointsExtendTheLines() {
    MetricSeriesStore store;
    Feed feed = fed(50);
    store.append(feed.rows);
    MemoryTimeline chart(&store);
    QVERIFY(showOnRun(chart));
    const int rebuilds = chart.rebuildCount();
    QLineSeries* parameters = chart.measuredSeries(device(MemoryCategory::Parameters));
    QSignalSpy ranksChanged(&chart, &MemoryTimeline::ranksChanged);

    // More steps of both ranks; rank 0 starts offloading optimizer states at step 60; a profiled window ends at 70;
    // a third rank appears.
    const std::size_t before = feed.rows.size();
    addSteps(feed, 2, 50, 100);
    const std::string hostStates = memoryMetricKey(MemoryPlace::Host, MemoryCategory::OptimizerStates);
    const double offloaded = 123.0 * 1024 * 1024;
    feed.add(0, 60, hostStates, offloaded);
    const std::string peak = profiledPeakMetricKey("cpu", MemoryCategory::Activations);
    const double peakBytes = 38.5 * 1024 * 1024;
    feed.add(0, 70, peak, peakBytes);
    feed.add(1, 70, peak, peakBytes + 1);
    feed.add(2, 70, memoryMetricKey(MemoryPlace::Device, MemoryCategory::Parameters), 1.0);
    const std::vector<store::MetricRow> batch(feed.rows.begin() + static_cast<std::ptrdiff_t>(before), feed.rows.end());
    store.append(batch);
    chart.pointsAppended(batch);
    chart.redrawNow();

    QCOMPARE(chart.rebuildCount(), rebuilds);                                        // appended, not re-read
    QCOMPARE(chart.measuredSeries(device(MemoryCategory::Parameters)), parameters);  // the same series, extended
    for (const MemoryCategory c : kStates) {
      checkMeasured(chart, c, 0, stepsOf(0, 100));
    }
    // The offloaded line: every host sample of rank 0 (the zeros before it included), dotted, named for the host.
    const MemoryCurve host{MemoryCategory::OptimizerStates, MemoryPlace::Host, {}};
    QCOMPARE(chart.measuredPoints(host), stepsOf(0, 100).size() + 1);
    QCOMPARE(chart.measuredSeries(host)->pen().style(), Qt::DotLine);
    QCOMPARE(chart.measuredSeries(host)->pen().color().rgb(),
             views::categoryColor(MemoryCategory::OptimizerStates).rgb());
    QVERIFY(chart.curveName(host) != chart.curveName(device(MemoryCategory::OptimizerStates)));
    QVERIFY(chart.measuredPoints({MemoryCategory::Gradients, MemoryPlace::Host, {}}) == 0);  // all zeros: not shown
    // The profiler's activation peak: one marked point; the planned activations now have a line of their colour.
    const MemoryCurve profiled{MemoryCategory::Activations, MemoryPlace::Device, "cpu"};
    QCOMPARE(chart.measuredPoints(profiled), std::size_t{1});
    QVERIFY(chart.measuredSeries(profiled)->pointsVisible());
    QCOMPARE(chart.measuredSeries(profiled)->at(0).y() * chart.unitBytes(), peakBytes);
    QVERIFY(chart.curveName(profiled).contains(u"cpu"_s));
    QTRY_VERIFY(legendShows(chart.chart(), chart.measuredSeries(profiled)));  // laid out
    QVERIFY(!legendShows(chart.chart(), chart.plannedSeries(MemoryCategory::Activations)));
    // The new lines are drawn under the planned levels, which were re-added above them.
    const QList<QAbstractSeries*> order = chart.chart()->series();
    QVERIFY(order.indexOf(chart.measuredSeries(profiled)) <
            order.indexOf(chart.plannedSeries(MemoryCategory::Activations)));
    // Rank 2 is offered once it logged memory.
    QCOMPARE(ranksChanged.count(), 1);
    QCOMPARE(chart.ranks(), std::vector<int>({0, 1, 2}));
    QCOMPARE(chart.rebuildCount(), rebuilds);
  }

  void longSeriesAreDecimated() {
    MetricSeriesStore store;
    Feed feed;
    const std::string key = memoryMetricKey(MemoryPlace::Device, MemoryCategory::Gradients);
    constexpr int kPoints = 200'000;
    for (int step = 0; step < kPoints; ++step) {
      feed.add(0, step, key, 1024.0 * (step % 977));
    }
    store.append(feed.rows);
    MemoryTimeline chart(&store);
    QVERIFY(showOnRun(chart, false));
    QCOMPARE(chart.measuredPoints(device(MemoryCategory::Gradients)), std::size_t{kPoints});
    // At most two points per pixel column (plus one beyond each edge), once the chart has settled on its layout.
    const auto columns = [&chart] { return static_cast<int>(std::lround(chart.chart()->plotArea().width())); };
    const auto drawn = [&chart] { return chart.measuredSeries(device(MemoryCategory::Gradients))->count(); };
    QTRY_VERIFY2(drawn() <= 2 * columns() + 2, qPrintable(u"%1 points for %2 columns"_s.arg(drawn()).arg(columns())));
    QVERIFY(columns() > 100);
    QVERIFY(drawn() > columns());  // every column drawn, not a sample of them
  }

  void hoverComparesMeasuredWithPlanned() {
    MetricSeriesStore store;
    Feed feed = fed(50);
    const std::string peak = profiledPeakMetricKey("cuda:0", MemoryCategory::Activations);
    const double peakBytes = 39.0 * 1024 * 1024;
    feed.add(0, 10, peak, peakBytes);
    store.append(feed.rows);
    MemoryTimeline chart(&store);
    chart.setRun(kRun);
    chart.setComparison(comparison(2));

    const auto line = [](const QString& name, double m, double p) {
      return MemoryTimeline::tr("%1: measured %2, planned %3 (%4)")
          .arg(name, views::format::bytes(m), views::format::bytes(p),
               m == p ? MemoryTimeline::tr("exact") : views::format::signedBytes(m - p));
    };
    // x = 21.7: the nearest sample is at step 20; the activation peak of step 10 holds until the next one.
    const std::int64_t step = 20;
    QStringList expected{MemoryTimeline::tr("Rank %1, step %2").arg(0).arg(step)};
    for (const MemoryCategory c : kStates) {
      expected << line(views::PlanVsActualModel::categoryName(c), measured(0, c, step), planned(0, c));
    }
    const MemoryCurve profiled{MemoryCategory::Activations, MemoryPlace::Device, "cuda:0"};
    expected << line(chart.curveName(profiled), peakBytes, planned(0, MemoryCategory::Activations));
    QCOMPARE(chart.valuesAt(21.7).split(u'\n'), expected);
    QVERIFY(chart.valuesAt(21.7).contains(MemoryTimeline::tr("exact")));       // parameters: as planned
    QVERIFY(chart.valuesAt(21.7).contains(views::format::signedBytes(4096)));  // gradients: 4 KiB above the plan

    // Before the peak was measured, activations show the plan alone.
    const QStringList early = chart.valuesAt(4).split(u'\n');
    QCOMPARE(early.front(), MemoryTimeline::tr("Rank %1, step %2").arg(0).arg(5));
    QCOMPARE(early.back(), MemoryTimeline::tr("%1: planned %2")
                               .arg(views::PlanVsActualModel::categoryName(MemoryCategory::Activations),
                                    views::format::bytes(planned(0, MemoryCategory::Activations))));
  }

  void runPageShowsTheTimelineBesideThePlanTable() {
    views::RunDetailsPage page;
    page.resize(1200, 900);
    page.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page));
    Feed feed = fed(40);
    views::RunDelta first;
    first.info.id = store::RunId{kRun};
    first.info.status = store::RunStatus::Running;
    first.info.layout.worldSize = 2;
    first.metrics = feed.rows;
    first.first = true;
    first.plan = views::RunPlanComparison{true, "launch", comparison(2), {}};
    page.applyDelta(first);

    // Beside the table, in a splitter: the rank selector and the chart (each the tab's height).
    auto* splitter = page.findChild<QSplitter*>(u"planSplitter"_s);
    QVERIFY(splitter != nullptr);
    QCOMPARE(splitter->orientation(), Qt::Horizontal);
    QCOMPARE(splitter->widget(0), page.findChild<QTableView*>(u"planVsActualTable"_s));
    QVERIFY(splitter->widget(1)->isAncestorOf(page.memoryTimeline()));
    QVERIFY(splitter->widget(1)->isAncestorOf(page.memoryRankCombo()));

    MemoryTimeline* chart = page.memoryTimeline();
    QComboBox* ranks = page.memoryRankCombo();
    QCOMPARE(ranks->count(), 2);
    QCOMPARE(ranks->itemData(0).toInt(), 0);
    QCOMPARE(ranks->itemData(1).toInt(), 1);
    QCOMPARE(chart->run(), kRun);
    QCOMPARE(chart->measuredPoints(device(MemoryCategory::Parameters)), stepsOf(0, 40).size());
    QCOMPARE(chart->plannedBytes(MemoryCategory::Gradients),
             std::optional<double>(planned(0, MemoryCategory::Gradients)));

    // On a tab not shown nothing is drawn; showing the tab draws.
    QCOMPARE(chart->measuredSeries(device(MemoryCategory::Parameters))->count(), 0);
    page.findChild<QTabWidget*>(u"runTabs"_s)->setCurrentWidget(splitter->parentWidget());
    QTRY_COMPARE(chart->measuredSeries(device(MemoryCategory::Parameters))->count(), qsizetype(stepsOf(0, 40).size()));

    ranks->setCurrentIndex(1);
    QCOMPARE(chart->rank(), 1);
    QCOMPARE(chart->plannedBytes(MemoryCategory::Gradients),
             std::optional<double>(planned(1, MemoryCategory::Gradients)));
    const int rebuilds = chart->rebuildCount();

    // The next read appends.
    const std::size_t before = feed.rows.size();
    addSteps(feed, 2, 40, 60);
    views::RunDelta next;
    next.info = first.info;
    next.metrics.assign(feed.rows.begin() + static_cast<std::ptrdiff_t>(before), feed.rows.end());
    page.applyDelta(next);
    QCOMPARE(chart->rebuildCount(), rebuilds);
    QCOMPARE(chart->measuredPoints(device(MemoryCategory::Parameters)), stepsOf(0, 60).size());
    QCOMPARE(ranks->currentIndex(), 1);
  }
};

QTEST_MAIN(TestMemoryTimeline)
#include "tst_memory_timeline.moc"
