// SPDX-License-Identifier: Apache-2.0
// Where a trace opened from the command line starts (fathom-studio --range, --select, --area;
// app/studio/timeline_start.h) on the real 2-rank Gloo trace: step:N and FROM,TO resolve to the step's span and to the
// exact nanoseconds, the view shows that range, the first matching slice in it is selected, an area covers exactly one
// rank's lanes, and malformed values are refused naming the flag and the value.
#include "timeline/timeline_view.h"
#include "timeline_start.h"

#include <fathom/common/error.h>
#include <fathom/trace/timeline_index.h>

#include <QSignalSpy>
#include <QTest>

#include <limits>
#include <memory>

using namespace Qt::StringLiterals;
using fathom::studio::TimelineStart;
using fathom::trace::TimelineIndex;

namespace {

const char* const kTrace = FATHOM_TEST_DATA_DIR "/traces/gloo_2rank_merged.json.gz";

/// ProfilerStep#`number` of `rank`: its span, found by scanning the index's steps (the test's own oracle).
fathom::trace::TimeRange stepOf(const TimelineIndex& index, std::int64_t number, int rank) {
  for (const fathom::trace::TimelineStep& step : index.steps()) {
    if (step.number == number && step.rank == rank) {
      const auto& lane = index.lane(step.slice.lane);
      return {lane.start[step.slice.index], lane.end[step.slice.index]};
    }
  }
  return {0, 0};
}

}  // namespace

class TestTimelineStart : public QObject {
  Q_OBJECT

private slots:
  void initTestCase();
  void checksTheFormNamingTheFlag_data();
  void checksTheFormNamingTheFlag();
  void resolvesStepsAndMicroseconds();
  void resolveRefusesWhatTheTraceLacks();
  void appliesRangeSelectionAndAreaOnceLoaded();

private:
  std::shared_ptr<const TimelineIndex> m_index;
};

void TestTimelineStart::initTestCase() {
  std::optional<TimelineIndex> index = TimelineIndex::load(kTrace);
  QVERIFY(index.has_value());
  m_index = std::make_shared<const TimelineIndex>(std::move(*index));
  QVERIFY(m_index->steps().size() >= 2);
}

void TestTimelineStart::checksTheFormNamingTheFlag_data() {
  QTest::addColumn<QString>("range");
  QTest::addColumn<QString>("area");
  QTest::addColumn<QString>("error");  // a piece of the message; empty: accepted
  QTest::newRow("both fine") << u"10,20.5"_s << u"step:1,0"_s << QString();
  QTest::newRow("step") << u"step:3"_s << QString() << QString();
  QTest::newRow("one number") << u"10"_s << QString() << u"--range 10:"_s;
  QTest::newRow("rank on range") << u"10,20,1"_s << QString() << u"--range 10,20,1:"_s;
  QTest::newRow("not a number") << u"ten,20"_s << QString() << u"--range ten,20:"_s;
  QTest::newRow("bad step") << u"step:x"_s << QString() << u"--range step:x:"_s;
  QTest::newRow("negative rank") << QString() << u"1,2,-1"_s << u"--area 1,2,-1:"_s;
  QTest::newRow("area too long") << QString() << u"step:1,0,3"_s << u"--area step:1,0,3:"_s;
}

void TestTimelineStart::checksTheFormNamingTheFlag() {
  QFETCH(QString, range);
  QFETCH(QString, area);
  QFETCH(QString, error);
  const QString message = fathom::studio::checkTimelineStart(TimelineStart{range, QString(), area});
  if (error.isEmpty()) {
    QVERIFY2(message.isEmpty(), qPrintable(message));
  } else {
    QVERIFY2(message.startsWith(error), qPrintable(message));
  }
}

void TestTimelineStart::resolvesStepsAndMicroseconds() {
  using fathom::studio::resolveStartRange;
  const auto step1 = resolveStartRange(*m_index, u"step:1"_s, "--range", false);
  const fathom::trace::TimeRange expected = stepOf(*m_index, 1, 0);  // the lowest rank that has it
  QCOMPARE(step1.range.startNs, expected.startNs);
  QCOMPARE(step1.range.endNs, expected.endNs);
  QVERIFY(!step1.rank.has_value());

  const auto rank1 = resolveStartRange(*m_index, u"step:1,1"_s, "--area", true);
  QCOMPARE(rank1.rank, std::optional<int>(1));
  QCOMPARE(rank1.range.startNs, stepOf(*m_index, 1, 1).startNs);
  QVERIFY(rank1.range.startNs != step1.range.startNs);  // the ranks' steps differ on the merged clock

  // Microseconds as the file's ts, exact to the nanosecond (the same parse as fathom trace summary --from/--to).
  const auto us = resolveStartRange(*m_index, u"1500.250, 1800"_s, "--range", false);
  QCOMPARE(us.range.startNs, std::int64_t{1'500'250});
  QCOMPARE(us.range.endNs, std::int64_t{1'800'000});
}

void TestTimelineStart::resolveRefusesWhatTheTraceLacks() {
  using fathom::studio::resolveStartRange;
  const auto message = [&](const QString& text, const char* flag, bool rank) -> QString {
    try {
      resolveStartRange(*m_index, text, flag, rank);
    } catch (const fathom::ConfigError& e) {
      return QString::fromUtf8(e.what());
    }
    return QString();
  };
  QVERIFY(message(u"step:999"_s, "--range", false).contains(u"--range step:999: the trace has no ProfilerStep#999"_s));
  QVERIFY(message(u"step:1,7"_s, "--area", true).contains(u"no ProfilerStep#1 on rank 7"_s));
  QVERIFY(message(u"20,10"_s, "--range", false).contains(u"--range 20,10: the range is empty"_s));
  QVERIFY(message(u"1,2,0"_s, "--range", false).contains(u"--range 1,2,0"_s));
}

void TestTimelineStart::appliesRangeSelectionAndAreaOnceLoaded() {
  fathom::views::TimelineView view;
  view.resize(1400, 800);
  view.show();
  // Applied once the trace loads (the view loads it off the GUI thread), not before.
  fathom::studio::applyTimelineStartWhenLoaded(&view,
                                               TimelineStart{u"step:1"_s, u"^fathom::all_reduce$"_s, u"step:1,1"_s});
  QVERIFY(!view.property(fathom::studio::kStartAppliedProperty).toBool());
  QSignalSpy loaded(&view, &fathom::views::TimelineView::loaded);
  view.open(QString::fromUtf8(kTrace));
  QVERIFY(loaded.wait(30'000));
  QVERIFY(view.property(fathom::studio::kStartAppliedProperty).toBool());

  const fathom::trace::TimeRange step = stepOf(*view.index(), 1, 0);
  QCOMPARE(view.visibleRange().startNs, step.startNs);
  QCOMPARE(view.visibleRange().endNs, step.endNs);

  // The first all_reduce that starts in the range, by the test's own scan of every lane.
  std::optional<fathom::trace::SliceRef> first;
  std::int64_t firstStart = std::numeric_limits<std::int64_t>::max();
  for (std::uint32_t l = 0; l < view.index()->lanes().size(); ++l) {
    const auto& lane = view.index()->lane(l);
    for (std::uint32_t i = 0; i < lane.sliceCount(); ++i) {
      if (view.index()->name(lane.name[i]) == "fathom::all_reduce" && lane.start[i] >= step.startNs &&
          (lane.start[i] < firstStart || (lane.start[i] == firstStart && l < first->lane))) {
        first = fathom::trace::SliceRef{l, i};
        firstStart = lane.start[i];
      }
    }
  }
  QVERIFY(first.has_value());
  QCOMPARE(view.selectedSlice(), first);

  // The area: rank 1's step 1 over exactly rank 1's lanes.
  const std::optional<fathom::views::AreaSelection> area = view.areaSelection();
  QVERIFY(area.has_value());
  QCOMPARE(area->range.startNs, stepOf(*view.index(), 1, 1).startNs);
  std::vector<std::uint32_t> rank1;
  for (std::uint32_t l = 0; l < view.index()->lanes().size(); ++l) {
    if (view.index()->processes()[view.index()->lane(l).process].rank == 1) {
      rank1.push_back(l);
    }
  }
  QVERIFY(!rank1.empty());
  QCOMPARE(area->lanes, rank1);
}

QTEST_MAIN(TestTimelineStart)
#include "tst_timeline_start.moc"
