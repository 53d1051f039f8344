// SPDX-License-Identifier: Apache-2.0
// Issue 18 end to end: a 4-rank `fathom train` started through the real `fathom launch` (as from the command
// line) into a workspace the Studio has open. The run appears in the browser by itself; its page's models
// (one row per rank, the metric plot) advance while it runs, from incremental reads; a second main window opened
// mid-run (the Studio closed and started again) reopens the page and re-attaches; the final state is right.
#include "main_window.h"
#include "run_feed.h"
#include "studio_test_mode.h"
#include "workspace_controller.h"

#include "charts/metric_plot_panel.h"
#include "runs/live_ranks_model.h"
#include "runs/metric_summary_model.h"
#include "runs/run_details_page.h"
#include "runs/runs_model.h"

#include "cli_runner.h"

#include <fathom/store/workspace.h>

#include <QElapsedTimer>
#include <QProcess>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace Qt::StringLiterals;
using namespace fathom;
using studio::MainWindow;
using views::LiveRanksModel;

namespace {

constexpr int kRanks = 4;
constexpr int kSteps = 3000;

/// The lowest current step over the ranks of `model` (-1 while a rank has none).
std::int64_t slowestStep(const LiveRanksModel& model) {
  if (model.rowCount() < kRanks) {
    return -1;
  }
  std::int64_t out = kSteps;
  for (int rank = 0; rank < kRanks; ++rank) {
    out = std::min(out, model.stepOf(rank).value_or(-1));
  }
  return out;
}

}  // namespace

class TestLiveRun : public QObject {
  Q_OBJECT

private slots:
  void initTestCase() { fathom::test::enterStudioTestMode(); }
  void cleanupTestCase() { fathom::test::leaveStudioTestMode(); }

  void followsACommandLineRunLive() {
    QTemporaryDir dir;
    const QString ws = dir.filePath(u"live.sqlite"_s);
    { store::Workspace create(ws.toStdString()); }  // the Studio opens it before the run exists

    auto window = std::make_unique<MainWindow>();
    window->show();
    QVERIFY(QTest::qWaitForWindowExposed(window.get()));
    window->openWorkspace(ws);
    QTRY_VERIFY(window->workspace()->isOpen());

    QProcess launcher;
    launcher.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    launcher.setProcessEnvironment(fathom::test::launcherFreeEnvironment());
    launcher.start(fathom::test::fathomExecutable(), {u"launch"_s,
                                                      u"--num_processes"_s,
                                                      QString::number(kRanks),
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
                                                      u"5"_s});
    QVERIFY(launcher.waitForStarted());
    auto stopLauncher = qScopeGuard([&] {
      if (launcher.state() != QProcess::NotRunning) {
        launcher.terminate();
        launcher.waitForFinished(10'000);
      }
    });

    // Started from the command line, the run appears in the browser by itself (the periodic read, 1 s).
    QTRY_VERIFY_WITH_TIMEOUT(window->runsModel()->rowCount() == 1, 20'000);
    QVERIFY(window->runsModel()->runs().at(0).info.status == store::RunStatus::Running);
    const qint64 run = window->runsModel()->runs().at(0).info.id.value;
    window->openRun(run);
    views::RunDetailsPage* page = nullptr;
    QTRY_VERIFY((page = window->runPage(run)) != nullptr);
    QVERIFY(window->runFeed(run)->isFollowing());

    // The rows advance while it runs: every rank has a step, then a later one, the run still running.
    LiveRanksModel* ranks = page->ranksModel();
    QTRY_VERIFY_WITH_TIMEOUT(slowestStep(*ranks) > 0, 30'000);
    const std::int64_t first = slowestStep(*ranks);
    const std::size_t firstPoints = page->pointCount();
    QTRY_VERIFY_WITH_TIMEOUT(slowestStep(*ranks) > first, 20'000);
    QVERIFY2(page->isLive(), "the run ended before the page saw it advance: raise kSteps");
    QVERIFY(page->pointCount() > firstPoints);
    QCOMPARE(ranks->rowCount(), kRanks);
    QCOMPARE(ranks->index(0, LiveRanksModel::StateColumn).data().toString(), u"running"_s);
    QVERIFY(ranks->index(0, LiveRanksModel::PidColumn).data().toLongLong() > 0);
    QVERIFY(page->plotPanel()->plot()->lineCount() >= 1);

    // The Studio closes and starts again mid-run: the page reopens and re-attaches, caught up with the history.
    window->close();
    window.reset();
    window = std::make_unique<MainWindow>();
    window->show();
    QVERIFY(QTest::qWaitForWindowExposed(window.get()));
    window->openWorkspace(ws);
    QTRY_VERIFY_WITH_TIMEOUT((page = window->runPage(run)) != nullptr, 10'000);
    ranks = page->ranksModel();
    const std::int64_t before = first;
    QTRY_VERIFY_WITH_TIMEOUT(slowestStep(*ranks) > before, 10'000);
    const std::int64_t reattached = slowestStep(*ranks);
    if (launcher.state() == QProcess::Running) {
      QTRY_VERIFY_WITH_TIMEOUT(slowestStep(*ranks) > reattached || !page->isLive(), 20'000);
    }

    // The end: every rank exited 0 at the last step; the feed stopped; the summaries match the workspace.
    QVERIFY(launcher.waitForFinished(120'000));
    QCOMPARE(launcher.exitCode(), 0);
    QTRY_VERIFY_WITH_TIMEOUT(!window->runFeed(run)->isFollowing(), 10'000);
    QVERIFY(!page->isLive());
    const store::Workspace reader(ws.toStdString(), store::Workspace::Options{.create = false, .reconcile = false});
    const auto summaries = reader.metricSummaries(store::RunId{run});
    const auto heartbeats = reader.heartbeats(store::RunId{run});
    for (int rank = 0; rank < kRanks; ++rank) {
      const QModelIndex state = ranks->index(rank, LiveRanksModel::StateColumn);
      QCOMPARE(state.data(LiveRanksModel::ExitCodeRole).toInt(), 0);
      QCOMPARE(state.data().toString(), u"exited"_s);
      std::int64_t last = 0;  // the rank's last step as the workspace holds it
      for (const auto& s : summaries) {
        last = s.rank == rank ? std::max(last, s.lastStep) : last;
      }
      for (const auto& h : heartbeats) {
        last = h.rank == rank ? std::max(last, h.step) : last;
      }
      QVERIFY(last >= kSteps - 5);
      QCOMPARE(*ranks->stepOf(rank), last);
    }
    QCOMPARE(page->metricsModel()->rowCount(), static_cast<int>(summaries.size()));
    std::int64_t points = 0;
    for (const auto& s : summaries) {
      points += s.count;
    }
    QCOMPARE(static_cast<std::int64_t>(page->pointCount()), points);  // every point once: nothing read twice
    QTRY_VERIFY(window->runsModel()->runs().at(0).info.status == store::RunStatus::Succeeded);
  }
};

QTEST_MAIN(TestLiveRun)
#include "tst_live_run.moc"
