// SPDX-License-Identifier: Apache-2.0
// The run view's Timeline page (issue 19) and TimelineView::updateIndex: entries are listed under their group and the
// first is chosen once the page shows; a timeline for another entry is dropped; a newer timeline of the entry shown
// keeps a zoomed-in view at the same instants (also when the merged trace's base time moved) and moves a view at "fit"
// to the new end. The timelines are prefixes of the real 2-rank Gloo trace, as a live run stores them.
#include "timeline/run_timeline_page.h"
#include "timeline/timeline_view.h"

#include "studio_test_mode.h"
#include "trace_fixtures.h"

#include <fathom/trace/timeline_index.h>

#include <QSignalSpy>
#include <QTest>
#include <QTreeWidget>

using namespace Qt::StringLiterals;
using namespace fathom;
using views::RunTimelinePage;
using views::RunTraceEntry;

namespace {

const std::filesystem::path kGloo = std::filesystem::path(FATHOM_TEST_DATA_DIR) / "traces/gloo_2rank_merged.json.gz";

std::shared_ptr<const trace::TimelineIndex> prefixIndex(const std::string& text, std::size_t bytes) {
  trace::TimelineLoadOptions options;
  options.reader.acceptTruncatedTail = true;
  return std::make_shared<const trace::TimelineIndex>(
      *trace::TimelineIndex::loadBytes("t", text.substr(0, bytes), options));
}

QList<RunTraceEntry> entries() {
  RunTraceEntry run{.kind = RunTraceEntry::Kind::WholeRun, .key = u"run"_s, .ranks = 2, .windows = 2, .bytes = 4096};
  RunTraceEntry window{.kind = RunTraceEntry::Kind::Group,
                       .key = u"group:window_1"_s,
                       .name = u"window_1"_s,
                       .window = 1,
                       .ranks = 2,
                       .bytes = 2048};
  RunTraceEntry rank0{.kind = RunTraceEntry::Kind::Trace,
                      .key = u"trace:0:window_1/profile_0.json"_s,
                      .parentKey = window.key,
                      .name = u"window_1/profile_0.json"_s,
                      .window = 1,
                      .rank = 0,
                      .bytes = 1024,
                      .chunks = 1};
  RunTraceEntry rank1 = rank0;
  rank1.key = u"trace:1:window_1/profile_1.json"_s;
  rank1.name = u"window_1/profile_1.json"_s;
  rank1.rank = 1;
  return {run, window, rank0, rank1};
}

}  // namespace

class TestRunTimelinePage : public QObject {
  Q_OBJECT

private slots:
  void initTestCase() { fathom::test::enterStudioTestMode(); }
  void cleanupTestCase() { fathom::test::leaveStudioTestMode(); }

  void listsEntriesAndChoosesTheFirstWhenShown() {
    RunTimelinePage page;
    QSignalSpy chosen(&page, &RunTimelinePage::entryChosen);
    page.setEntries(entries());
    QCOMPARE(chosen.count(), 0);  // hidden: nothing is loaded for a tab nobody looks at
    QCOMPARE(page.list()->topLevelItemCount(), 2);
    // The source texts: English plural forms come from fathom_en.ts, which the Studio installs (tst_studio_smoke).
    QCOMPARE(page.list()->topLevelItem(0)->text(0), u"Whole run: 2 window(s), all ranks"_s);
    QCOMPARE(page.list()->topLevelItem(1)->text(0), u"Window 1: 2 rank(s)"_s);
    QCOMPARE(page.list()->topLevelItem(1)->childCount(), 2);
    QCOMPARE(page.list()->topLevelItem(1)->child(1)->text(0), u"Rank 1: profile_1.json"_s);
    QVERIFY(!page.list()->topLevelItem(0)->text(1).isEmpty());  // its size
    page.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page));
    QCOMPARE(chosen.count(), 1);
    QCOMPARE(chosen.front().front().toString(), u"run"_s);
    QCOMPARE(page.currentKey(), u"run"_s);
    // Clicking another entry asks for it; the same entry again asks nothing; a new list keeps the choice.
    page.list()->setCurrentItem(page.list()->topLevelItem(1)->child(0));
    QCOMPARE(chosen.count(), 2);
    QCOMPARE(page.currentKey(), u"trace:0:window_1/profile_0.json"_s);
    page.choose(page.currentKey());
    QCOMPARE(chosen.count(), 2);
    QList<RunTraceEntry> grown = entries();
    grown[2].bytes = 8192;
    page.setEntries(grown);
    QCOMPARE(page.currentKey(), u"trace:0:window_1/profile_0.json"_s);
    QCOMPARE(page.list()->currentItem()->text(0), u"Rank 0: profile_0.json"_s);
    QCOMPARE(chosen.count(), 2);
  }

  void liveUpdatesKeepTheUsersPlace() {
    const std::string text = fathom::test::readText(kGloo);
    RunTimelinePage page;
    page.resize(1200, 600);
    page.setEntries(entries());
    page.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page));
    views::TimelineView* view = page.view();

    // A timeline of another entry is dropped; the chosen entry's first timeline is shown whole.
    page.showTimeline(u"group:window_1"_s, prefixIndex(text, text.size() / 3), {});
    QVERIFY(view->index() == nullptr);
    page.showTimeline(u"run"_s, prefixIndex(text, text.size() / 3), {.traces = 2, .storedBytes = 1000});
    QVERIFY(view->index() != nullptr);
    QVERIFY(view->isFit());
    QCOMPARE(page.updates(), 1);
    const std::int64_t firstEnd = view->index()->data().endNs;

    // At "fit", a grown timeline is shown whole: the view follows the end.
    page.showTimeline(u"run"_s, prefixIndex(text, text.size() * 2 / 3), {.traces = 2, .stillWriting = true});
    QVERIFY(view->index()->data().endNs > firstEnd);
    QVERIFY(view->isFit());
    QCOMPARE(view->visibleRange().endNs, view->index()->data().endNs);
    QVERIFY(page.statusText().contains(u"still being written"_s));

    // Zoomed in: the next timeline keeps the range, and the rows' scroll.
    const trace::TimeRange zoomed{view->index()->data().startNs + 1'000, view->index()->data().startNs + 50'000};
    view->setVisibleRange(zoomed);
    page.showTimeline(u"run"_s, prefixIndex(text, text.size()), {.traces = 2});
    QCOMPARE(view->visibleRange().startNs, zoomed.startNs);
    QCOMPARE(view->visibleRange().endNs, zoomed.endNs);
    QVERIFY(!view->isFit());
    QCOMPARE(page.updates(), 3);
    QVERIFY(!page.statusText().contains(u"still being written"_s));
  }

  void aMovedBaseTimeKeepsTheSameInstants() {
    // The same events, written against a base 5 µs earlier (another rank's window arrived with an earlier clock):
    // trace times grow by 5 µs, and the view shows the same instants.
    using fathom::test::completeEvent;
    const std::int64_t base = 1'700'000'000'000'000'000;
    const std::string before = fathom::test::objectTrace({completeEvent("cpu_op", "a", 1, 1, "10.000", "100.000"),
                                                          completeEvent("cpu_op", "b", 1, 1, "200.000", "50.000")},
                                                         fathom::test::traceKeys(0, 1, base));
    const std::string after = fathom::test::objectTrace({completeEvent("cpu_op", "a", 1, 1, "15.000", "100.000"),
                                                         completeEvent("cpu_op", "b", 1, 1, "205.000", "50.000"),
                                                         completeEvent("cpu_op", "c", 1, 1, "400.000", "50.000")},
                                                        fathom::test::traceKeys(0, 1, base - 5'000));
    views::TimelineView view;
    view.resize(800, 300);
    view.show();
    view.setIndex(prefixIndex(before, before.size()));
    view.setVisibleRange({20'000, 120'000});
    view.updateIndex(prefixIndex(after, after.size()));
    QCOMPARE(view.visibleRange().startNs, std::int64_t{25'000});
    QCOMPARE(view.visibleRange().endNs, std::int64_t{125'000});
  }
};

QTEST_MAIN(TestRunTimelinePage)
#include "tst_run_timeline_page.moc"
