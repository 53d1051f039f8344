// SPDX-License-Identifier: Apache-2.0
#include "main_window.h"

#include "about_dialog.h"
#include "demo_builder.h"
#include "environment_controller.h"
#include "home_page.h"
#include "launch_controller.h"
#include "planner_controller.h"
#include "resume_launch.h"
#include "run_feed.h"
#include "run_trace_feed.h"
#include "settings_dialog.h"
#include "studio_settings.h"
#include "workspace_controller.h"

#include "bigmodel/device_map_view.h"
#include "common/environment_model.h"
#include "common/formatting.h"
#include "planner/planner_panel.h"
#include "planner/saved_plans_model.h"
#include "planner/what_if_view.h"
#include "runs/run_comparison_page.h"
#include "runs/run_details_page.h"
#include "runs/runs_browser.h"
#include "runs/runs_model.h"
#include "timeline/timeline_view.h"
#include "wizard/config_wizard.h"

#include <fathom/common/error.h>

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDateTime>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QGuiApplication>
#include <QHeaderView>
#include <QJsonObject>
#include <QLabel>
#include <QLoggingCategory>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProcess>
#include <QProgressBar>
#include <QProgressDialog>
#include <QScreen>
#include <QScrollArea>
#include <QSortFilterProxyModel>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>

#include <utility>

using namespace Qt::StringLiterals;

Q_LOGGING_CATEGORY(lcStudio, "fathom.studio", QtInfoMsg)

namespace fathom::studio {
namespace {

/// Pixels between the rows of the Properties dock's table.
constexpr int kPropertiesCellSpacing = 4;

}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), m_environment(new EnvironmentController(this)), m_workspace(new WorkspaceController(this)),
      m_planner(new PlannerController(this)), m_launch(new LaunchController(this)), m_demo(new DemoBuilder(this)),
      m_environmentModel(new views::EnvironmentModel(this)), m_runsModel(new views::RunsModel(this)),
      m_plansModel(new views::SavedPlansModel(this)) {
  setObjectName(u"mainWindow"_s);
  setWindowTitle(tr("Fathom Studio"));
  setDockNestingEnabled(true);
  resize(1600, 1000);  // restoreGeometry() below replaces it; main() fits it to the screen

  m_tabs = new QTabWidget(this);
  m_tabs->setObjectName(u"documents"_s);
  m_tabs->setDocumentMode(true);
  m_tabs->setTabsClosable(true);
  m_tabs->setMovable(true);
  m_home = new HomePage(m_environmentModel, m_tabs);
  m_tabs->addTab(m_home, tr("Home"));
  m_tabs->tabBar()->setTabButton(0, QTabBar::RightSide, nullptr);  // the home page stays
  connect(m_tabs, &QTabWidget::tabCloseRequested, this, [this](int index) {
    if (index > 0) {
      m_tabs->widget(index)->deleteLater();
      m_tabs->removeTab(index);
    }
  });
  setCentralWidget(m_tabs);

  createActions();
  createMenus();
  createDocks();
  // The home page's links do what the same menu entries do.
  connect(m_home, &HomePage::openWorkspaceClicked, m_openAction, &QAction::trigger);
  connect(m_home, &HomePage::newWorkspaceClicked, m_newAction, &QAction::trigger);
  connect(m_home, &HomePage::demoClicked, m_demoAction, &QAction::trigger);
  connect(m_home, &HomePage::newConfigurationClicked, m_wizardAction, &QAction::trigger);
  connect(m_home, &HomePage::plannerClicked, m_plannerAction, &QAction::trigger);
  connect(m_home, &HomePage::recentWorkspaceActivated, this, [this](const QString& path) { openWorkspace(path); });

  m_busy = new QProgressBar(this);
  m_busy->setObjectName(u"busyIndicator"_s);
  m_busy->setRange(0, 0);
  m_busy->setMaximumWidth(120);
  m_busy->setVisible(false);
  m_workspaceLabel = new QLabel(tr("No workspace"), this);
  m_workspaceLabel->setObjectName(u"workspaceSummary"_s);
  m_deviceLabel = new QLabel(tr("Probing environment…"), this);
  m_deviceLabel->setObjectName(u"deviceSummary"_s);
  statusBar()->addPermanentWidget(m_busy);
  statusBar()->addPermanentWidget(m_workspaceLabel);
  statusBar()->addPermanentWidget(m_deviceLabel);
  statusBar()->showMessage(tr("Ready"));

  connectControllers();
  m_home->setRecentWorkspaces(settings::recentWorkspaces());

  m_defaultState = saveState();
  if (const QScreen* screen = QGuiApplication::primaryScreen(); screen != nullptr) {
    const QSize available = screen->availableGeometry().size() * 0.92;
    resize(size().boundedTo(available));
  }
  restoreGeometry(settings::windowGeometry());
  restoreState(settings::windowState());
  m_environment->refresh();
}

MainWindow::~MainWindow() = default;

QString MainWindow::deviceSummary() const {
  return m_deviceLabel->text();
}

void MainWindow::createActions() {
  auto make = [this](const QString& text, const QString& name, const QKeySequence& key = {}) {
    auto* a = new QAction(text, this);
    a->setObjectName(name);
    if (!key.isEmpty()) {
      a->setShortcut(key);
    }
    return a;
  };
  m_openAction = make(tr("&Open Workspace…"), u"openWorkspaceAction"_s, QKeySequence::Open);
  m_newAction = make(tr("&New Workspace…"), u"newWorkspaceAction"_s, QKeySequence::New);
  m_closeWorkspaceAction = make(tr("&Close Workspace"), u"closeWorkspaceAction"_s);
  m_demoAction = make(tr("Open &Demo Workspace"), u"demoAction"_s);
  m_wizardAction = make(tr("New Run &Configuration…"), u"wizardAction"_s, QKeySequence(u"Ctrl+Shift+N"_s));
  m_openConfigAction = make(tr("Open Con&figuration…"), u"openConfigAction"_s, QKeySequence(u"Ctrl+Shift+O"_s));
  m_openTraceAction = make(tr("Open &Trace…"), u"openTraceAction"_s, QKeySequence(u"Ctrl+Shift+T"_s));
  m_plannerAction = make(tr("&What-if Planner"), u"plannerAction"_s, QKeySequence(u"Ctrl+Shift+P"_s));
  m_refreshAction = make(tr("&Refresh"), u"refreshAction"_s, QKeySequence::Refresh);
  m_filterAction = make(tr("&Filter Runs"), u"filterAction"_s, QKeySequence::Find);
  m_stopAction = make(tr("&Stop Launch"), u"stopAction"_s);
  m_stopAction->setEnabled(false);
  m_settingsAction = make(tr("&Settings…"), u"settingsAction"_s, QKeySequence(u"Ctrl+,"_s));
  m_resetLayoutAction = make(tr("&Reset Layout"), u"resetLayoutAction"_s);
  m_closeTabAction = make(tr("Close &Tab"), u"closeTabAction"_s, QKeySequence::Close);
  m_quitAction = make(tr("&Quit"), u"quitAction"_s, QKeySequence::Quit);

  connect(m_openAction, &QAction::triggered, this, [this] { chooseWorkspace(false); });
  connect(m_newAction, &QAction::triggered, this, [this] { chooseWorkspace(true); });
  connect(m_closeWorkspaceAction, &QAction::triggered, this, &MainWindow::closeWorkspace);
  connect(m_demoAction, &QAction::triggered, this, [this] { openDemo(); });
  connect(m_wizardAction, &QAction::triggered, this, &MainWindow::newConfiguration);
  connect(m_openConfigAction, &QAction::triggered, this, [this] {
    const QString file = QFileDialog::getOpenFileName(this, tr("Open Configuration"), QString(),
                                                      tr("Configuration (*.yaml *.yml *.json)"));
    if (!file.isEmpty()) {
      openConfiguration(file);
    }
  });
  connect(m_openTraceAction, &QAction::triggered, this, [this] {
    const QString file = QFileDialog::getOpenFileName(this, tr("Open Trace"), QString(),
                                                      tr("Chrome/Kineto traces (*.json *.json.gz *.gz)"));
    if (!file.isEmpty()) {
      openTrace(file);
    }
  });
  connect(m_plannerAction, &QAction::triggered, this, &MainWindow::showPlanner);
  connect(m_refreshAction, &QAction::triggered, this, [this] {
    m_environment->refresh();
    m_workspace->refresh(true);
  });
  connect(m_filterAction, &QAction::triggered, this, [this] {
    for (QDockWidget* dock : m_docks) {
      if (dock->objectName() == u"runsDock"_s) {
        dock->show();
        dock->raise();
      }
    }
    m_runsBrowser->focusFilter();
  });
  connect(m_stopAction, &QAction::triggered, m_launch, &LaunchController::stop);
  connect(m_settingsAction, &QAction::triggered, this, &MainWindow::showSettings);
  connect(m_resetLayoutAction, &QAction::triggered, this, [this] { restoreState(m_defaultState); });
  connect(m_closeTabAction, &QAction::triggered, this, [this] {
    if (m_tabs->currentIndex() > 0) {
      emit m_tabs->tabCloseRequested(m_tabs->currentIndex());
    }
  });
  connect(m_quitAction, &QAction::triggered, this, &QWidget::close);
}

void MainWindow::createMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->setObjectName(u"fileMenu"_s);
  file->addAction(m_newAction);
  file->addAction(m_openAction);
  m_recentMenu = file->addMenu(tr("Open &Recent"));
  m_recentMenu->setObjectName(u"recentMenu"_s);
  connect(m_recentMenu, &QMenu::aboutToShow, this, &MainWindow::updateRecentMenu);
  file->addAction(m_demoAction);
  file->addAction(m_closeWorkspaceAction);
  file->addSeparator();
  file->addAction(m_wizardAction);
  file->addAction(m_openConfigAction);
  file->addAction(m_openTraceAction);
  file->addSeparator();
  file->addAction(m_settingsAction);
  file->addSeparator();
  file->addAction(m_quitAction);

  QMenu* run = menuBar()->addMenu(tr("&Run"));
  run->setObjectName(u"runMenu"_s);
  run->addAction(m_wizardAction);
  run->addAction(m_stopAction);
  run->addSeparator();
  run->addAction(m_refreshAction);

  QMenu* view = menuBar()->addMenu(tr("&View"));
  view->setObjectName(u"viewMenu"_s);
  view->addAction(m_plannerAction);
  view->addAction(m_filterAction);
  view->addAction(m_closeTabAction);
  view->addSeparator();
  view->setProperty("docksAt", view->actions().size());
  view->addSeparator();
  view->addAction(m_resetLayoutAction);

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->setObjectName(u"helpMenu"_s);
  QAction* about = help->addAction(tr("&About Fathom Studio"), this, &MainWindow::showAbout);
  about->setObjectName(u"aboutAction"_s);
  help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
}

void MainWindow::createDocks() {
  auto dock = [this](const QString& title, const QString& name, QWidget* widget, Qt::DockWidgetArea area) {
    auto* d = new QDockWidget(title, this);
    d->setObjectName(name);
    d->setWidget(widget);
    addDockWidget(area, d);
    m_docks << d;
    return d;
  };
  m_runsBrowser = new views::RunsBrowser(m_runsModel, this);
  QDockWidget* runs = dock(tr("Runs"), u"runsDock"_s, m_runsBrowser, Qt::BottomDockWidgetArea);

  auto* plansProxy = new QSortFilterProxyModel(this);
  plansProxy->setSourceModel(m_plansModel);
  plansProxy->setSortRole(views::SavedPlansModel::SortRole);
  m_plansView = new QTableView(this);
  m_plansView->setObjectName(u"plansView"_s);
  m_plansView->setModel(plansProxy);
  m_plansView->setSortingEnabled(true);
  m_plansView->sortByColumn(views::SavedPlansModel::IdColumn, Qt::DescendingOrder);
  m_plansView->verticalHeader()->hide();
  m_plansView->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_plansView->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_plansView->horizontalHeader()->setStretchLastSection(true);
  m_plansView->setToolTip(tr("Double-click a comparison to open it in the what-if planner"));
  QDockWidget* plans = dock(tr("Saved plans"), u"plansDock"_s, m_plansView, Qt::BottomDockWidgetArea);
  tabifyDockWidget(runs, plans);
  connect(m_plansView, &QTableView::activated, this, [this](const QModelIndex& index) {
    const QJsonObject request = index.data(views::SavedPlansModel::RequestRole).toJsonObject();
    if (request.isEmpty()) {
      statusBar()->showMessage(tr("This saved plan is not a what-if comparison."), 5000);
      return;
    }
    try {
      showPlanner()->setRequest(views::PlanRequest::fromJson(request));
    } catch (const Error& e) {
      showError(tr("Saved Plan"), tr("This comparison cannot be opened."), QString::fromUtf8(e.what()));
    }
  });

  m_properties = new QLabel(this);
  m_properties->setObjectName(u"properties"_s);
  m_properties->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  m_properties->setWordWrap(true);
  m_properties->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_properties->setMargin(6);
  auto* propertiesScroll = new QScrollArea(this);
  propertiesScroll->setWidget(m_properties);
  propertiesScroll->setWidgetResizable(true);
  QDockWidget* properties = dock(tr("Properties"), u"propertiesDock"_s, propertiesScroll, Qt::RightDockWidgetArea);
  updateProperties(0);

  m_plannerPanel = new views::PlannerPanel(this);
  m_plannerPanel->clear(tr("Open the what-if planner (Ctrl+Shift+P) or a saved comparison: the plan it highlights "
                           "is summarised here."));
  auto* plannerScroll = new QScrollArea(this);
  plannerScroll->setWidget(m_plannerPanel);
  plannerScroll->setWidgetResizable(true);
  plannerScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  QDockWidget* planner = dock(tr("Planner"), u"plannerDock"_s, plannerScroll, Qt::RightDockWidgetArea);

  m_log = new QPlainTextEdit(this);
  m_log->setObjectName(u"log"_s);
  m_log->setReadOnly(true);
  m_log->setMaximumBlockCount(20'000);
  m_log->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  QDockWidget* log = dock(tr("Log"), u"logDock"_s, m_log, Qt::BottomDockWidgetArea);
  // Runs, saved plans and the log share the bottom (the runs table needs the width for its columns); the
  // selected run's properties and the planner sit on the right.
  tabifyDockWidget(plans, log);
  runs->raise();
  const int runsHeight = 200;  // six runs in view; the documents keep the rest
  resizeDocks({runs}, {runsHeight}, Qt::Vertical);
  resizeDocks({properties, planner}, {360, 360}, Qt::Horizontal);
  // The properties of a run get the height they need: a table row per runs column and the host, three lines for a
  // launch command (it wraps in a dock this wide), each row a line plus the cell spacing and padding, and the dock's
  // title and frame. The planner takes the rest of the column above the runs. (The sizes are for this window's
  // height; when the window gets another, the docks share the difference in proportion.)
  const int propertyLines = views::RunsModel::ColumnCount + 1 + 3;
  const int propertiesHeight =
      propertyLines * (m_properties->fontMetrics().lineSpacing() + kPropertiesCellSpacing + 2) +
      2 * m_properties->margin() + 2 * fontMetrics().height();
  const int column = height() - menuBar()->sizeHint().height() - statusBar()->sizeHint().height() - runsHeight;
  resizeDocks({properties, planner}, {propertiesHeight, std::max(propertiesHeight, column - propertiesHeight)},
              Qt::Vertical);

  // View menu: one toggle per dock, between the separators createMenus() left.
  QMenu* view = menuBar()->findChild<QMenu*>(u"viewMenu"_s);
  QAction* before = view->actions().at(view->property("docksAt").toInt());
  for (QDockWidget* d : m_docks) {
    view->insertAction(before, d->toggleViewAction());
  }
}

void MainWindow::connectControllers() {
  connect(m_environment, &EnvironmentController::reportReady, this, [this](const runtime::EnvironmentReport& report) {
    m_environmentModel->setReport(report);
    m_home->environmentView()->resizeColumnToContents(views::EnvironmentModel::PropertyColumn);
    m_home->environmentView()->resizeRowsToContents();
    m_deviceLabel->setText(EnvironmentController::summary(report));
    if (m_wizard) {
      m_wizard->setEnvironment(report);
    }
  });

  connect(m_workspace, &WorkspaceController::opened, this, [this](const QString& path) {
    m_reopenRuns = settings::openRuns(path);
    settings::addRecentWorkspace(path);
    settings::setLastWorkspace(path);
    m_home->setRecentWorkspaces(settings::recentWorkspaces());
    m_workspaceLabel->setText(QDir::toNativeSeparators(QFileInfo(path).fileName()));
    m_workspaceLabel->setToolTip(path);
    setWindowTitle(tr("%1 – Fathom Studio").arg(QDir::toNativeSeparators(path)));
    m_runsBrowser->setEmptyText(tr("No runs yet. Configure one (Ctrl+Shift+N) and launch it."));
    setIdle(tr("Opened %1").arg(QDir::toNativeSeparators(path)));
  });
  connect(m_workspace, &WorkspaceController::openFailed, this, [this](const QString& path, const QString& message) {
    setIdle(QString());
    showError(tr("Open Workspace"), tr("%1 could not be opened.").arg(QDir::toNativeSeparators(path)), message);
  });
  connect(m_workspace, &WorkspaceController::closed, this, [this] {
    m_runsModel->setRuns({});
    m_plansModel->setPlans({});
    m_runsBrowser->setEmptyText(tr("No workspace open."));
    m_workspaceLabel->setText(tr("No workspace"));
    setWindowTitle(tr("Fathom Studio"));
    m_home->setWorkspace(QString(), 0);
    updateProperties(0);
  });
  connect(m_workspace, &WorkspaceController::runsLoaded, this,
          [this](const QList<views::RunRow>& runs, const QList<views::SavedPlanRow>& plans) {
            m_runsModel->setRuns(runs);
            m_plansModel->setPlans(plans);
            m_runsBrowser->view()->resizeColumnsToContents();
            m_plansView->resizeColumnsToContents();
            m_home->setWorkspace(m_workspace->path(), static_cast<int>(runs.size()));
            updateProperties(m_runsBrowser->currentRun());
            for (auto it = m_runPages.begin(); it != m_runPages.end(); ++it) {
              const int row = m_runsModel->rowOfRun(it.key());
              if (it.value() && row >= 0) {
                it.value()->setRow(m_runsModel->runs().at(row));  // the header; the feed fills the rest
              }
            }
            // Pages open when the Studio closed last: reopened, and followed again when live.
            for (const qint64 id : std::exchange(m_reopenRuns, {})) {
              if (m_runsModel->rowOfRun(id) >= 0) {
                openRun(id);
              }
            }
          });
  connect(m_workspace, &WorkspaceController::runLoaded, this, [this](const views::RunDetails& details) {
    const qint64 id = details.row.info.id.value;
    QPointer<views::RunDetailsPage> page = m_runPages.value(id);
    if (!page) {
      page = createRunPage(id);
    }
    page->setDetails(details);
  });
  connect(m_workspace, &WorkspaceController::comparisonLoaded, this, [this](const views::RunComparisonData& data) {
    auto* page = new views::RunComparisonPage(m_tabs);
    page->setData(data);
    QStringList ids;
    for (const qint64 id : page->runIds()) {
      ids << QString::number(id);
    }
    m_tabs->addTab(page, tr("Compare %1").arg(ids.join(u", "_s)));
    m_tabs->setCurrentWidget(page);
    m_comparison = page;
  });
  connect(m_workspace, &WorkspaceController::planSaved, this,
          [this](qint64 id) { statusBar()->showMessage(tr("Comparison saved as plan %1.").arg(id), 5000); });
  connect(m_workspace, &WorkspaceController::failed, this, [this](const QString& what, const QString& message) {
    appendLog(tr("%1 failed: %2").arg(what, message));
    qCWarning(lcStudio).noquote() << what << "failed:" << message;
    statusBar()->showMessage(tr("%1 failed (see the log).").arg(what), 8000);
  });

  connect(m_runsBrowser, &views::RunsBrowser::runActivated, this, &MainWindow::openRun);
  connect(m_runsBrowser, &views::RunsBrowser::compareRequested, this, &MainWindow::compareRuns);
  connect(m_runsBrowser, &views::RunsBrowser::currentRunChanged, this, &MainWindow::updateProperties);

  connect(m_launch, &LaunchController::started, this, [this](const QString& commandLine) {
    m_stopAction->setEnabled(true);
    if (auto* log = findChild<QDockWidget*>(u"logDock"_s)) {
      log->show();
      log->raise();  // the launch's output is what the user wants to see now
    }
    appendLog(u"$ "_s + commandLine);
    setBusy(tr("Launching…"));
  });
  connect(m_launch, &LaunchController::output, this, &MainWindow::appendLog);
  connect(m_launch, &LaunchController::runRecorded, this, [this](qint64 id, const QString&) {
    setBusy(tr("Run %1 is running…").arg(id));
    m_workspace->refresh(false);
  });
  connect(m_launch, &LaunchController::finished, this, [this](int exitCode, qint64 runId) {
    m_stopAction->setEnabled(false);
    setIdle(exitCode == 0 ? tr("Run %1 finished.").arg(runId)
                          : tr("The launch ended with exit code %1 (see the log).").arg(exitCode));
    m_workspace->refresh(false);
    if (runId > 0) {
      m_runsBrowser->selectRun(runId);
      if (m_runPages.contains(runId)) {
        m_workspace->loadRun(runId);
      }
    }
  });

  connect(m_demo, &DemoBuilder::output, this, &MainWindow::appendLog);
}

void MainWindow::updateRecentMenu() {
  m_recentMenu->clear();
  const QStringList recent = settings::recentWorkspaces();
  for (const QString& path : recent) {
    QAction* a = m_recentMenu->addAction(QDir::toNativeSeparators(path));
    connect(a, &QAction::triggered, this, [this, path] { openWorkspace(path); });
  }
  if (recent.isEmpty()) {
    m_recentMenu->addAction(tr("No recent workspaces"))->setEnabled(false);
    return;
  }
  m_recentMenu->addSeparator();
  m_recentMenu->addAction(tr("Clear List"), this, [this] {
    settings::clearRecentWorkspaces();
    m_home->setRecentWorkspaces({});
  });
}

void MainWindow::updateProperties(qint64 runId) {
  const int row = m_runsModel->rowOfRun(runId);
  if (row < 0) {
    m_properties->setText(tr("Select a run to see its properties."));
    m_properties->setEnabled(false);
    return;
  }
  m_properties->setEnabled(true);
  const views::RunRow& r = m_runsModel->runs().at(row);
  QStringList rows;
  for (int column = 0; column < views::RunsModel::ColumnCount; ++column) {
    rows << u"<tr><td><b>%1</b></td><td>%2</td></tr>"_s.arg(
        m_runsModel->headerData(column, Qt::Horizontal).toString().toHtmlEscaped(),
        m_runsModel->index(row, column).data().toString().toHtmlEscaped());
  }
  rows << u"<tr><td><b>%1</b></td><td>%2</td></tr>"_s.arg(tr("Host"),
                                                          QString::fromStdString(r.info.host).toHtmlEscaped());
  rows << u"<tr><td><b>%1</b></td><td><code>%2</code></td></tr>"_s.arg(
      tr("Command"), QString::fromStdString(r.info.commandLine).toHtmlEscaped());
  m_properties->setText(
      u"<table cellspacing=\"%1\">%2</table>"_s.arg(kPropertiesCellSpacing).arg(rows.join(QString())));
}

void MainWindow::chooseWorkspace(bool create) {
  const QString path =
      create ? QFileDialog::getSaveFileName(this, tr("New Workspace"), u"fathom.sqlite"_s,
                                            tr("Fathom workspace (*.sqlite)"))
             : QFileDialog::getOpenFileName(this, tr("Open Workspace"), QString(), tr("Fathom workspace (*.sqlite)"));
  if (!path.isEmpty()) {
    openWorkspace(path, create);
  }
}

void MainWindow::openWorkspace(const QString& path, bool create) {
  saveOpenRuns();
  for (const QPointer<views::RunDetailsPage>& page : std::as_const(m_runPages)) {
    if (page) {
      m_tabs->removeTab(m_tabs->indexOf(page));
      page->deleteLater();
    }
  }
  m_runPages.clear();
  m_runFeeds.clear();
  m_runsModel->setRuns({});
  m_plansModel->setPlans({});
  setBusy(tr("Opening %1…").arg(QDir::toNativeSeparators(path)));
  m_workspace->open(QFileInfo(path).absoluteFilePath(), create);
}

void MainWindow::closeWorkspace() {
  saveOpenRuns();
  m_workspace->close();
  settings::setLastWorkspace(QString());
}

void MainWindow::openDemo(const QString& directory) {
  const QString dir = directory.isEmpty() ? DemoBuilder::defaultDirectory() : directory;
  const QString workspace = DemoBuilder::workspacePath(dir);
  if (DemoBuilder::isComplete(workspace)) {
    openWorkspace(workspace);
    return;
  }
  if (m_demo->isRunning() || m_launch->isRunning()) {
    statusBar()->showMessage(tr("A launch is running; the demo can be built when it ends."), 5000);
    return;
  }
  auto* dialog = new QProgressDialog(tr("Building the demo workspace…"), tr("Cancel"), 0, 100, this);
  dialog->setObjectName(u"demoProgress"_s);
  dialog->setWindowTitle(tr("Demo Workspace"));
  dialog->setWindowModality(Qt::WindowModal);
  dialog->setMinimumDuration(0);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->setMinimumWidth(480);
  connect(dialog, &QProgressDialog::canceled, m_demo, &DemoBuilder::cancel);
  auto progress = connect(m_demo, &DemoBuilder::progress, dialog, [dialog](const QString& stage, int percent) {
    dialog->setLabelText(stage);
    dialog->setValue(percent);
  });
  auto done = std::make_shared<QList<QMetaObject::Connection>>();
  auto finish = [this, dialog, done, progress] {
    disconnect(progress);
    for (const auto& c : *done) {
      disconnect(c);
    }
    dialog->close();
    setIdle(QString());
  };
  *done << connect(m_demo, &DemoBuilder::finished, this, [this, finish](const QString& path) {
    finish();
    openWorkspace(path);
  });
  *done << connect(m_demo, &DemoBuilder::failed, this, [this, finish](const QString& message, const QString& detail) {
    finish();
    showError(tr("Demo Workspace"), message, detail);
  });
  setBusy(tr("Building the demo workspace…"));
  dialog->show();
  m_demo->start(dir);
}

views::ConfigWizard* MainWindow::newConfiguration() {
  if (m_wizard) {
    m_wizard->raise();
    m_wizard->activateWindow();
    return m_wizard;
  }
  auto* wizard = new views::ConfigWizard(this);
  wizard->setAttribute(Qt::WA_DeleteOnClose);
  const QString dir = m_workspace->isOpen() ? QFileInfo(m_workspace->path()).absolutePath() : QDir::currentPath();
  wizard->setSavePath(QDir(dir).filePath(u"fathom_config.yaml"_s));
  if (m_environment->hasReport()) {
    wizard->setEnvironment(m_environment->report());
  }
  connect(wizard, &views::ConfigWizard::planRequested, m_planner, &PlannerController::evaluate);
  connect(m_planner, &PlannerController::snapshotReady, wizard, &views::ConfigWizard::setSnapshot);
  connect(wizard, &views::ConfigWizard::launchRequested, this, &MainWindow::launch);
  connect(wizard, &QWizard::accepted, this, [this, wizard] {
    statusBar()->showMessage(tr("Saved %1").arg(QDir::toNativeSeparators(wizard->savePath())), 5000);
  });
  m_wizard = wizard;
  wizard->show();
  return wizard;
}

views::ConfigWizard* MainWindow::openConfiguration(const QString& path) {
  if (m_wizard) {
    m_wizard->close();
  }
  views::ConfigWizard* wizard = newConfiguration();
  QString error;
  if (!wizard->openFile(path, &error)) {
    wizard->close();
    showError(tr("Open Configuration"), tr("%1 could not be read.").arg(QDir::toNativeSeparators(path)), error);
    return nullptr;
  }
  return wizard;
}

views::WhatIfView* MainWindow::showPlanner() {
  if (!m_whatIf) {
    m_whatIf = new views::WhatIfView(m_tabs);
    m_tabs->addTab(m_whatIf, tr("What-if Planner"));
    connect(m_whatIf, &views::WhatIfView::requestChanged, this, [this](const views::PlanRequest& request) {
      m_plannerPanel->setBusy(true);
      m_planner->compare(request);
    });
    connect(m_planner, &PlannerController::comparisonReady, m_whatIf, [this](const views::PlanComparison& c) {
      m_whatIf->setComparison(c);
      if (const views::PlanEvaluation* current = c.current()) {
        m_plannerPanel->setSnapshot({c.request, c.model, c.hardware, *current, QString()});
      }
    });
    connect(m_planner, &PlannerController::comparisonFailed, m_whatIf,
            [this](const views::PlanRequest& request, const QString& message) {
              m_whatIf->setError(message);
              views::PlanSnapshot failed;
              failed.request = request;
              failed.error = message;
              m_plannerPanel->setSnapshot(failed);
            });
    connect(m_whatIf, &views::WhatIfView::saveRequested, this, [this](const views::PlanComparison& c) {
      if (!m_workspace->isOpen()) {
        showError(tr("Save Comparison"), tr("Open or create a workspace first."), QString());
        return;
      }
      m_workspace->savePlan(views::comparisonInputJson(c.request), views::comparisonPredictionJson(c));
    });
    m_whatIf->setRequest(m_whatIf->request());
  }
  m_tabs->setCurrentWidget(m_whatIf);
  return m_whatIf;
}

views::ConfigWizard* MainWindow::wizard() const {
  return m_wizard;
}

views::WhatIfView* MainWindow::whatIfView() const {
  return m_whatIf;
}

views::RunDetailsPage* MainWindow::runPage(qint64 id) const {
  return m_runPages.value(id);
}

RunFeed* MainWindow::runFeed(qint64 id) const {
  return m_runFeeds.value(id);
}

views::RunComparisonPage* MainWindow::comparisonPage() const {
  return m_comparison;
}

void MainWindow::showSettings() {
  auto* dialog = new SettingsDialog(this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  connect(dialog, &SettingsDialog::restartRequested, this, [this] {
    if (close()) {
      QProcess::startDetached(QApplication::applicationFilePath(), QApplication::arguments().mid(1));
    }
  });
  dialog->open();
}

void MainWindow::appendLog(const QString& line) {
  m_log->appendPlainText(line);
}

void MainWindow::setBusy(const QString& message) {
  m_busy->setVisible(true);
  statusBar()->showMessage(message);
}

void MainWindow::setIdle(const QString& message) {
  if (m_launch->isRunning() || m_demo->isRunning()) {
    return;
  }
  m_busy->setVisible(false);
  statusBar()->showMessage(message.isEmpty() ? tr("Ready") : message, message.isEmpty() ? 0 : 8000);
}

void MainWindow::showError(const QString& title, const QString& text, const QString& detail) {
  auto* box = new QMessageBox(QMessageBox::Critical, title, text, QMessageBox::Ok, this);
  box->setObjectName(u"errorDialog"_s);
  box->setAttribute(Qt::WA_DeleteOnClose);
  if (!detail.isEmpty()) {
    box->setDetailedText(detail);
  }
  qCWarning(lcStudio).noquote() << title << ":" << text << detail;
  box->open();
}

void MainWindow::showAbout() {
  auto* dialog = new AboutDialog(this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->open();
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (m_launch->isRunning()) {
    const auto answer = QMessageBox::question(this, tr("Quit"),
                                              tr("A launch is running. Stop it and quit? The launcher ends its "
                                                 "workers and records the run as failed."));
    if (answer != QMessageBox::Yes) {
      event->ignore();
      return;
    }
    m_launch->stop();
  }
  m_demo->cancel();
  saveOpenRuns();
  settings::setWindowLayout(saveGeometry(), saveState());
  QMainWindow::closeEvent(event);
}

}  // namespace fathom::studio
