// SPDX-License-Identifier: Apache-2.0
// The timeline's row arrangement (TimelineLayout) and its stacked counter charts (counter_stack.h), without a widget,
// on the repository's real 2-rank Gloo trace (Fathom's `Memory` counter: 8 series, one per memory category).
#include "timeline/counter_stack.h"
#include "timeline/timeline_layout.h"

#include <fathom/trace/timeline_queries.h>

#include <QTest>

#include <algorithm>
#include <set>

using namespace Qt::StringLiterals;
using fathom::trace::TimelineIndex;
using fathom::views::CounterChart;
using fathom::views::TimelineLayout;
using Row = TimelineLayout::Row;

namespace {

const char* const kTrace = FATHOM_TEST_DATA_DIR "/traces/gloo_2rank_merged.json.gz";

QStringList headers(const std::vector<Row>& rows) {
  QStringList out;
  for (const Row& row : rows)
    if (!row.header.isEmpty())
      out << row.header;
  return out;
}

/// Rows are contiguous from 0 and sorted by top (the invariant rowsIn's binary searches rely on).
bool contiguous(const std::vector<Row>& rows) {
  int top = 0;
  for (const Row& row : rows) {
    if (row.top != top || row.height <= 0)
      return false;
    top += row.height;
  }
  return true;
}

int rowsOfLane(const std::vector<Row>& rows, std::uint32_t lane) {
  return static_cast<int>(std::count_if(rows.begin(), rows.end(),
                                        [&](const Row& r) { return r.kind == Row::Kind::Slices && r.item == lane; }));
}

}  // namespace

class TestTimelineLayout : public QObject {
  Q_OBJECT

private slots:
  void initTestCase();
  void rowsFollowTheIndex();
  void collapseAndExpand();
  void reorderProcessesAndLanes();
  void pinnedLanesLeaveTheScrollingRows();
  void rowsInIsTheBruteForceBand();
  void planRowsSitUnderTheirProcess();
  void updateIndexKeepsTheArrangement();
  void memoryIsOneStackedChartPerRank();
  void stackTopIsTheSumOfTheSeries();

private:
  std::optional<TimelineIndex> m_index;
};

void TestTimelineLayout::initTestCase() {
  m_index = TimelineIndex::load(kTrace);
  QVERIFY(m_index.has_value());
}

void TestTimelineLayout::rowsFollowTheIndex() {
  TimelineLayout layout;
  layout.setIndex(&*m_index);
  QVERIFY(contiguous(layout.rows()));
  QVERIFY(layout.pinnedRows().empty());
  QCOMPARE(layout.pinnedHeight(), 0);
  // Per rank: its header, its 3 lanes (one row per depth), its Memory chart.
  const QStringList h = headers(layout.rows());
  QCOMPARE(h.size(), 2 * (1 + 3 + 1));
  QVERIFY2(h[0].startsWith(u"rank 0"_s), qPrintable(h.join(u'|')));
  QCOMPARE(h[1], u"main thread (9389)"_s);
  QCOMPARE(h[4], u"Memory"_s);
  std::size_t depthRows = 0;
  for (const auto& lane : m_index->lanes())
    depthRows += std::max<std::uint32_t>(1, lane.depthCount());
  QCOMPARE(layout.rows().size(), 2 + depthRows + 2);
  QCOMPARE(layout.contentHeight(), layout.rows().back().top + layout.rows().back().height);
}

void TestTimelineLayout::collapseAndExpand() {
  TimelineLayout layout;
  layout.setIndex(&*m_index);
  const std::size_t all = layout.rows().size();
  const std::uint32_t lane = m_index->processes()[0].lanes[0];  // rank 0's main thread: many depths
  const std::uint32_t depths = m_index->lane(lane).depthCount();
  QVERIFY(depths > 2);
  const auto first = std::find_if(layout.rows().begin(), layout.rows().end(),
                                  [&](const Row& r) { return r.kind == Row::Kind::Slices && r.item == lane; });
  QVERIFY(first->expandable);
  QVERIFY(!first->collapsed);

  // A collapsed lane keeps its first depth (with its header), marked collapsed.
  layout.setLaneCollapsed(lane, true);
  QCOMPARE(rowsOfLane(layout.rows(), lane), 1);
  QCOMPARE(layout.rows().size(), all - (depths - 1));
  QVERIFY(layout.findSliceRow(lane, 0)->collapsed);
  QVERIFY(layout.findSliceRow(lane, 1) == nullptr);
  QVERIFY(contiguous(layout.rows()));

  // A collapsed process is its header alone; the other rank is untouched.
  layout.setProcessCollapsed(0, true);
  const QStringList h = headers(layout.rows());
  QCOMPARE(h.size(), 1 + (1 + 3 + 1));
  QVERIFY(h[0].startsWith(u"rank 0"_s));
  QVERIFY(h[1].startsWith(u"rank 1"_s));
  QVERIFY(layout.rows().front().collapsed);
  QVERIFY(contiguous(layout.rows()));

  // Expanding to the lane opens both again.
  layout.expandToLane(lane);
  QVERIFY(!layout.isProcessCollapsed(0));
  QVERIFY(!layout.isLaneCollapsed(lane));
  QCOMPARE(layout.rows().size(), all);
  QCOMPARE(rowsOfLane(layout.rows(), lane), static_cast<int>(depths));
}

void TestTimelineLayout::reorderProcessesAndLanes() {
  TimelineLayout layout;
  layout.setIndex(&*m_index);
  QVERIFY(!layout.moveProcess(0, TimelineLayout::Move::Up));  // already first
  QVERIFY(layout.moveProcess(1, TimelineLayout::Move::ToTop));
  QCOMPARE(layout.processOrder(), (std::vector<std::uint32_t>{1, 0}));
  QVERIFY(headers(layout.rows())[0].startsWith(u"rank 1"_s));
  QVERIFY(contiguous(layout.rows()));
  QVERIFY(layout.moveProcess(1, TimelineLayout::Move::Down));
  QCOMPARE(layout.processOrder(), (std::vector<std::uint32_t>{0, 1}));

  const std::vector<std::uint32_t> lanes = m_index->processes()[0].lanes;  // main thread, Fathom's, collectives
  QVERIFY(layout.moveLane(lanes[2], TimelineLayout::Move::ToTop));
  QCOMPARE(layout.laneOrder(0), (std::vector<std::uint32_t>{lanes[2], lanes[0], lanes[1]}));
  QCOMPARE(headers(layout.rows())[1], u"collectives (gloo) #0"_s);
  QVERIFY(layout.moveLane(lanes[0], TimelineLayout::Move::Down));
  QCOMPARE(layout.laneOrder(0), (std::vector<std::uint32_t>{lanes[2], lanes[1], lanes[0]}));
  QVERIFY(!layout.moveLane(lanes[0], TimelineLayout::Move::Down));  // already last
  layout.moveLaneTo(lanes[0], 0);                                   // a dropped header
  QCOMPARE(layout.laneOrder(0), (std::vector<std::uint32_t>{lanes[0], lanes[2], lanes[1]}));
  layout.moveProcessTo(0, 5);  // clamped: last
  QCOMPARE(layout.processOrder(), (std::vector<std::uint32_t>{1, 0}));
}

void TestTimelineLayout::pinnedLanesLeaveTheScrollingRows() {
  TimelineLayout layout;
  layout.setIndex(&*m_index);
  const std::size_t all = layout.rows().size();
  const std::uint32_t collectives = m_index->processes()[1].lanes[2];  // rank 1's collectives row
  const int depths = static_cast<int>(std::max<std::uint32_t>(1, m_index->lane(collectives).depthCount()));
  layout.setLanePinned(collectives, true);
  QVERIFY(layout.isLanePinned(collectives));
  QCOMPARE(rowsOfLane(layout.pinnedRows(), collectives), depths);
  QCOMPARE(rowsOfLane(layout.rows(), collectives), 0);
  QCOMPARE(layout.rows().size(), all - static_cast<std::size_t>(depths));
  QCOMPARE(layout.pinnedHeight(), depths * layout.options().rowHeight);
  QVERIFY(contiguous(layout.pinnedRows()));
  QVERIFY(contiguous(layout.rows()));
  // Away from its process, its header says whose it is.
  QCOMPARE(layout.pinnedRows().front().header, u"rank 1 · collectives (gloo) #0"_s);
  QVERIFY(layout.findSliceRow(collectives, 0)->pinned);
  QCOMPARE(layout.pinnedRowAt(0)->item, collectives);

  layout.setLanePinned(collectives, false);
  QVERIFY(layout.pinnedRows().empty());
  QCOMPARE(layout.rows().size(), all);
}

void TestTimelineLayout::planRowsSitUnderTheirProcess() {
  TimelineLayout layout;
  layout.setIndex(&*m_index);
  const int before = layout.contentHeight();
  layout.setPlanProcesses({0, 1});
  QCOMPARE(layout.contentHeight(), before + 2 * layout.options().planHeight);
  // Each process's plan row comes right after its lanes' rows and before its charts.
  for (const std::uint32_t p : {0u, 1u}) {
    const auto& rows = layout.rows();
    const auto plan =
        std::find_if(rows.begin(), rows.end(), [&](const Row& r) { return r.kind == Row::Kind::Plan && r.item == p; });
    QVERIFY(plan != rows.end());
    QCOMPARE(plan->process, p);
    QCOMPARE(plan->height, layout.options().planHeight);
    QVERIFY(plan != rows.begin() && std::prev(plan)->kind == Row::Kind::Slices && std::prev(plan)->process == p);
    QVERIFY(std::next(plan) == rows.end() || std::next(plan)->kind != Row::Kind::Slices);
  }
  // It collapses with its process, and comes back with it.
  layout.setProcessCollapsed(0, true);
  const auto plans = [&] {
    return std::count_if(layout.rows().begin(), layout.rows().end(),
                         [](const Row& r) { return r.kind == Row::Kind::Plan; });
  };
  QCOMPARE(plans(), 1);
  layout.setProcessCollapsed(0, false);
  QCOMPARE(plans(), 2);
  layout.setPlanProcesses({});
  QCOMPARE(plans(), 0);
  QCOMPARE(layout.contentHeight(), before);
}

void TestTimelineLayout::updateIndexKeepsTheArrangement() {
  TimelineLayout layout;
  layout.setIndex(&*m_index);
  const std::uint32_t collectives = m_index->processes()[1].lanes[2];
  layout.setLanePinned(collectives, true);
  layout.setProcessCollapsed(0, true);
  layout.moveProcess(1, TimelineLayout::Move::ToTop);
  layout.setPlanProcesses({1});
  // The same trace loaded again (a live run's trace with the same lanes): the arrangement stays.
  const std::optional<TimelineIndex> again = TimelineIndex::load(kTrace);
  QVERIFY(again.has_value());
  layout.updateIndex(&*again);
  QCOMPARE(layout.index(), &*again);
  QVERIFY(layout.isLanePinned(collectives));
  QVERIFY(layout.isProcessCollapsed(0));
  QCOMPARE(layout.processOrder().front(), 1u);
  QVERIFY(layout.hasPlanRow(1));
  // A different trace: laid out afresh.
  layout.updateIndex(nullptr);
  QVERIFY(layout.rows().empty());
}

void TestTimelineLayout::rowsInIsTheBruteForceBand() {
  TimelineLayout layout;
  layout.setIndex(&*m_index);
  for (const auto& [top, bottom] : std::vector<std::pair<int, int>>{{0, 1}, {0, 300}, {17, 250}, {500, 2000}}) {
    const auto band = layout.rowsIn(top, bottom);
    std::vector<const Row*> expected;
    for (const Row& row : layout.rows())
      if (row.top < bottom && row.top + row.height > top)
        expected.push_back(&row);
    QCOMPARE(band.size(), expected.size());
    for (std::size_t i = 0; i < band.size(); ++i)
      QCOMPARE(&band[i], expected[i]);
    if (!band.empty())
      QCOMPARE(layout.rowAt(top), &band.front());
  }
}

void TestTimelineLayout::memoryIsOneStackedChartPerRank() {
  TimelineLayout layout;
  layout.setIndex(&*m_index);
  QCOMPARE(layout.charts().size(), std::size_t{2});
  for (const CounterChart& chart : layout.charts()) {
    QCOMPARE(m_index->name(chart.name), std::string_view("Memory"));
    QCOMPARE(chart.series.size(), std::size_t{8});
    std::set<std::string> categories;
    for (const std::uint32_t s : chart.series)
      categories.insert(m_index->counters()[s].series);
    QVERIFY(categories.contains("activations"));
    QVERIFY(categories.contains("parameters"));
    // The chart's top is the largest sum of the series at any sample time (brute force: every sample time, every
    // series' value then).
    std::set<std::int64_t> times;
    for (const std::uint32_t s : chart.series)
      times.insert(m_index->counters()[s].ts.begin(), m_index->counters()[s].ts.end());
    double top = 0;
    for (const std::int64_t t : times) {
      double sum = 0;
      for (const std::uint32_t s : chart.series)
        sum += fathom::trace::counterValueAt(m_index->counters()[s], t).value_or(0.0);
      top = std::max(top, sum);
    }
    QVERIFY(top > 0);
    QCOMPARE(chart.top, top);
    QCOMPARE(chart.bottom, 0.0);
  }
  // Its row is tall enough for its legend: the title and one line per series.
  const auto memory = std::find_if(layout.rows().begin(), layout.rows().end(),
                                   [](const Row& r) { return r.kind == Row::Kind::Counter; });
  QVERIFY(memory->height >= 9 * layout.options().legendLineHeight);
}

void TestTimelineLayout::stackTopIsTheSumOfTheSeries() {
  TimelineLayout layout;
  layout.setIndex(&*m_index);
  const CounterChart& chart = layout.charts()[0];
  const fathom::trace::TimeRange whole{m_index->data().startNs, m_index->data().endNs};
  const fathom::trace::TimeRange part{whole.startNs + (whole.endNs - whole.startNs) / 3,
                                      whole.startNs + (whole.endNs - whole.startNs) / 2};
  for (const auto range : {whole, part}) {
    for (const int pixels : {50, 700}) {
      fathom::views::CounterStack stack;
      std::vector<fathom::trace::CounterPixel> scratch;
      fathom::views::stackCounterColumns(*m_index, chart, range, pixels, stack, scratch);
      QCOMPARE(stack.series, chart.series.size());
      for (int c = 0; c < pixels; ++c) {
        // Brute force per series: its largest sample in the column, else the last sample in an earlier column (or
        // before the range), else 0.
        double sum = 0;
        for (std::size_t s = 0; s < chart.series.size(); ++s) {
          const auto& series = m_index->counters()[chart.series[s]];
          std::optional<double> peak;
          double held = 0;
          for (std::size_t i = 0; i < series.ts.size(); ++i) {
            const std::int64_t t = series.ts[i];
            if (t >= range.endNs)
              break;
            const auto column = t < range.startNs ? -1
                                                  : static_cast<int>(static_cast<__int128>(t - range.startNs) * pixels /
                                                                     (range.endNs - range.startNs));
            if (column == c)
              peak = std::max(peak.value_or(series.value[i]), series.value[i]);
            else if (column < c)
              held = series.value[i];
          }
          const double value = peak.value_or(held);
          sum += value;
          QVERIFY(std::abs(stack.top(s, c) - (s == 0 ? 0.0 : stack.top(s - 1, c)) - value) <= 1e-6 * (1 + value));
        }
        QVERIFY2(std::abs(stack.top(chart.series.size() - 1, c) - sum) <= 1e-6 * (1 + sum),
                 qPrintable(u"column %1: %2 vs %3"_s.arg(c).arg(stack.top(chart.series.size() - 1, c)).arg(sum)));
      }
    }
  }
}

QTEST_GUILESS_MAIN(TestTimelineLayout)
#include "tst_timeline_layout.moc"
