// SPDX-License-Identifier: Apache-2.0
// Issue 19 end to end, live: a 2-rank `fathom train --profile` whose schedule records four windows, started through
// the real `fathom launch` into a workspace the Studio has open. Each rank streams each window's trace to the
// workspace as it writes it. The run's Timeline tab, open while the run goes on, shows the whole run (every window of
// every rank on one clock) and its slice count grows before the run ends; an update keeps a zoomed-in view where
// the user put it and moves a view at "fit" to the new end; at the end the timeline equals the one loaded from the
// finished trace files merged by the core's merge, and a window's timeline equals the profiler's own merged file.
#include "main_window.h"
#include "run_trace_feed.h"
#include "studio_test_mode.h"
#include "workspace_controller.h"

#include "runs/run_details_page.h"
#include "runs/runs_model.h"
#include "timeline/run_timeline_page.h"
#include "timeline/timeline_view.h"

#include "cli_runner.h"

#include <fathom/store/workspace.h>
#include <fathom/trace/timeline_index.h>
#include <fathom/trace/trace_merge.h>

#include <QDir>
#include <QElapsedTimer>
#include <QProcess>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

#include <memory>

using namespace Qt::StringLiterals;
using namespace fathom;
using studio::MainWindow;

namespace {

constexpr int kSteps = 1600;
// wait 250, warm up 1, record 2, four times: windows end at steps 252, 505, 758 and 1011; the run goes on ~600 steps
// after the last, so the timeline has time to show it before the run ends.
const QString kSchedule = u"250,1,2,4"_s;

std::int64_t baseOf(const trace::TimelineIndex& index) {
  const auto it = index.data().metadata.find("baseTimeNanoseconds");
  return it != index.data().metadata.end() && it->is_number_integer() ? it->get<std::int64_t>() : 0;
}

/// Equal timelines: the same lanes with the same slices (times, names, depths), processes, counters and steps.
bool sameTimeline(const trace::TimelineIndex& a, const trace::TimelineIndex& b, QString* why) {
  const auto fail = [why](const QString& what) {
    *why = what;
    return false;
  };
  if (a.lanes().size() != b.lanes().size())
    return fail(u"lanes %1 vs %2"_s.arg(a.lanes().size()).arg(b.lanes().size()));
  if (a.sliceCount() != b.sliceCount())
    return fail(u"slices %1 vs %2"_s.arg(a.sliceCount()).arg(b.sliceCount()));
  for (std::size_t i = 0; i < a.lanes().size(); ++i) {
    const trace::TimelineLane& x = a.lanes()[i];
    const trace::TimelineLane& y = b.lanes()[i];
    if (x.key != y.key || x.start != y.start || x.end != y.end || x.depthBegin != y.depthBegin)
      return fail(u"lane %1 (%2)"_s.arg(i).arg(QString::fromStdString(x.key)));
    for (std::uint32_t s = 0; s < x.sliceCount(); ++s) {
      if (a.name(x.name[s]) != b.name(y.name[s]))
        return fail(u"lane %1 slice %2's name"_s.arg(i).arg(s));
    }
  }
  if (a.processes().size() != b.processes().size() || a.counters().size() != b.counters().size() ||
      a.steps().size() != b.steps().size() || baseOf(a) != baseOf(b))
    return fail(u"processes, counters, steps or base time"_s);
  return true;
}

std::uint64_t slicesShown(const views::RunTimelinePage* page) {
  const trace::TimelineIndex* index = page->view()->index();
  return index != nullptr ? index->sliceCount() : 0;
}

}  // namespace

class TestLiveTimeline : public QObject {
  Q_OBJECT

private slots:
  void initTestCase() { fathom::test::enterStudioTestMode(); }
  void cleanupTestCase() { fathom::test::leaveStudioTestMode(); }

  void timelineGrowsWhileTheRunGoesOn() {
    QElapsedTimer clock;
    clock.start();
    QTemporaryDir dir;
    const QString ws = dir.filePath(u"live.sqlite"_s);
    const QString traces = dir.filePath(u"traces"_s);
    { store::Workspace create(ws.toStdString()); }

    auto window = std::make_unique<MainWindow>();
    window->resize(1400, 900);
    window->show();
    QVERIFY(QTest::qWaitForWindowExposed(window.get()));
    window->openWorkspace(ws);
    QTRY_VERIFY(window->workspace()->isOpen());

    QProcess launcher;
    launcher.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    launcher.setProcessEnvironment(fathom::test::launcherFreeEnvironment());
    launcher.start(fathom::test::fathomExecutable(), {u"launch"_s,
                                                      u"--num_processes"_s,
                                                      u"2"_s,
                                                      u"--num_cpu_threads_per_process"_s,
                                                      u"1"_s,
                                                      u"--quiet"_s,
                                                      u"--workspace"_s,
                                                      ws,
                                                      fathom::test::fathomExecutable(),
                                                      u"train"_s,
                                                      u"--model"_s,
                                                      u"mlp"_s,
                                                      u"--hidden"_s,
                                                      u"32"_s,
                                                      u"--layers"_s,
                                                      u"2"_s,
                                                      u"--batch_size"_s,
                                                      u"8"_s,
                                                      u"--steps"_s,
                                                      QString::number(kSteps),
                                                      u"--log_every"_s,
                                                      u"0"_s,
                                                      u"--profile"_s,
                                                      u"--profile_dir"_s,
                                                      traces,
                                                      u"--profile_schedule"_s,
                                                      kSchedule});
    QVERIFY(launcher.waitForStarted());
    auto stopLauncher = qScopeGuard([&] {
      if (launcher.state() != QProcess::NotRunning) {
        launcher.terminate();
        launcher.waitForFinished(10'000);
      }
    });

    QTRY_VERIFY_WITH_TIMEOUT(window->runsModel()->rowCount() == 1, 20'000);
    const qint64 run = window->runsModel()->runs().at(0).info.id.value;
    // The run's page opens on its Timeline tab while the run goes on.
    views::RunDetailsPage* page = window->openRunTimeline(run);
    QVERIFY(page != nullptr);
    views::RunTimelinePage* timeline = page->timelinePage();
    QVERIFY(timeline->isVisible());
    studio::RunTraceFeed* feed = window->runTraceFeed(run);
    QVERIFY(feed != nullptr);
    QList<double> buildMs;
    QList<qint64> buildBytes;
    connect(
        feed, &studio::RunTraceFeed::timelineReady, this,
        [&](const QString&, const std::shared_ptr<const trace::TimelineIndex>&, const views::RunTimelineLoad& load) {
          buildMs << load.milliseconds;
          buildBytes << load.storedBytes;
        });

    // The first window's traces land: the tab shows a timeline while the run is live.
    QTRY_VERIFY_WITH_TIMEOUT(slicesShown(timeline) > 0, 60'000);
    QVERIFY2(launcher.state() == QProcess::Running, "the run ended before its first window was shown");
    const std::uint64_t first = slicesShown(timeline);
    QVERIFY(timeline->view()->isFit());

    // More windows land: the count grows before the run ends. The view was at "fit": it follows the new end.
    QTRY_VERIFY_WITH_TIMEOUT(slicesShown(timeline) > first, 30'000);
    QVERIFY2(launcher.state() == QProcess::Running, "the run ended before the timeline grew: raise kSteps");
    QVERIFY(timeline->view()->isFit());
    QCOMPARE(timeline->view()->visibleRange().endNs, timeline->view()->index()->data().endNs);

    // The user zooms into the first tenth: the next update keeps that place (the same instants).
    const trace::TimelineIndex* before = timeline->view()->index();
    const std::int64_t start = before->data().startNs;
    const std::int64_t length = (before->data().endNs - start) / 10;
    timeline->view()->setVisibleRange({start + length, start + 2 * length});
    const trace::TimeRange zoomed = timeline->view()->visibleRange();
    const std::int64_t zoomedBase = baseOf(*before);
    const int updates = timeline->updates();
    const bool zoomedWhileLive = launcher.state() == QProcess::Running;
    QTRY_VERIFY_WITH_TIMEOUT(timeline->updates() > updates || launcher.state() == QProcess::NotRunning, 30'000);
    if (timeline->updates() > updates) {
      const std::int64_t shift = zoomedBase - baseOf(*timeline->view()->index());
      QCOMPARE(timeline->view()->visibleRange().startNs, zoomed.startNs + shift);
      QCOMPARE(timeline->view()->visibleRange().endNs, zoomed.endNs + shift);
      QVERIFY(!timeline->view()->isFit());
    } else {
      QVERIFY2(!zoomedWhileLive, "the timeline did not update after the zoom while the run went on");
    }

    // The end: every rank exited 0; the feed read the last list and the last build holds every window.
    QVERIFY(launcher.waitForFinished(180'000));
    QCOMPARE(launcher.exitCode(), 0);
    QTRY_VERIFY_WITH_TIMEOUT(!feed->isFollowing(), 10'000);

    // The finished trace files, merged by the core's merge (every window of every rank), loaded from the file. The
    // run is recorded in the workspace, so they are in its own folder, run_<id>/.
    const QStringList runDirs = QDir(traces).entryList({u"run_*"_s}, QDir::Dirs);
    QCOMPARE(runDirs.size(), qsizetype{1});
    const QString runTraces = QDir(traces).filePath(runDirs.front());
    std::vector<std::filesystem::path> files;
    for (int w = 0; w < 4; ++w) {
      for (int rank = 0; rank < 2; ++rank) {
        files.push_back(QDir(runTraces).filePath(u"window_%1/profile_%2.json"_s.arg(w).arg(rank)).toStdString());
      }
    }
    trace::TraceMergeOptions merge;
    merge.windowsOfOneRank = true;
    const std::filesystem::path merged = QDir(dir.path()).filePath(u"all.json"_s).toStdString();
    trace::mergeTraces(files, merged, merge);
    const auto finished = trace::TimelineIndex::load(merged);
    QVERIFY(finished.has_value());
    QTRY_VERIFY_WITH_TIMEOUT(slicesShown(timeline) == finished->sliceCount(), 20'000);
    QString why;
    QTRY_VERIFY2_WITH_TIMEOUT(sameTimeline(*timeline->view()->index(), *finished, &why), qPrintable(why), 10'000);
    QVERIFY(slicesShown(timeline) > first);
    QCOMPARE(timeline->currentKey(), u"run"_s);

    // The list: the whole run, each window with both ranks, each rank's trace; no stored merged file listed.
    QCOMPARE(timeline->entries().front().kind, views::RunTraceEntry::Kind::WholeRun);
    QCOMPARE(timeline->entries().front().windows, 4);
    QCOMPARE(timeline->entries().size(), qsizetype{1 + 4 * 3});
    QCOMPARE(timeline->list()->topLevelItemCount(), 5);

    // One window's entry: the two ranks merged in memory equal the profiler's own merged file of that window.
    timeline->choose(u"group:window_2"_s);
    const auto window2 =
        trace::TimelineIndex::load(QDir(runTraces).filePath(u"window_2/merged/profile_merged.json"_s).toStdString());
    QVERIFY(window2.has_value());
    QTRY_VERIFY_WITH_TIMEOUT(timeline->updates() > 0 && timeline->view()->index() != nullptr &&
                                 sameTimeline(*timeline->view()->index(), *window2, &why),
                             20'000);

    QString times;
    for (qsizetype i = 0; i < buildMs.size(); ++i)
      times += u" %1 ms (%2 KiB)"_s.arg(buildMs[i], 0, 'f', 1).arg(buildBytes[i] / 1024);
    qInfo("timelines built while following: %lld:%s; the test took %.1f s", static_cast<long long>(buildMs.size()),
          qPrintable(times), static_cast<double>(clock.elapsed()) / 1000.0);
  }
};

QTEST_MAIN(TestLiveTimeline)
#include "tst_live_timeline.moc"
