// SPDX-License-Identifier: Apache-2.0
// RunTraceFeed's entries for a run's stored traces (issue 19): the whole run first whenever the profiler stored traces,
// each window with its ranks, the profiler's merged files left out where their per-rank traces are, other names as
// groups of their own; and which stored traces each entry shows. Printed as one line per entry and compared. And the
// Studio's workspace readers on a workspace in a read-only folder (issue 20).
#include "fault_injection.h"
#include "run_feed.h"
#include "run_trace_feed.h"

#include <fathom/store/workspace.h>

#include <QTemporaryDir>
#include <QTest>

#include <array>

using namespace Qt::StringLiterals;
using fathom::store::TraceSummary;
using fathom::studio::RunTraceFeed;
using fathom::views::RunTraceEntry;

namespace {

QStringList dump(const QList<RunTraceEntry>& entries) {
  QStringList out;
  for (const RunTraceEntry& e : entries) {
    const QString kind = e.kind == RunTraceEntry::Kind::WholeRun ? u"run"_s
                         : e.kind == RunTraceEntry::Kind::Group  ? u"group"_s
                                                                 : u"trace"_s;
    out << u"%1 %2 parent=%3 ranks=%4 windows=%5 bytes=%6"_s.arg(kind, e.key, e.parentKey)
               .arg(e.ranks)
               .arg(e.windows)
               .arg(e.bytes);
  }
  return out;
}

QStringList names(const std::vector<TraceSummary>& traces) {
  QStringList out;
  for (const TraceSummary& t : traces)
    out << u"%1@%2"_s.arg(QString::fromStdString(t.name)).arg(t.rank);
  return out;
}

}  // namespace

class TestRunTraceFeed : public QObject {
  Q_OBJECT

private slots:
  /// The live feed reads a workspace in a folder this process cannot write (read in a child that obeys file
  /// permissions, as any user). Before Workspace::readerOptions it, and the timeline feed and the browser, opened it
  /// for writing and failed ("the folder ... is not writable"); they now share readerOptions.
  void readsAWorkspaceInAReadOnlyFolder() {
    QTemporaryDir dir;
    const std::filesystem::path folder = dir.path().toStdString();
    const std::filesystem::path file = folder / "fathom.sqlite";
    qint64 run = 0;
    {
      fathom::store::Workspace ws(file);
      run = ws.createRun({"read-only", "tst_run_trace_feed", "", ""}).value;
      const std::array<fathom::store::MetricPoint, 2> points{{{0, 1, 1.0, "loss", 2.5}, {0, 2, 2.0, "loss", 2.25}}};
      ws.appendMetrics(fathom::store::RunId{run}, points);
    }
    const fathom::test::ReadOnlyFolder readOnly(folder);
    const fathom::test::ChildOutcome outcome = fathom::test::runInChild(0, [&] {
      fathom::test::obeyFilePermissions();
      try {
        bool more = false;
        const fathom::views::RunDelta d =
            fathom::studio::RunFeed::read(QString::fromStdString(file.string()), run, {}, true, &more);
        return "metrics " + std::to_string(d.metrics.size()) + " ranks " + std::to_string(d.ranks.size());
      } catch (const std::exception& e) {
        return std::string("error: ") + e.what();
      }
    });
    QVERIFY2(outcome.exitedWith(0), outcome.text.c_str());
    QCOMPARE(QString::fromStdString(outcome.text), u"metrics 2 ranks 0"_s);
    QCOMPARE(fathom::test::namesIn(folder), std::vector<std::string>{"fathom.sqlite"});
  }

  void windowsOfTwoRanks() {
    const std::vector<TraceSummary> traces = {
        {"window_1/profile_0.json", 0, 1, 100}, {"window_0/profile_1.json", 1, 2, 200},
        {"window_0/profile_0.json", 0, 1, 300}, {"window_0/merged/profile_merged.json", 0, 3, 500},
        {"window_1/profile_1.json", 1, 1, 50},
    };
    QCOMPARE(
        dump(RunTraceFeed::entriesOf(traces)),
        QStringList({u"run run parent= ranks=2 windows=2 bytes=650"_s,
                     u"group group:window_0 parent= ranks=2 windows=0 bytes=500"_s,
                     u"trace trace:0:window_0/profile_0.json parent=group:window_0 ranks=0 windows=0 bytes=300"_s,
                     u"trace trace:1:window_0/profile_1.json parent=group:window_0 ranks=0 windows=0 bytes=200"_s,
                     u"group group:window_1 parent= ranks=2 windows=0 bytes=150"_s,
                     u"trace trace:0:window_1/profile_0.json parent=group:window_1 ranks=0 windows=0 bytes=100"_s,
                     u"trace trace:1:window_1/profile_1.json parent=group:window_1 ranks=0 windows=0 bytes=50"_s}));
    QCOMPARE(names(RunTraceFeed::tracesOf(u"run"_s, traces)),
             QStringList({u"window_1/profile_0.json@0"_s, u"window_0/profile_1.json@1"_s,
                          u"window_0/profile_0.json@0"_s, u"window_1/profile_1.json@1"_s}));
    QCOMPARE(names(RunTraceFeed::tracesOf(u"group:window_0"_s, traces)),
             QStringList({u"window_0/profile_0.json@0"_s, u"window_0/profile_1.json@1"_s}));
    QCOMPARE(names(RunTraceFeed::tracesOf(u"trace:1:window_1/profile_1.json"_s, traces)),
             QStringList({u"window_1/profile_1.json@1"_s}));
    QVERIFY(RunTraceFeed::tracesOf(u"group:window_7"_s, traces).empty());
  }

  void oneWindowListsItsRanksUnderTheWholeRun() {
    const std::vector<TraceSummary> traces = {
        {"profile_0.json.gz", 0, 1, 10}, {"profile_1.json.gz", 1, 1, 20}, {"merged/profile_merged.json.gz", 0, 1, 30}};
    QCOMPARE(dump(RunTraceFeed::entriesOf(traces)),
             QStringList({u"run run parent= ranks=2 windows=1 bytes=30"_s,
                          u"trace trace:0:profile_0.json.gz parent=run ranks=0 windows=0 bytes=10"_s,
                          u"trace trace:1:profile_1.json.gz parent=run ranks=0 windows=0 bytes=20"_s}));
  }

  void otherNamesAreGroupsOfTheirOwn() {
    // A program's own traces (TelemetrySender::sendTrace): one name sent by two ranks is one group, merged; a merged
    // file without its per-rank traces is listed as it is; no whole run without the profiler's per-rank traces.
    const std::vector<TraceSummary> traces = {{"step.json", 1, 1, 5}, {"step.json", 0, 1, 6}, {"solo.json", 0, 1, 7}};
    QCOMPARE(dump(RunTraceFeed::entriesOf(traces)),
             QStringList({u"trace trace:0:solo.json parent= ranks=0 windows=0 bytes=7"_s,
                          u"group group:step.json parent= ranks=2 windows=0 bytes=11"_s,
                          u"trace trace:0:step.json parent=group:step.json ranks=0 windows=0 bytes=6"_s,
                          u"trace trace:1:step.json parent=group:step.json ranks=0 windows=0 bytes=5"_s}));
    QCOMPARE(names(RunTraceFeed::tracesOf(u"group:step.json"_s, traces)),
             QStringList({u"step.json@0"_s, u"step.json@1"_s}));
    const std::vector<TraceSummary> merged = {{"merged/profile_merged.json", 0, 2, 40}};
    QCOMPARE(dump(RunTraceFeed::entriesOf(merged)),
             QStringList({u"trace trace:0:merged/profile_merged.json parent= ranks=0 windows=0 bytes=40"_s}));
  }
};

QTEST_GUILESS_MAIN(TestRunTraceFeed)
#include "tst_run_trace_feed.moc"
