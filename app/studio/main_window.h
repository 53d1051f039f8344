// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QMainWindow>
#include <QMap>
#include <QPointer>

class QAction;
class QDockWidget;
class QLabel;
class QMenu;
class QPlainTextEdit;
class QProgressBar;
class QTabWidget;
class QTableView;

namespace fathom::views {
class ConfigWizard;
class DeviceMapView;
class EnvironmentModel;
class PlannerPanel;
class RunComparisonPage;
class RunDetailsPage;
class RunsBrowser;
class RunsModel;
class SavedPlansModel;
class TimelineView;
class WhatIfView;
struct WizardRun;
}  // namespace fathom::views

namespace fathom::studio {

class DemoBuilder;
class EnvironmentController;
class HomePage;
class LaunchController;
class PlannerController;
class RunFeed;
class RunTraceFeed;
class WorkspaceController;

/// The Studio's main window. Documents in the centre (the home page, the what-if planner, one page per opened
/// run); docks around them: Runs (the browser), Saved plans, Properties of the selected run, Log (launch output),
/// Planner (the plan highlighted in the what-if view). The layout is saved on close and restored on start.
/// Controllers do the work off the GUI thread: workspace reads, planner runs, launches, the demo.
class MainWindow : public QMainWindow {
  Q_OBJECT

public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  /// Text of the status bar's permanent device summary ("Probing environment…" until the report arrives).
  QString deviceSummary() const;
  EnvironmentController* environment() const { return m_environment; }
  WorkspaceController* workspace() const { return m_workspace; }
  PlannerController* planner() const { return m_planner; }
  LaunchController* launcher() const { return m_launch; }
  views::RunsBrowser* runsBrowser() const { return m_runsBrowser; }
  views::RunsModel* runsModel() const { return m_runsModel; }
  views::SavedPlansModel* plansModel() const { return m_plansModel; }
  QTabWidget* documents() const { return m_tabs; }
  /// The wizard opened last (nullptr when closed).
  views::ConfigWizard* wizard() const;
  /// The what-if view, or nullptr before showPlanner().
  views::WhatIfView* whatIfView() const;
  /// The page of run `id`, or nullptr when it is not open.
  views::RunDetailsPage* runPage(qint64 id) const;
  /// The feed that follows run `id`'s page, or nullptr.
  RunFeed* runFeed(qint64 id) const;
  /// The feed of run `id`'s Timeline tab, or nullptr.
  RunTraceFeed* runTraceFeed(qint64 id) const;
  /// The comparison page opened last, or nullptr.
  views::RunComparisonPage* comparisonPage() const;

public slots:
  void showAbout();
  /// Opens (or with `create`, creates) the workspace at `path`.
  void openWorkspace(const QString& path, bool create = false);
  void closeWorkspace();
  /// Opens the demo workspace in `directory` (DemoBuilder::defaultDirectory() when empty), building it first
  /// when it is missing or incomplete (with a progress dialog).
  void openDemo(const QString& directory = {});
  /// Opens the configuration wizard on a new configuration, or on the file `path`.
  views::ConfigWizard* newConfiguration();
  views::ConfigWizard* openConfiguration(const QString& path);
  /// Shows the what-if planner.
  views::WhatIfView* showPlanner();
  /// Shows the device map run `runId` recorded (`recordJson`, bigmodel::DispatchRecord's JSON) in the what-if
  /// planner's device-map view under `title` (the run page's "Device map…"); a record that cannot be read is named
  /// in the view and the log.
  views::DeviceMapView* openRecordedDeviceMap(qint64 runId, const QString& recordJson, const QString& title);
  /// Opens run `id` in a page (reading it from the workspace; a live run's page follows it).
  void openRun(qint64 id);
  /// Opens a page comparing `ids` (two or more runs).
  void compareRuns(const QList<qint64>& ids);
  /// Opens the trace at `path` (`.json`, `.json.gz`) in a timeline tab, a TimelinePage (search, minimap, the view;
  /// the tab's widget), and returns its view; it loads off the GUI thread. File > Open Trace… asks for the file.
  views::TimelineView* openTrace(const QString& path);
  /// Opens run `id` of the workspace on its Timeline tab: its stored traces (live while it runs).
  views::RunDetailsPage* openRunTimeline(qint64 id);
  /// Shows the plan in `planPath` (what `fathom plan --json` prints, the form a run's plan is stored in) on `view`'s
  /// plan lanes and its step tab; an error dialog names the file when it is not one. Returns whether it was shown.
  bool openTracePlan(views::TimelineView* view, const QString& planPath);
  void showSettings();

protected:
  void closeEvent(QCloseEvent* event) override;

private:
  void createActions();
  void createMenus();
  void createDocks();
  void connectControllers();
  void updateRecentMenu();
  void updateProperties(qint64 runId);
  void launch(const QString& configPath, const views::WizardRun& run);
  void appendLog(const QString& line);
  void setBusy(const QString& message);
  void setIdle(const QString& message);
  void showError(const QString& title, const QString& text, const QString& detail);
  /// Creates run `id`'s page and the feed that fills it.
  /// Runs `fathom runs plan-vs-actual RUN --compute` and has `feed` read the stored plan back.
  void computeRunPlan(qint64 run, RunFeed* feed);
  /// Runs `fathom plan --calibrate_from RUN --json` and shows its report (or error) on the run's page.
  void calibrateFromRun(qint64 run);
  /// "Resume from this checkpoint" on run `run`'s page: launches its specification `runSpec` again with
  /// --resume_from_checkpoint `checkpoint` (resume_launch.h), into the open workspace.
  void resumeRun(qint64 run, const QString& runSpec, const QString& checkpoint);
  views::RunDetailsPage* createRunPage(qint64 id);
  /// Remembers the open run pages of the workspace (reopened with it).
  void saveOpenRuns();
  void chooseWorkspace(bool create);

  EnvironmentController* m_environment = nullptr;
  WorkspaceController* m_workspace = nullptr;
  PlannerController* m_planner = nullptr;
  LaunchController* m_launch = nullptr;
  DemoBuilder* m_demo = nullptr;
  views::EnvironmentModel* m_environmentModel = nullptr;
  views::RunsModel* m_runsModel = nullptr;
  views::SavedPlansModel* m_plansModel = nullptr;

  QTabWidget* m_tabs = nullptr;
  HomePage* m_home = nullptr;
  QPointer<views::WhatIfView> m_whatIf;
  QPointer<views::ConfigWizard> m_wizard;
  QMap<qint64, QPointer<views::RunDetailsPage>> m_runPages;
  QMap<qint64, QPointer<RunFeed>> m_runFeeds;
  QMap<qint64, QPointer<RunTraceFeed>> m_runTraceFeeds;
  QPointer<views::RunComparisonPage> m_comparison;
  QList<qint64> m_reopenRuns;  ///< pages to reopen once the workspace's runs are read
  views::RunsBrowser* m_runsBrowser = nullptr;
  QTableView* m_plansView = nullptr;
  QLabel* m_properties = nullptr;
  QPlainTextEdit* m_log = nullptr;
  views::PlannerPanel* m_plannerPanel = nullptr;
  QList<QDockWidget*> m_docks;
  QByteArray m_defaultState;

  QLabel* m_deviceLabel = nullptr;
  QLabel* m_workspaceLabel = nullptr;
  QProgressBar* m_busy = nullptr;

  QMenu* m_recentMenu = nullptr;
  QAction* m_openAction = nullptr;
  QAction* m_newAction = nullptr;
  QAction* m_closeWorkspaceAction = nullptr;
  QAction* m_demoAction = nullptr;
  QAction* m_wizardAction = nullptr;
  QAction* m_openConfigAction = nullptr;
  QAction* m_openTraceAction = nullptr;
  QAction* m_plannerAction = nullptr;
  QAction* m_refreshAction = nullptr;
  QAction* m_filterAction = nullptr;
  QAction* m_stopAction = nullptr;
  QAction* m_settingsAction = nullptr;
  QAction* m_resetLayoutAction = nullptr;
  QAction* m_closeTabAction = nullptr;
  QAction* m_quitAction = nullptr;
};

}  // namespace fathom::studio
