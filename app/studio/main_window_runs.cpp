// SPDX-License-Identifier: Apache-2.0
// MainWindow's runs: a page per opened run with the feeds that keep it live (metrics, traces), its plan computed off
// the GUI thread, comparisons, launching and resuming, and a run's recorded device map in the planner's view.
// The rest of the window is in main_window.cpp, the trace tabs in main_window_traces.cpp.
#include "main_window.h"

#include "launch_controller.h"
#include "resume_launch.h"
#include "run_feed.h"
#include "run_trace_feed.h"
#include "studio_settings.h"
#include "workspace_controller.h"

#include "bigmodel/device_map_view.h"
#include "planner/what_if_view.h"
#include "runs/run_comparison_page.h"
#include "runs/run_details_page.h"
#include "timeline/run_timeline_page.h"
#include "wizard/wizard_run.h"

#include <fathom/calibrate/run_fit_report.h>
#include <fathom/common/error.h>

#include <nlohmann/json.hpp>

#include <QDir>
#include <QFileInfo>
#include <QLoggingCategory>
#include <QProcess>
#include <QStatusBar>
#include <QTabWidget>

using namespace Qt::StringLiterals;

Q_DECLARE_LOGGING_CATEGORY(lcStudio)

namespace fathom::studio {

views::RunDetailsPage* MainWindow::createRunPage(qint64 id) {
  auto* page = new views::RunDetailsPage(m_tabs);
  m_runPages.insert(id, page);
  m_tabs->addTab(page, tr("Run %1").arg(id));
  m_tabs->setCurrentWidget(page);
  // The page's models and plot follow the run through the workspace, whoever launched it; the feed goes with the
  // page when its tab closes.
  auto* feed = new RunFeed(m_workspace->path(), id, page);
  m_runFeeds.insert(id, feed);
  connect(feed, &RunFeed::delta, page, &views::RunDetailsPage::applyDelta);
  connect(feed, &RunFeed::ended, this, [this, id] { m_workspace->loadRun(id); });  // the final header
  connect(feed, &RunFeed::failed, this,
          [this, id](const QString& message) { appendLog(tr("Following run %1 failed: %2").arg(id).arg(message)); });
  connect(feed, &RunFeed::planRead, page, &views::RunDetailsPage::applyPlan);
  connect(page, &views::RunDetailsPage::computePlanRequested, this,
          [this, feed](qint64 run) { computeRunPlan(run, feed); });
  connect(page, &views::RunDetailsPage::calibrateFromRunRequested, this, &MainWindow::calibrateFromRun);
  connect(page, &views::RunDetailsPage::resumeRequested, this, &MainWindow::resumeRun);
  connect(page, &views::RunDetailsPage::deviceMapRequested, this, &MainWindow::openRecordedDeviceMap);
  feed->start();
  // The Timeline tab follows the run's stored traces; a timeline is built only for the entry the tab chose, which it
  // does once it is first shown.
  auto* traces = new RunTraceFeed(m_workspace->path(), id, page);
  m_runTraceFeeds.insert(id, traces);
  views::RunTimelinePage* timeline = page->timelinePage();
  connect(traces, &RunTraceFeed::entriesChanged, timeline, &views::RunTimelinePage::setEntries);
  connect(traces, &RunTraceFeed::timelineReady, timeline, &views::RunTimelinePage::showTimeline);
  connect(traces, &RunTraceFeed::timelineFailed, timeline, &views::RunTimelinePage::showError);
  connect(traces, &RunTraceFeed::liveChanged, timeline, &views::RunTimelinePage::setLive);
  connect(timeline, &views::RunTimelinePage::entryChosen, traces, &RunTraceFeed::choose);
  traces->start();
  return page;
}

RunTraceFeed* MainWindow::runTraceFeed(qint64 id) const {
  return m_runTraceFeeds.value(id);
}

views::RunDetailsPage* MainWindow::openRunTimeline(qint64 id) {
  if (id <= 0 || !m_workspace->isOpen()) {
    return nullptr;
  }
  QPointer<views::RunDetailsPage> page = m_runPages.value(id);
  if (!page) {
    page = createRunPage(id);  // filled when the run's details arrive (runLoaded)
  }
  m_workspace->loadRun(id);
  m_tabs->setCurrentWidget(page);
  page->showTimelineTab();
  return page;
}

void MainWindow::computeRunPlan(qint64 run, RunFeed* feed) {
  // The CLI makes the plan (it parses the run's `fathom train` command as fathom train does) and stores it; the
  // feed then reads it back through the workspace like any other row.
  auto* process = new QProcess(this);
  process->setProgram(LaunchController::fathomExecutable());
  process->setArguments({u"runs"_s, u"plan-vs-actual"_s, QString::number(run), u"--compute"_s, u"--json"_s,
                         u"--workspace"_s, m_workspace->path()});
  QPointer<RunFeed> target(feed);
  connect(process, &QProcess::finished, this, [this, process, target, run](int exitCode, QProcess::ExitStatus status) {
    process->deleteLater();
    if (status != QProcess::NormalExit || exitCode != 0) {
      const QString error = QString::fromUtf8(process->readAllStandardError()).trimmed();
      appendLog(tr("Computing the plan of run %1 failed: %2").arg(run).arg(error));
      if (QPointer<views::RunDetailsPage> page = m_runPages.value(run)) {
        views::RunPlanComparison failed;
        failed.error = error;
        page->applyPlan(failed);
      }
      return;
    }
    if (target) {
      target->refreshPlan();
    }
  });
  connect(process, &QProcess::errorOccurred, this, [this, process, run](QProcess::ProcessError error) {
    if (error == QProcess::FailedToStart) {
      const QString message = process->errorString();
      appendLog(tr("Computing the plan of run %1 failed: %2").arg(run).arg(message));
      if (QPointer<views::RunDetailsPage> page = m_runPages.value(run)) {
        views::RunPlanComparison failed;
        failed.error = message;
        page->applyPlan(failed);
      }
      process->deleteLater();
    }
  });
  process->start();
}

void MainWindow::calibrateFromRun(qint64 run) {
  // The CLI fits and stores (it reads the run's traces and plans the run as `fathom plan` does); its JSON report
  // comes back to the page.
  auto* process = new QProcess(this);
  process->setProgram(LaunchController::fathomExecutable());
  process->setArguments(
      {u"plan"_s, u"--calibrate_from"_s, QString::number(run), u"--workspace"_s, m_workspace->path(), u"--json"_s});
  auto deliver = [this, run](const views::RunFitOutcome& outcome) {
    if (!outcome.report) {
      appendLog(tr("Calibrating from run %1 failed: %2").arg(run).arg(outcome.error));
    }
    if (QPointer<views::RunDetailsPage> page = m_runPages.value(run)) {
      page->applyRunFit(outcome);
    }
  };
  connect(process, &QProcess::finished, this, [process, deliver](int exitCode, QProcess::ExitStatus status) {
    process->deleteLater();
    views::RunFitOutcome outcome;
    if (status != QProcess::NormalExit || exitCode != 0) {
      outcome.error = QString::fromUtf8(process->readAllStandardError()).trimmed();
    } else {
      try {
        const QByteArray out = process->readAllStandardOutput();
        outcome.report = calibrate::runFitReportFromJson(
            nlohmann::json::parse(out.constData(), out.constData() + out.size()), "fathom plan --calibrate_from");
      } catch (const std::exception& e) {
        outcome.error = QString::fromUtf8(e.what());
      }
    }
    deliver(outcome);
  });
  connect(process, &QProcess::errorOccurred, this, [process, deliver](QProcess::ProcessError error) {
    if (error == QProcess::FailedToStart) {
      deliver({std::nullopt, process->errorString()});
      process->deleteLater();
    }
  });
  process->start();
}

void MainWindow::saveOpenRuns() {
  if (!m_workspace->isOpen()) {
    return;
  }
  QList<qint64> open;
  for (auto it = m_runPages.cbegin(); it != m_runPages.cend(); ++it) {
    if (it.value()) {
      open << it.key();
    }
  }
  settings::setOpenRuns(m_workspace->path(), open);
}

void MainWindow::compareRuns(const QList<qint64>& ids) {
  if (ids.size() < 2) {
    statusBar()->showMessage(tr("Select two or more runs to compare."), 5000);
    return;
  }
  m_workspace->loadComparison(ids);
}

void MainWindow::openRun(qint64 id) {
  if (id <= 0) {
    return;
  }
  if (QPointer<views::RunDetailsPage> page = m_runPages.value(id)) {
    m_tabs->setCurrentWidget(page);
  }
  m_workspace->loadRun(id);
}

void MainWindow::launch(const QString& configPath, const views::WizardRun& run) {
  QString workspace = m_workspace->path();
  if (workspace.isEmpty()) {
    workspace = run.spec.fathom.workspace ? QString::fromStdString(*run.spec.fathom.workspace)
                                          : QFileInfo(configPath).absoluteDir().filePath(u"fathom.sqlite"_s);
    openWorkspace(workspace, true);
  }
  QString error;
  if (!m_launch->start(configPath, run.command(), workspace, &error)) {
    showError(tr("Launch"), tr("The run could not be started."), error);
  }
}

void MainWindow::resumeRun(qint64 run, const QString& runSpec, const QString& checkpoint) {
  const QString workspace = m_workspace->path();
  try {
    // The configuration goes next to the workspace: the resumed run records it again, and it stays for a rerun.
    const ResumeLaunch resume = prepareResume(run, runSpec, checkpoint, QFileInfo(workspace).absolutePath());
    QString error;
    if (!m_launch->start(resume.configPath, resume.command, workspace, &error)) {
      showError(tr("Resume"), tr("The run could not be started."), error);
    }
  } catch (const fathom::Error& e) {
    showError(tr("Resume"), tr("Run %1 cannot be resumed from %2.").arg(run).arg(checkpoint),
              QString::fromUtf8(e.what()));
  }
}

views::DeviceMapView* MainWindow::openRecordedDeviceMap(qint64 runId, const QString& recordJson, const QString& title) {
  views::WhatIfView* planner = showPlanner();
  planner->showDeviceMap();
  views::DeviceMapView* view = planner->deviceMapView();
  if (!view->openRecordJson(recordJson, title)) {
    appendLog(tr("The device map of run %1 could not be shown: %2").arg(runId).arg(view->message()));
  }
  return view;
}

}  // namespace fathom::studio
