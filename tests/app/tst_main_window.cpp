// SPDX-License-Identifier: Apache-2.0
// The main window, offscreen: create and open workspaces (and the error a bad one gives), the runs browser over a
// workspace written through core/store (filter with Ctrl+F, sort by a header click, double-click opens the run with
// its real ranks, metrics and log), saved plans, recent workspaces, the selected run's properties shown whole at
// 1600×1000, and the dock layout saved and restored.
#include "main_window.h"
#include "model_dump.h"
#include "studio_settings.h"
#include "studio_test_mode.h"
#include "workspace_controller.h"

#include "charts/metric_plot_panel.h"
#include "planner/saved_plans_model.h"
#include "run_feed.h"
#include "runs/config_diff_model.h"
#include "runs/event_log_model.h"
#include "runs/live_ranks_model.h"
#include "runs/metric_summary_model.h"
#include "runs/run_comparison_page.h"
#include "runs/run_details_page.h"
#include "runs/run_summary_model.h"
#include "runs/runs_browser.h"
#include "runs/runs_model.h"
#include "timeline/plan_lane_painter.h"
#include "timeline/plan_step_model.h"
#include "timeline/step_alignment_view.h"
#include "timeline/timeline_page.h"
#include "timeline/timeline_search_bar.h"
#include "timeline/timeline_view.h"

#include <fathom/store/workspace.h>

#include <QAction>
#include <QApplication>
#include <QCommandLinkButton>
#include <QDockWidget>
#include <QFile>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace fathom;
using studio::MainWindow;

namespace {

/// Three finished runs, as `fathom launch` records them: DDP on 2 ranks, FSDP on 4 (failed), ZeRO-3 on 2; the first
/// named by its user (`--run_name`), the others by default.
void writeFixture(const QString& path) {
  store::Workspace ws(path.toStdString());
  struct Run {
    const char* name;
    const char* program;
    store::RunStrategy strategy;
    int ranks;
    double finalLoss;
    store::RunStatus status;
  };
  const Run runs[] = {
      {"baseline", "fathom train", {}, 2, 2.5, store::RunStatus::Succeeded},
      {"train-2",
       "fathom train",
       {plan::Strategy::Fsdp, plan::FsdpSharding::FullShard},
       4,
       1.25,
       store::RunStatus::Failed},
      {"my_program-3", "my_program", {plan::Strategy::Zero3, {}}, 2, 3.75, store::RunStatus::Succeeded},
  };
  for (const Run& r : runs) {
    store::NewRun spec{r.name, std::string("fathom launch ") + r.program, "", ""};
    spec.layout.worldSize = r.ranks;
    spec.layout.numMachines = 1;
    spec.layout.strategy = r.strategy;
    spec.layout.hosts = {"node1"};
    const store::RunId id = ws.createRun(spec);
    std::vector<store::MetricPoint> points;
    for (int rank = 0; rank < r.ranks; ++rank) {
      ws.upsertRank(id, {rank, "node1", 1000 + rank, "cpu", r.status == store::RunStatus::Failed && rank == 1 ? 3 : 0});
      for (int step = 10; step <= 50; step += 10) {
        points.push_back({rank, step, 1700000000.0 + step, "loss", r.finalLoss + (50 - step) / 10.0});
      }
      points.push_back({rank, 50, 1700000050.0, "final_loss", r.finalLoss});
    }
    ws.appendMetrics(id, points);
    const std::vector<store::EventRecord> events{{0, 1700000001.0, LogLevel::Info, "starting"},
                                                 {0, 1700000050.0, LogLevel::Info, "done"}};
    ws.appendEvents(id, events);
    ws.finishRun(id, r.status, r.status == store::RunStatus::Failed ? std::optional<int>(3) : std::optional<int>(0));
  }
  ws.savePlan(R"({"model":"gpt2"})", R"({"strategies":[]})");
}

}  // namespace

class TestMainWindow : public QObject {
  Q_OBJECT

private slots:
  void initTestCase() { fathom::test::enterStudioTestMode(); }
  void cleanupTestCase() { fathom::test::leaveStudioTestMode(); }

  void createsAndOpensWorkspaces() {
    QTemporaryDir dir;
    const QString path = dir.filePath(u"new.sqlite"_s);
    MainWindow window;
    window.show();
    QCOMPARE(window.runsBrowser()->findChild<QLabel*>(u"runsEmpty"_s)->text(), u"No workspace open."_s);
    window.openWorkspace(path, /*create=*/true);
    QTRY_COMPARE(window.workspace()->path(), path);
    QVERIFY(QFile::exists(path));
    QTRY_VERIFY(window.runsBrowser()->findChild<QLabel*>(u"runsEmpty"_s)->text().startsWith(u"No runs yet"_s));
    QCOMPARE(studio::settings::recentWorkspaces().value(0), path);
    window.closeWorkspace();
    QVERIFY(!window.workspace()->isOpen());
    QCOMPARE(window.runsBrowser()->findChild<QLabel*>(u"runsEmpty"_s)->text(), u"No workspace open."_s);
  }

  // `fathom-studio --open TRACE`: the trace opens in a timeline tab of its own, which loads it off the GUI thread.
  void opensTraceInATab() {
    MainWindow window;
    window.show();
    const int tabs = window.documents()->count();
    const QString trace = QStringLiteral(FATHOM_TEST_DATA_DIR "/traces/gloo_2rank_merged.json.gz");
    views::TimelineView* view = window.openTrace(trace);
    auto* page = qobject_cast<views::TimelinePage*>(window.documents()->currentWidget());
    QVERIFY(page != nullptr);
    QCOMPARE(page->view(), view);
    QCOMPARE(window.documents()->count(), tabs + 1);
    QCOMPARE(window.documents()->currentWidget(), page);
    QCOMPARE(page->path(), trace);
    QCOMPARE(window.documents()->tabText(window.documents()->currentIndex()), u"gloo_2rank_merged.json.gz"_s);
    QTRY_VERIFY_WITH_TIMEOUT(view->index() != nullptr, 30'000);
    QCOMPARE(view->laneCount(), 6);
    // File > Open Trace… asks for such a file; Ctrl+F in the trace's page focuses its search (the window's Ctrl+F,
    // Filter Runs, acts elsewhere).
    auto* openTrace = window.findChild<QAction*>(u"openTraceAction"_s);
    QVERIFY(openTrace != nullptr);
    QVERIFY(window.findChild<QMenu*>(u"fileMenu"_s)->actions().contains(openTrace));
    QCOMPARE(openTrace->shortcut(), QKeySequence(u"Ctrl+Shift+T"_s));
    QVERIFY(QTest::qWaitForWindowActive(&window));
    view->setFocus();
    QTest::keyClick(view, Qt::Key_F, Qt::ControlModifier);
    QTRY_COMPARE(QApplication::focusWidget(), page->searchBar()->patternField());
    // Two ranks with steps: the step alignment tab opens beside the timeline.
    auto* steps = window.findChild<views::StepAlignmentView*>(u"stepAlignmentView"_s);
    QVERIFY(steps != nullptr);
    QCOMPARE(window.documents()->indexOf(steps), window.documents()->indexOf(page) + 1);
    QCOMPARE(steps->highlightedLastRanks(), std::vector<int>{1});
  }

  // `fathom-studio --open TRACE --plan PLAN.json`: a plan as `fathom plan --json` prints it (here one strategy of the
  // saved comparison fixture) on the trace's plan lanes and its step tab; a file that is no plan is an error dialog.
  void openTraceWithPlan() {
    QFile fixture(QStringLiteral(FATHOM_TEST_DATA_DIR "/saved_plan_v3.prediction.json"));
    QVERIFY(fixture.open(QIODevice::ReadOnly));
    const QJsonObject ddp =
        QJsonDocument::fromJson(fixture.readAll()).object().value(u"strategies"_s).toArray().first().toObject();
    QCOMPARE(ddp.value(u"plan"_s).toObject().value(u"strategy"_s).toString(), u"ddp"_s);
    QTemporaryDir dir;
    QFile planFile(dir.filePath(u"plan.json"_s));
    QVERIFY(planFile.open(QIODevice::WriteOnly));
    planFile.write(QJsonDocument(ddp).toJson());
    planFile.close();

    MainWindow window;
    window.show();
    views::TimelineView* view =
        window.openTrace(QStringLiteral(FATHOM_TEST_DATA_DIR "/traces/gloo_2rank_merged.json.gz"));
    QVERIFY(window.openTracePlan(view, planFile.fileName()));
    QTRY_VERIFY_WITH_TIMEOUT(view->index() != nullptr, 30'000);
    QCOMPARE(view->planLaneCount(), 2);
    QVERIFY(view->planLanes().plan().has_value());
    QCOMPARE(view->planLanes().plan()->stepS, ddp.value(u"time"_s).toObject().value(u"step_s"_s).toDouble());
    auto* steps = window.findChild<views::StepAlignmentView*>(u"stepAlignmentView"_s);
    QVERIFY(steps != nullptr);
    QVERIFY(steps->comparisonModel()->predictedSeconds(views::PlanStepModel::StepTimeRow).has_value());
    QVERIFY(steps->comparisonModel()->measuredSeconds(views::PlanStepModel::StepTimeRow).has_value());

    QFile notPlan(dir.filePath(u"not_a_plan.json"_s));
    QVERIFY(notPlan.open(QIODevice::WriteOnly));
    notPlan.write("{\"traceEvents\": []}");
    notPlan.close();
    QVERIFY(!window.openTracePlan(view, notPlan.fileName()));
    QTRY_VERIFY(window.findChild<QMessageBox*>(u"errorDialog"_s) != nullptr);
    QCOMPARE(view->planLaneCount(), 2);  // the plan shown before stays
  }

  // The home page's links and its recent-workspaces list act like the menu entries they stand for.
  void homePageLinksAct() {
    QTemporaryDir dir;
    const QString path = dir.filePath(u"recent.sqlite"_s);
    {
      MainWindow first;
      first.openWorkspace(path, /*create=*/true);
      QTRY_COMPARE(first.workspace()->path(), path);
    }
    MainWindow window;
    window.show();
    auto* home = window.findChild<QWidget*>(u"homePage"_s);
    QVERIFY(home != nullptr);
    const int tabs = window.documents()->count();
    QTest::mouseClick(home->findChild<QCommandLinkButton*>(u"homePlanner"_s), Qt::LeftButton);
    QTRY_COMPARE(window.documents()->count(), tabs + 1);
    QCOMPARE(window.documents()->currentWidget()->objectName(), u"whatIfView"_s);

    auto* recent = home->findChild<QListWidget*>(u"recentWorkspaces"_s);
    QVERIFY(recent != nullptr);
    QTRY_VERIFY(recent->count() >= 1);
    QCOMPARE(recent->item(0)->data(Qt::UserRole).toString(), path);
    emit recent->itemActivated(recent->item(0));
    QTRY_COMPARE(window.workspace()->path(), path);
  }

  void aBadWorkspaceIsAnErrorWithTheCoreMessage() {
    QTemporaryDir dir;
    const QString path = dir.filePath(u"not-a-workspace.sqlite"_s);
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("this is not an SQLite file, it only has the name of one\n");
    f.close();
    MainWindow window;
    window.show();
    window.openWorkspace(path);
    QMessageBox* box = nullptr;
    QTRY_VERIFY((box = window.findChild<QMessageBox*>(u"errorDialog"_s)) != nullptr);
    QVERIFY(box->text().contains(u"could not be opened"_s));
    QVERIFY2(box->detailedText().contains(u"not an SQLite database"_s), qPrintable(box->detailedText()));
    QVERIFY(!window.workspace()->isOpen());
    box->close();
  }

  void runsBrowserFiltersSortsAndOpensRuns() {
    QTemporaryDir dir;
    const QString path = dir.filePath(u"runs.sqlite"_s);
    writeFixture(path);
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.openWorkspace(path);
    QTRY_COMPARE(window.runsModel()->rowCount(), 3);
    QTableView* view = window.runsBrowser()->view();
    const QAbstractItemModel* shown = view->model();
    QCOMPARE(fathom::test::dumpColumn(*shown, views::RunsModel::StrategyColumn),
             (QStringList{u"ZeRO-3"_s, u"FSDP full shard"_s, u"DDP"_s}));  // newest first
    QCOMPARE(fathom::test::dumpColumn(*shown, views::RunsModel::NameColumn),
             (QStringList{u"my_program-3"_s, u"train-2"_s, u"baseline"_s}));
    QCOMPARE(fathom::test::dumpColumn(*shown, views::RunsModel::WorldSizeColumn),
             (QStringList{u"2"_s, u"4"_s, u"2"_s}));
    QCOMPARE(window.plansModel()->rowCount(), 1);

    // Sort by final loss: click the header (ascending), again (descending).
    const int x = view->horizontalHeader()->sectionViewportPosition(views::RunsModel::FinalLossColumn) + 5;
    QTest::mouseClick(view->horizontalHeader()->viewport(), Qt::LeftButton, {}, QPoint(x, 5));
    const QStringList ascending = fathom::test::dumpColumn(*shown, views::RunsModel::FinalLossColumn);
    QTest::mouseClick(view->horizontalHeader()->viewport(), Qt::LeftButton, {}, QPoint(x, 5));
    const QStringList descending = fathom::test::dumpColumn(*shown, views::RunsModel::FinalLossColumn);
    QCOMPARE(ascending, (QStringList{u"1.25"_s, u"2.5"_s, u"3.75"_s}));
    QCOMPARE(descending, (QStringList{u"3.75"_s, u"2.5"_s, u"1.25"_s}));

    // Ctrl+F focuses the filter; typing filters over every column.
    QTest::keyClick(&window, Qt::Key_F, Qt::ControlModifier);
    auto* filter = window.runsBrowser()->findChild<QLineEdit*>(u"runsFilter"_s);
    QTRY_VERIFY(filter->hasFocus());
    QTest::keyClicks(filter, u"fsdp"_s);
    QCOMPARE(shown->rowCount(), 1);
    QCOMPARE(shown->index(0, views::RunsModel::StatusColumn).data().toString(), u"failed (exit code 3)"_s);

    // Double-click opens the run: its page holds the workspace's ranks, metrics and log.
    const QRect cell = view->visualRect(shown->index(0, views::RunsModel::NameColumn));
    // What a window system delivers for a double-click: press, release, double-click, release (Qt 6.4's
    // QTest::mouseDClick sends the double-click event alone).
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, cell.center());
    QTest::mouseDClick(view->viewport(), Qt::LeftButton, {}, cell.center());
    QTest::mouseRelease(view->viewport(), Qt::LeftButton, {}, cell.center());
    views::RunDetailsPage* page = nullptr;
    QTRY_VERIFY((page = window.runPage(2)) != nullptr);
    QTRY_COMPARE(page->ranksModel()->rowCount(), 4);
    QCOMPARE(page->metricsModel()->rowCount(), 2 * 4);  // loss and final_loss for each rank
    QCOMPARE(page->eventsModel()->rowCount(), 2);
    const QModelIndex state = page->ranksModel()->index(1, views::LiveRanksModel::StateColumn);
    QCOMPARE(state.data(views::LiveRanksModel::ExitCodeRole).toInt(), 3);
    QCOMPARE(state.data().toString(), u"failed (exit code 3)"_s);
    QVERIFY(!window.runFeed(2)->isFollowing());  // a finished run is read once
    QCOMPARE(window.documents()->currentWidget(), page);

    filter->clear();
    QCOMPARE(shown->rowCount(), 3);
  }

  // Two runs selected in the browser, Compare: a comparison page with both runs' summaries and overlaid losses.
  void comparesSelectedRuns() {
    QTemporaryDir dir;
    const QString path = dir.filePath(u"runs.sqlite"_s);
    writeFixture(path);
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.openWorkspace(path);
    QTRY_COMPARE(window.runsModel()->rowCount(), 3);
    auto* compare = window.runsBrowser()->findChild<QPushButton*>(u"runsCompare"_s);
    QVERIFY(compare != nullptr);
    window.runsBrowser()->selectRuns({1});
    QVERIFY(!compare->isEnabled());
    window.runsBrowser()->selectRuns({1, 3});
    QCOMPARE(window.runsBrowser()->selectedRuns(), (QList<qint64>{1, 3}));
    QVERIFY(compare->isEnabled());
    QTest::mouseClick(compare, Qt::LeftButton);
    QTRY_VERIFY(window.comparisonPage() != nullptr);
    views::RunComparisonPage* page = window.comparisonPage();
    QCOMPARE(window.documents()->currentWidget(), page);
    QCOMPARE(page->summaryModel()->rowCount(), 2);
    QCOMPARE(page->diffModel()->rowCount(), 0);  // neither run recorded a specification
    QCOMPARE(page->plotPanel()->plot()->lineCount(), 2);
  }

  // At 1600×1000 the Properties dock shows the selected run whole, the command as `fathom launch` recorded it
  // included, without scrolling.
  void propertiesShowTheWholeRun() {
    QTemporaryDir dir;
    const QString path = dir.filePath(u"command.sqlite"_s);
    const QString command = u"fathom launch --num_processes 2 /home/user/src/fathom/build/default/bin/fathom train "
                            u"--model gpt-tiny --steps 50 --batch_size 8 --optimizer adamw --log_every 5"_s;
    {
      store::Workspace ws(path.toStdString());
      const store::RunId id = ws.createRun({"fathom train", command.toStdString(), "json", R"({"world_size": 2})"});
      ws.finishRun(id, store::RunStatus::Succeeded, 0);
    }
    MainWindow window;
    window.resize(1600, 1000);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.openWorkspace(path);
    QTRY_COMPARE(window.runsModel()->rowCount(), 1);
    window.runsBrowser()->selectRun(window.runsModel()->runs().front().info.id.value);
    auto* properties = window.findChild<QLabel*>(u"properties"_s);
    QTRY_VERIFY(properties->text().contains(command));
    auto* scroll = qobject_cast<QScrollArea*>(window.findChild<QDockWidget*>(u"propertiesDock"_s)->widget());
    QVERIFY(scroll != nullptr);
    QTRY_COMPARE(scroll->horizontalScrollBar()->maximum(), 0);
    QVERIFY2(properties->heightForWidth(scroll->viewport()->width()) <= scroll->viewport()->height(),
             qPrintable(u"%1 px of properties in %2 px"_s.arg(properties->heightForWidth(scroll->viewport()->width()))
                            .arg(scroll->viewport()->height())));
    QCOMPARE(scroll->verticalScrollBar()->maximum(), 0);
  }

  /// The window fits a laptop's screen (1366 x 768, less a panel) with every kind of page open: the run page once made
  /// it at least 1030 px tall (its header, chart and tabs' minimums). There the run page scrolls; in a 1500 x 900
  /// window it fits without scrolling.
  void windowFitsALaptopScreen() {
    QTemporaryDir dir;
    const QString path = dir.filePath(u"runs.sqlite"_s);
    writeFixture(path);
    MainWindow window;
    window.resize(1366, 720);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.openWorkspace(path);
    QTRY_COMPARE(window.runsModel()->rowCount(), 3);
    window.openRun(2);
    views::RunDetailsPage* page = nullptr;
    QTRY_VERIFY((page = window.runPage(2)) != nullptr);
    QTRY_COMPARE(page->ranksModel()->rowCount(), 4);
    window.compareRuns({1, 2});
    QTRY_VERIFY(window.comparisonPage() != nullptr);
    window.showPlanner();
    window.openTrace(QStringLiteral(FATHOM_TEST_DATA_DIR "/traces/gloo_2rank_merged.json.gz"));
    window.documents()->setCurrentWidget(page);
    QApplication::processEvents();
    QVERIFY2(window.minimumSizeHint().height() <= 720, qPrintable(QString::number(window.minimumSizeHint().height())));
    QCOMPARE(window.height(), 720);
    auto* scroll = page->findChild<QScrollArea*>(u"runPageScroll"_s);
    QVERIFY(scroll != nullptr);
    QTRY_VERIFY(scroll->verticalScrollBar()->maximum() > 0);  // the page scrolls instead

    window.resize(1500, 900);
    QTRY_COMPARE(window.height(), 900);
    QTRY_COMPARE(scroll->verticalScrollBar()->maximum(), 0);
  }

  void layoutIsSavedAndRestored() {
    {
      MainWindow window;
      window.show();
      auto* log = window.findChild<QDockWidget*>(u"logDock"_s);
      QVERIFY(log->isVisible());
      log->hide();
      window.close();
    }
    MainWindow again;
    again.show();
    QVERIFY(QTest::qWaitForWindowExposed(&again));
    QVERIFY(!again.findChild<QDockWidget*>(u"logDock"_s)->isVisible());
    QVERIFY(again.findChild<QDockWidget*>(u"runsDock"_s)->isVisible());
    again.findChild<QAction*>(u"resetLayoutAction"_s)->trigger();
    QVERIFY(again.findChild<QDockWidget*>(u"logDock"_s)->isVisible());
  }
};

QTEST_MAIN(TestMainWindow)
#include "tst_main_window.moc"
