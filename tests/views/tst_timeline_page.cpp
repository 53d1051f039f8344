// SPDX-License-Identifier: Apache-2.0
// The trace timeline's page driven as a user drives it (offscreen), on the repository's real 2-rank Gloo trace:
// search (counts equal trace::searchSlices', regex and case toggles, an invalid regex's message, Enter/Shift+Enter
// cycling and revealing matches, the search off the GUI thread), match outlines bounded per pixel column, the minimap
// (click, drag, edges, following the view), collapse/expand by clicking a header, reorder by dragging one, pinned
// lanes staying at the top while the rows scroll, Ctrl+F, the selection panels under the view (a clicked slice's
// details, a Shift+drag area's aggregation, the search's match selected, Export Range's selection, their rows in the
// short panel of a 1500 x 900 window); and a generated
// 4-rank GPU trace's frame with stacked memory charts and a search's outlines.
#include "timeline/area_panel.h"
#include "timeline/counter_stack.h"
#include "timeline/slice_details_panel.h"
#include "timeline/time_coords.h"
#include "timeline/timeline_export.h"
#include "timeline/timeline_minimap.h"
#include "timeline/timeline_page.h"
#include "timeline/timeline_search_bar.h"
#include "timeline/timeline_view.h"
#include "trace_generator.h"

#include <fathom/trace/timeline_queries.h>

#include <QAction>
#include <QApplication>
#include <QFormLayout>
#include <QHeaderView>
#include <QImage>
#include <QLineEdit>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

using namespace Qt::StringLiterals;
using fathom::trace::SliceRef;
using fathom::trace::TimeRange;
using fathom::views::TimelineLayout;
using fathom::views::TimelinePage;
using fathom::views::TimelineView;

namespace {

const QString kTrace = QStringLiteral(FATHOM_TEST_DATA_DIR "/traces/gloo_2rank_merged.json.gz");

std::size_t expectedTotal(const fathom::trace::TimelineIndex& index, const std::string& pattern, bool regex,
                          bool caseSensitive = false) {
  fathom::trace::SearchOptions options;
  options.pattern = pattern;
  options.regex = regex;
  options.caseSensitive = caseSensitive;
  return fathom::trace::searchSlices(index, options).total;
}

/// The viewport point over the header column of `lane`'s first row.
QPoint laneHeader(const TimelineView& view, std::uint32_t lane, int x = 20) {
  return {x, *view.laneRowY(lane, 0) + view.layout().options().rowHeight / 2};
}

void triggerHeaderAction(TimelineView& view, const QPoint& at, const QString& name) {
  std::unique_ptr<QMenu> menu(view.createHeaderMenu(at));
  QVERIFY(menu != nullptr);
  auto* action = menu->findChild<QAction*>(name);
  QVERIFY2(action != nullptr && action->isEnabled(), qPrintable(name));
  action->trigger();
}

}  // namespace

class TestTimelinePage : public QObject {
  Q_OBJECT

private slots:
  void init();
  void cleanup() { m_page.reset(); }
  void searchCountsEqualSearchSlices();
  void invalidRegexShowsTheIndexMessage();
  void enterCyclesAndRevealsMatches();
  void searchRunsOffTheGuiThreadForLargeIndices();
  void matchOutlinesAreBoundedPerColumn();
  void minimapMovesAndResizesTheRange();
  void headerClickCollapsesAndDragReorders();
  void pinnedLanesStayAtTheTopWhileScrolling();
  void ctrlFFocusesTheSearch();
  void panelsFollowTheSelection();
  void shortPanelsKeepTheirRows();
  void stackedChartPixelsFollowTheSums();
  void generatedTraceFrameWithStacksAndMatches();

private:
  std::unique_ptr<TimelinePage> m_page;
  TimelineView* view() { return m_page->view(); }
  fathom::views::TimelineSearchBar* bar() { return m_page->searchBar(); }
};

void TestTimelinePage::init() {
  m_page = std::make_unique<TimelinePage>();
  m_page->resize(1300, 700);
  m_page->show();
  QVERIFY(QTest::qWaitForWindowExposed(m_page.get()));
  if (QByteArray(QTest::currentTestFunction()).startsWith("generated"))
    return;
  QSignalSpy loaded(view(), &TimelineView::loaded);
  m_page->open(kTrace);
  QVERIFY(loaded.wait(30'000));
  QCOMPARE(m_page->path(), kTrace);
}

void TestTimelinePage::searchCountsEqualSearchSlices() {
  const auto& index = *view()->index();
  QSignalSpy finished(bar(), &fathom::views::TimelineSearchBar::searchFinished);
  bar()->setPattern(u"aten::copy_"_s);
  QVERIFY(finished.wait(5'000));  // after the typing pause
  QCOMPARE(bar()->totalMatches(), expectedTotal(index, "aten::copy_", false));
  QCOMPARE(bar()->totalMatches(), std::size_t{334});  // the trace's own count (334 aten::copy_ slices)
  QCOMPARE(bar()->matches()->size(), bar()->totalMatches());
  QCOMPARE(bar()->statusText(), u"334 matches"_s);
  QCOMPARE(bar()->currentIndex(), -1);

  // Case folding by default; the case toggle makes it exact.
  bar()->setPattern(u"ATEN::COPY_"_s);
  bar()->search();
  QCOMPARE(bar()->totalMatches(), std::size_t{334});
  bar()->setCaseSensitive(true);
  bar()->search();
  QCOMPARE(bar()->totalMatches(), std::size_t{0});
  QCOMPARE(bar()->statusText(), u"No matches"_s);
  bar()->setCaseSensitive(false);

  // A regex.
  bar()->setRegex(true);
  bar()->setPattern(u"^aten::(mul|add)_?$"_s);
  bar()->search();
  const std::size_t regex = expectedTotal(index, "^aten::(mul|add)_?$", true);
  QVERIFY(regex >= 180 + 240 + 168);  // aten::mul, aten::add_, aten::mul_, and aten::add when it is there
  QCOMPARE(bar()->totalMatches(), regex);
  // Without the toggle the same text is a substring no name contains.
  bar()->setRegex(false);
  bar()->search();
  QCOMPARE(bar()->totalMatches(), std::size_t{0});
  // An empty pattern clears the matches, and the view's outlines.
  bar()->setPattern({});
  bar()->search();
  QVERIFY(bar()->matches() == nullptr);
  QCOMPARE(bar()->statusText(), QString());
}

void TestTimelinePage::invalidRegexShowsTheIndexMessage() {
  bar()->setRegex(true);
  bar()->setPattern(u"aten::(mul"_s);
  bar()->search();
  fathom::trace::SearchOptions options{.pattern = "aten::(mul", .regex = true};
  QString expected;
  try {
    (void)fathom::trace::searchSlices(*view()->index(), options);
  } catch (const std::exception& e) {
    expected = QString::fromStdString(e.what());
  }
  QVERIFY(!expected.isEmpty());
  QVERIFY2(expected.contains(u"aten::(mul"_s), qPrintable(expected));
  QCOMPARE(bar()->errorMessage(), expected);
  QCOMPARE(bar()->statusText(), expected);
  QVERIFY(bar()->matches() == nullptr);
  bar()->next();  // nothing to go to: no crash, no current match
  QCOMPARE(bar()->currentIndex(), -1);
}

void TestTimelinePage::enterCyclesAndRevealsMatches() {
  const auto& index = *view()->index();
  QLineEdit* field = bar()->patternField();
  // Zoom deep into the trace's start, and collapse rank 1: revealing a match must undo both.
  view()->setVisibleRange({index.data().startNs, index.data().startNs + 1000});
  view()->changeLayout([](TimelineLayout& l) { l.setProcessCollapsed(1, true); });
  QTest::keyClicks(field, u"fathom::"_s);
  QTest::keyClick(field, Qt::Key_Return);  // right after typing: searches at once, then goes to the first match
  QCOMPARE(bar()->totalMatches(), expectedTotal(index, "fathom::", false));
  const std::size_t count = bar()->totalMatches();
  QCOMPARE(count, std::size_t{12});  // 6 of Fathom's spans per rank
  QCOMPARE(bar()->currentIndex(), 0);
  QCOMPARE(bar()->statusText(), u"1 of %1"_s.arg(count));

  const auto revealed = [&](SliceRef match) {
    const auto& lane = index.lane(match.lane);
    const TimeRange r = view()->visibleRange();
    const auto y = view()->laneRowY(match.lane, lane.depthOf(match.index));
    return lane.start[match.index] >= r.startNs && lane.end[match.index] <= r.endNs && y && *y >= 0 &&
           *y + view()->layout().options().rowHeight <= view()->viewport()->height();
  };
  QVERIFY(revealed((*bar()->matches())[0]));
  // Walk to a match of rank 1: its process opens again.
  std::optional<std::size_t> rank1;
  for (std::size_t i = 0; i < count; ++i)
    if (index.lane((*bar()->matches())[i].lane).process == 1) {
      rank1 = i;
      break;
    }
  QVERIFY(rank1.has_value());
  for (std::size_t i = 0; i < *rank1; ++i)
    QTest::keyClick(field, Qt::Key_Return);
  QCOMPARE(bar()->currentIndex(), static_cast<int>(*rank1));
  QVERIFY(!view()->layout().isProcessCollapsed(1));
  QVERIFY(revealed(*bar()->currentMatch()));

  // Shift+Enter goes back; from the first, Previous wraps to the last; Next from the last wraps to the first.
  QTest::keyClick(field, Qt::Key_Return, Qt::ShiftModifier);
  QCOMPARE(bar()->currentIndex(), static_cast<int>(*rank1) - 1);
  while (bar()->currentIndex() != 0)
    QTest::keyClick(field, Qt::Key_Return, Qt::ShiftModifier);
  QTest::mouseClick(bar()->findChild<QToolButton*>(u"searchPrevious"_s), Qt::LeftButton);
  QCOMPARE(bar()->currentIndex(), static_cast<int>(count) - 1);
  QVERIFY(revealed(*bar()->currentMatch()));
  QCOMPARE(bar()->statusText(), u"%1 of %1"_s.arg(count));
  QTest::mouseClick(bar()->findChild<QToolButton*>(u"searchNext"_s), Qt::LeftButton);
  QCOMPARE(bar()->currentIndex(), 0);
}

void TestTimelinePage::searchRunsOffTheGuiThreadForLargeIndices() {
  fathom::views::TimelineSearchBar async({.debounceMs = 10'000, .asyncSlices = 0});  // every index is "large"
  async.setIndex(view()->sharedIndex());
  QSignalSpy finished(&async, &fathom::views::TimelineSearchBar::searchFinished);
  async.setPattern(u"aten::"_s);
  async.search();
  QVERIFY(async.isSearching());
  QCOMPARE(async.statusText(), u"Searching…"_s);
  QVERIFY(finished.wait(10'000));
  QVERIFY(!async.isSearching());
  QCOMPARE(async.totalMatches(), expectedTotal(*view()->index(), "aten::", false));
  // A superseded search's result is dropped: only the last one lands.
  async.setPattern(u"aten::mul"_s);
  async.search();
  async.setPattern(u"aten::add_"_s);
  async.search();
  QVERIFY(finished.wait(10'000));
  QTest::qWait(100);
  QCOMPARE(finished.count(), 2);
  QCOMPARE(async.totalMatches(), std::size_t{240});
  // Next while a search runs steps once it lands.
  async.setPattern(u"aten::copy_"_s);
  async.search();
  async.next();
  QVERIFY(finished.wait(10'000));
  QCOMPARE(async.currentIndex(), 0);
}

void TestTimelinePage::matchOutlinesAreBoundedPerColumn() {
  bar()->setPattern(u"aten::"_s);
  bar()->search();
  QVERIFY(bar()->totalMatches() > 2000);
  view()->resize(view()->width(), 2000);
  (void)view()->viewport()->grab();
  const auto stats = view()->lastPaint();
  QVERIFY(stats.matchOutlines > 0);
  QVERIFY2(stats.matchOutlines <= stats.pixels * stats.rows,
           qPrintable(u"%1 outlines, %2 x %3"_s.arg(stats.matchOutlines).arg(stats.pixels).arg(stats.rows)));
  QVERIFY(static_cast<std::size_t>(stats.matchOutlines) < bar()->totalMatches());
  qInfo("fit: %zu matches, %d outlined, %.2f ms", bar()->totalMatches(), stats.matchOutlines, stats.milliseconds);
}

void TestTimelinePage::minimapMovesAndResizesTheRange() {
  auto* minimap = m_page->minimap();
  const auto& index = *view()->index();
  const TimeRange whole{index.data().startNs, index.data().endNs};
  QCOMPARE(minimap->visibleRange().startNs, whole.startNs);
  QCOMPARE(minimap->visibleRange().endNs, whole.endNs);
  // The density strip: one busy fraction per pixel, some busy.
  const std::vector<float>& density = minimap->density();
  QCOMPARE(static_cast<int>(density.size()), minimap->width());
  QVERIFY(std::all_of(density.begin(), density.end(), [](float f) { return f >= 0 && f <= 1; }));
  QVERIFY(*std::max_element(density.begin(), density.end()) > 0.1f);

  // It follows the view.
  for (int i = 0; i < 8; ++i)
    QTest::keyClick(view(), Qt::Key_W);
  const TimeRange zoomed = view()->visibleRange();
  QCOMPARE(minimap->visibleRange().startNs, zoomed.startNs);
  QCOMPARE(minimap->visibleRange().endNs, zoomed.endNs);
  const std::int64_t length = zoomed.endNs - zoomed.startNs;

  // A click outside the box centres the range there, keeping its length.
  const int x = minimap->width() / 10;
  QTest::mouseClick(minimap, Qt::LeftButton, {}, {x, minimap->height() / 2});
  TimeRange r = view()->visibleRange();
  QCOMPARE(r.endNs - r.startNs, length);
  QVERIFY(std::abs((r.startNs + r.endNs) / 2 - minimap->xToTime(x)) <= length / 100 + 1);
  QCOMPARE(minimap->visibleRange().startNs, r.startNs);

  // Dragging the box 200 px to the right moves the range by 200 px of the whole trace.
  const QRect box = minimap->rangeBox();
  const QPoint from(box.center().x(), minimap->height() / 2);
  QTest::mousePress(minimap, Qt::LeftButton, {}, from);
  QTest::mouseMove(minimap, from + QPoint(200, 0));
  QTest::mouseRelease(minimap, Qt::LeftButton, {}, from + QPoint(200, 0));
  const TimeRange moved = view()->visibleRange();
  QCOMPARE(moved.endNs - moved.startNs, length);
  const double perPixel = static_cast<double>(whole.endNs - whole.startNs) / minimap->width();
  QVERIFY(std::abs(static_cast<double>(moved.startNs - r.startNs) - 200 * perPixel) <= 2 * perPixel);

  // Dragging the box's right edge 100 px further right widens the range; its start stays.
  r = moved;
  const QPoint edge(minimap->rangeBox().right() + 1, minimap->height() / 2);
  QTest::mousePress(minimap, Qt::LeftButton, {}, edge);
  QTest::mouseMove(minimap, edge + QPoint(100, 0));
  QTest::mouseRelease(minimap, Qt::LeftButton, {}, edge + QPoint(100, 0));
  const TimeRange wider = view()->visibleRange();
  QCOMPARE(wider.startNs, r.startNs);
  QVERIFY(std::abs(static_cast<double>(wider.endNs - r.endNs) - 100 * perPixel) <= 2 * perPixel);
}

void TestTimelinePage::headerClickCollapsesAndDragReorders() {
  TimelineView& v = *view();
  const auto& index = *v.index();
  const QStringList before = v.headers();
  const std::uint32_t main = index.processes()[0].lanes[0];
  const int depths = static_cast<int>(index.lane(main).depthCount());
  const int rowHeight = v.layout().options().rowHeight;
  const int contentBefore = v.layout().contentHeight();
  QSignalSpy changed(&v, &TimelineView::layoutChanged);

  // Clicking the lane's header collapses it to its first depth; clicking again expands it.
  QTest::mouseClick(v.viewport(), Qt::LeftButton, {}, laneHeader(v, main));
  QCOMPARE(changed.count(), 1);
  QVERIFY(v.layout().isLaneCollapsed(main));
  QCOMPARE(v.layout().contentHeight(), contentBefore - (depths - 1) * rowHeight);
  QCOMPARE(v.headers(), before);  // the lane keeps its header row
  QTest::mouseClick(v.viewport(), Qt::LeftButton, {}, laneHeader(v, main));
  QVERIFY(!v.layout().isLaneCollapsed(main));
  QCOMPARE(v.layout().contentHeight(), contentBefore);

  // Clicking a process's header collapses the process: its lanes' headers go.
  const int processY = v.layout().rows().front().top + 24 + 5;  // below the ruler
  QTest::mouseClick(v.viewport(), Qt::LeftButton, {}, {20, processY});
  QVERIFY(v.layout().isProcessCollapsed(0));
  QCOMPARE(v.headers().size(), before.size() - 3);
  QCOMPARE(v.laneCount(), 3);
  QTest::mouseClick(v.viewport(), Qt::LeftButton, {}, {20, processY});
  QCOMPARE(v.headers(), before);

  // Dragging the collectives row's header onto the main thread's puts it first.
  const std::uint32_t collectives = index.processes()[0].lanes[2];
  const QPoint from = laneHeader(v, collectives);
  const QPoint to = laneHeader(v, main);
  QTest::mousePress(v.viewport(), Qt::LeftButton, {}, from);
  QTest::mouseMove(v.viewport(), from - QPoint(0, 10));
  QTest::mouseMove(v.viewport(), to);
  (void)v.viewport()->grab();  // paints the drop line mid-drag
  QVERIFY(v.lastPaint().rows > 0);
  QTest::mouseRelease(v.viewport(), Qt::LeftButton, {}, to);
  QCOMPARE(v.layout().laneOrder(0).front(), collectives);
  QCOMPARE(v.headers()[1], u"collectives (gloo) #0"_s);
  QVERIFY(!v.layout().isLaneCollapsed(collectives));  // a drag is not a click

  // The context menu moves processes: rank 1 to the top.
  const auto rank1 = std::find_if(v.layout().rows().begin(), v.layout().rows().end(), [](const auto& r) {
    return r.kind == TimelineLayout::Row::Kind::Process && r.item == 1;
  });
  v.verticalScrollBar()->setValue(rank1->top);
  const int rank1Y = rank1->top + 24 + 5 - v.verticalScrollBar()->value();
  triggerHeaderAction(v, {20, rank1Y}, u"moveToTop"_s);
  QVERIFY(v.headers()[0].startsWith(u"rank 1"_s));
}

void TestTimelinePage::pinnedLanesStayAtTheTopWhileScrolling() {
  TimelineView& v = *view();
  const auto& index = *v.index();
  v.resize(v.width(), 300);                                         // rows to scroll
  const std::uint32_t collectives = index.processes()[1].lanes[2];  // rank 1's collectives row: at the bottom
  v.ensureLaneVisible(collectives, 0);
  triggerHeaderAction(v, laneHeader(v, collectives), u"pin"_s);
  QVERIFY(v.layout().isLanePinned(collectives));
  const int ruler = TimelineView::Options{}.rulerHeight;
  QCOMPARE(*v.laneRowY(collectives, 0), ruler);
  QCOMPARE(v.headers().front(), u"rank 1 · collectives (gloo) #0"_s);
  QVERIFY(v.verticalScrollBar()->maximum() > 0);
  for (const int scroll : {0, v.verticalScrollBar()->maximum() / 2, v.verticalScrollBar()->maximum()}) {
    v.verticalScrollBar()->setValue(scroll);
    QCOMPARE(*v.laneRowY(collectives, 0), ruler);
    // What is under the pinned row is the pinned lane: its slice's tooltip, whatever the scroll.
    const auto slice = index.lane(collectives).start[0];
    const int x = v.viewport()->width() - v.plotWidth() +
                  static_cast<int>(fathom::views::timeToPixel(v.visibleRange(), v.plotWidth(), slice)) + 1;
    const QString tip = v.toolTipAt({x, ruler + 8});
    QVERIFY2(tip.startsWith(u"fathom::"_s), qPrintable(tip));
    (void)v.viewport()->grab();
    QVERIFY(v.lastPaint().rows > 0);
    // The selection's geometry knows the pinned row: its slices are drawn there, a box over it selects its lane.
    QCOMPARE(static_cast<int>(v.sliceRect(SliceRef{collectives, 0})->top()), ruler);
    QCOMPARE(v.lanesBetween(ruler + 2, ruler + 8), std::vector<std::uint32_t>{collectives});
  }
  // The scrolled rows start below the pinned ones: the first scrolling row is just under them at scroll 0.
  v.verticalScrollBar()->setValue(0);
  QCOMPARE(*v.laneRowY(index.processes()[0].lanes[0], 0),
           ruler + v.layout().pinnedHeight() + v.layout().options().processHeight);
  // Unpinning puts it back in its process.
  triggerHeaderAction(v, {20, ruler + 8}, u"pin"_s);
  QVERIFY(!v.layout().isLanePinned(collectives));
  QVERIFY(v.headers().front().startsWith(u"rank 0"_s));
}

void TestTimelinePage::panelsFollowTheSelection() {
  TimelineView& v = *view();
  const auto& index = *v.index();
  QTabWidget* tabs = m_page->panelTabs();
  QCOMPARE(m_page->splitter()->indexOf(tabs), 1);
  QCOMPARE(tabs->tabText(TimelinePage::kDetailsTab), u"Details"_s);
  QCOMPARE(tabs->tabText(TimelinePage::kAreaTab), u"Area"_s);
  // Rank 0's main thread: its first ProfilerStep, clicked in its middle.
  const std::uint32_t main = index.processes()[0].lanes[0];
  const auto& lane = index.lane(main);
  std::optional<SliceRef> step;
  for (std::uint32_t i = 0; i < lane.sliceCount() && !step; ++i)
    if (index.name(lane.name[i]).starts_with("ProfilerStep#"))
      step = SliceRef{main, i};
  QVERIFY(step.has_value());
  v.verticalScrollBar()->setValue(0);
  const QRectF rect = *v.sliceRect(*step);
  const QPoint centre(static_cast<int>(std::max<double>(rect.left() + 2, v.viewport()->width() - v.plotWidth() + 2)),
                      static_cast<int>(rect.center().y()));
  QCOMPARE(v.sliceAtPos(centre), step);
  tabs->setCurrentIndex(TimelinePage::kAreaTab);
  QTest::mouseClick(v.viewport(), Qt::LeftButton, {}, centre);
  QCOMPARE(v.selectedSlice(), step);
  QCOMPARE(tabs->currentIndex(), TimelinePage::kDetailsTab);
  QCOMPARE(m_page->detailsPanel()->slice(), step);
  QVERIFY(m_page->detailsPanel()->details().has_value());

  // Shift+drag over rank 0's first two lanes, from a quarter to half the plot: the Area tab, with the aggregation of
  // that range and those lanes.
  const int header = v.viewport()->width() - v.plotWidth();
  const QPoint press(header + v.plotWidth() / 4, static_cast<int>(rect.center().y()));
  const QPoint release(header + v.plotWidth() / 2, *v.laneRowY(index.processes()[0].lanes[1], 0) + 4);
  QTest::mousePress(v.viewport(), Qt::LeftButton, Qt::ShiftModifier, press);
  QMouseEvent move(QEvent::MouseMove, release, v.viewport()->mapToGlobal(release), Qt::NoButton, Qt::LeftButton,
                   Qt::ShiftModifier);
  QApplication::sendEvent(v.viewport(), &move);
  QTest::mouseRelease(v.viewport(), Qt::LeftButton, Qt::ShiftModifier, release);
  const auto area = v.areaSelection();
  QVERIFY(area.has_value());
  QCOMPARE(area->lanes, (std::vector<std::uint32_t>{std::min(main, index.processes()[0].lanes[1]),
                                                    std::max(main, index.processes()[0].lanes[1])}));
  QCOMPARE(tabs->currentIndex(), TimelinePage::kAreaTab);
  QVERIFY(!v.selectedSlice());
  QCOMPARE(m_page->areaPanel()->area(), area);
  QTRY_VERIFY(m_page->areaPanel()->aggregation().has_value());
  const auto expected = fathom::trace::aggregateArea(index, area->range, area->lanes);
  const auto& shown = m_page->areaPanel()->aggregation()->byName;
  QCOMPARE(shown.size(), expected.byName.size());
  QVERIFY(!shown.empty());
  for (std::size_t i = 0; i < shown.size(); ++i) {
    QCOMPARE(shown[i].name, expected.byName[i].name);
    QCOMPARE(shown[i].count, expected.byName[i].count);
    QCOMPARE(shown[i].totalNs, expected.byName[i].totalNs);
  }
  // Export Range writes the area: its range and its lanes' rows; without an area, the visible range and every row.
  const auto selection = m_page->exporter()->selection();
  QCOMPARE(selection.range.startNs, area->range.startNs);
  QCOMPARE(selection.range.endNs, area->range.endNs);
  QCOMPARE(selection.rows, (std::vector<std::string>{index.lane(area->lanes[0]).key, index.lane(area->lanes[1]).key}));
  v.setFocus();
  QTest::keyClick(&v, Qt::Key_Escape);
  QVERIFY(!v.areaSelection());
  QCOMPARE(m_page->exporter()->selection().range.startNs, v.visibleRange().startNs);
  QVERIFY(m_page->exporter()->selection().rows.empty());

  // A search's current match is selected, as in Perfetto: its details in the Details tab.
  tabs->setCurrentIndex(TimelinePage::kAreaTab);
  QTest::keyClicks(bar()->patternField(), u"fathom::"_s);
  QTest::keyClick(bar()->patternField(), Qt::Key_Return);
  QVERIFY(bar()->currentMatch().has_value());
  QCOMPARE(v.selectedSlice(), bar()->currentMatch());
  QCOMPARE(m_page->detailsPanel()->slice(), bar()->currentMatch());
  QCOMPARE(tabs->currentIndex(), TimelinePage::kDetailsTab);
}

/// Under the timeline the panels get a quarter of the page. There the details' rows once overlapped (squeezed below
/// their height) and the area's per-name table, stacked over the breakdown, showed one or two rows; now the rows
/// scroll and the table sits beside the breakdown at the panel's full height.
void TestTimelinePage::shortPanelsKeepTheirRows() {
  m_page->resize(1300, 670);  // the page of a 1500 x 900 Studio window
  TimelineView& v = *view();
  const auto& index = *v.index();
  const std::uint32_t main = index.processes()[0].lanes[0];
  v.selectSlice(SliceRef{main, 0});
  QTRY_VERIFY(m_page->detailsPanel()->details().has_value());
  QTabWidget* tabs = m_page->panelTabs();
  tabs->setCurrentIndex(TimelinePage::kDetailsTab);
  QApplication::processEvents();
  QVERIFY2(tabs->height() < 250, qPrintable(QString::number(tabs->height())));  // short: the rows must not squeeze
  auto* form = m_page->detailsPanel()->findChild<QFormLayout*>();
  QVERIFY(form != nullptr);
  int previousBottom = -1;
  for (int row = 0; row < form->rowCount(); ++row) {
    QWidget* label = form->itemAt(row, QFormLayout::LabelRole)->widget();
    QVERIFY2(label->height() >= label->minimumSizeHint().height(),
             qPrintable(u"row %1 squeezed to %2 px"_s.arg(row).arg(label->height())));
    QVERIFY2(label->y() >= previousBottom, qPrintable(u"row %1 overlaps the row above"_s.arg(row)));
    previousBottom = label->y() + label->height();
  }

  // Shift+drag an area over rank 0's main lane: its table of names is as tall as the panel allows.
  tabs->setCurrentIndex(TimelinePage::kAreaTab);
  const int header = v.viewport()->width() - v.plotWidth();
  const int y = *v.laneRowY(main, 0) + 4;
  QTest::mousePress(v.viewport(), Qt::LeftButton, Qt::ShiftModifier, {header + 2, y});
  const QPoint release(header + v.plotWidth() - 2, y + 2);
  QMouseEvent move(QEvent::MouseMove, release, v.viewport()->mapToGlobal(release), Qt::NoButton, Qt::LeftButton,
                   Qt::ShiftModifier);
  QApplication::sendEvent(v.viewport(), &move);
  QTest::mouseRelease(v.viewport(), Qt::LeftButton, Qt::ShiftModifier, release);
  QTRY_VERIFY(m_page->areaPanel()->aggregation().has_value());
  auto* table = m_page->areaPanel()->findChild<QTableView*>(u"byName"_s);
  QVERIFY(table != nullptr && table->model()->rowCount() >= 4);
  const int rowHeight = table->verticalHeader()->defaultSectionSize();
  QVERIFY2(table->viewport()->height() >= 4 * rowHeight,
           qPrintable(u"%1 px for rows of %2 px"_s.arg(table->viewport()->height()).arg(rowHeight)));
}

void TestTimelinePage::ctrlFFocusesTheSearch() {
  QVERIFY(QTest::qWaitForWindowActive(m_page.get()));
  view()->setFocus();
  QTRY_COMPARE(QApplication::focusWidget(), view());
  QTest::keyClick(view(), Qt::Key_F, Qt::ControlModifier);
  QTRY_COMPARE(QApplication::focusWidget(), bar()->patternField());
}

// The Memory chart drawn into an image, zoomed out (an image of its pixels) and zoomed in (rectangles): in every column
// the stack's top pixel has the colour of the topmost non-empty series, the pixel above it the background, and its
// height is the sum of the series on the chart's scale.
void TestTimelinePage::stackedChartPixelsFollowTheSums() {
  const auto& index = *view()->index();
  const fathom::views::CounterChart& chart = view()->layout().charts()[0];
  std::vector<QColor> colours;
  for (std::size_t s = 0; s < chart.series.size(); ++s)
    colours.push_back(fathom::views::seriesColour(s));
  const QColor background(Qt::white);
  const TimeRange whole{index.data().startNs, index.data().endNs};
  const TimeRange narrow{whole.startNs + (whole.endNs - whole.startNs) / 2,
                         whole.startNs + (whole.endNs - whole.startNs) / 2 + 20'000};
  for (const TimeRange range : {whole, narrow}) {
    const int pixels = 600;
    const int height = 100;
    fathom::views::CounterStack stack;
    std::vector<fathom::trace::CounterPixel> scratch;
    fathom::views::stackCounterColumns(index, chart, range, pixels, stack, scratch);
    QImage canvas(pixels, height, QImage::Format_RGB32);
    canvas.fill(background);
    QImage reused;
    {
      QPainter painter(&canvas);
      const int runs =
          fathom::views::paintCounterStack(painter, canvas.rect(), chart, stack, colours, background, reused);
      QVERIFY(runs > 0);
      QVERIFY(runs <= pixels * static_cast<int>(chart.series.size()));
    }
    const double span = chart.top - chart.bottom;
    for (int c = 0; c < pixels; c += 37) {
      const double top = stack.top(chart.series.size() - 1, c);
      const int filled = static_cast<int>(std::clamp((top - chart.bottom) * height / span, 0.0, 1.0 * height) + 0.5);
      std::size_t topmost = chart.series.size() - 1;  // the last series with a band of at least one pixel
      const auto level = [&](double v) {
        return static_cast<int>(std::clamp((v - chart.bottom) * height / span, 0.0, 1.0 * height) + 0.5);
      };
      while (topmost > 0 && level(stack.top(topmost, c)) == level(stack.top(topmost - 1, c)))
        --topmost;
      if (filled > 0)
        QCOMPARE(canvas.pixelColor(c, height - filled), colours[topmost]);
      if (filled < height)
        QCOMPARE(canvas.pixelColor(c, height - filled - 1), background);
    }
  }
}

// A generated 4-rank GPU trace (~200k events): each rank's `Memory` chart stacks its categories, and a frame of the
// whole trace with a search's outlines stays within one rectangle and one outline per pixel column and row.
void TestTimelinePage::generatedTraceFrameWithStacksAndMatches() {
  QTemporaryDir dir;
  const QString path = dir.filePath(u"gpu.json.gz"_s);
  const auto generated =
      fathom::test::generateTrace(path.toStdString(), {.events = 200'000, .ranks = 4, .seed = 5, .opsPerStep = 200});
  QSignalSpy loaded(view(), &TimelineView::loaded);
  m_page->open(path);
  QVERIFY(loaded.wait(60'000));
  QCOMPARE(view()->index()->sliceCount(), generated.slices);
  const auto& charts = view()->layout().charts();
  QVERIFY(!charts.empty());
  QVERIFY(std::all_of(charts.begin(), charts.end(), [](const auto& c) { return c.series.size() > 1 && c.top > 0; }));
  bar()->setPattern(u"aten::"_s);
  bar()->search();
  QVERIFY(bar()->totalMatches() > 10'000);
  m_page->resize(1920 + 200 + 40, 4000);
  (void)view()->viewport()->grab();
  const auto stats = view()->lastPaint();
  QVERIFY(stats.rectangles <= stats.pixels * stats.rows);
  QVERIFY(stats.matchOutlines <= stats.pixels * stats.rows);
  QVERIFY(stats.matchOutlines > 0);
  qInfo("generated: %llu slices, %zu matches, %d rows, %d rectangles, %d outlines, %.2f ms",
        static_cast<unsigned long long>(generated.slices), bar()->totalMatches(), stats.rows, stats.rectangles,
        stats.matchOutlines, stats.milliseconds);
}

QTEST_MAIN(TestTimelinePage)
#include "tst_timeline_page.moc"
