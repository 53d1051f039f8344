// SPDX-License-Identifier: Apache-2.0
#include "demo_builder.h"

#include "launch_controller.h"

#include "planner/model_source_editor.h"
#include "planner/plan_comparison.h"
#include "wizard/wizard_run.h"

#include <fathom/common/error.h>
#include <fathom/config/config_writer.h>
#include <fathom/store/workspace.h>

#include <QDir>
#include <QFile>
#include <QFutureWatcher>
#include <QStandardPaths>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace fathom::studio {
namespace {

/// The demo run: gpt-tiny, DDP over 2 CPU processes, kSteps steps; the sqlite tracker feeds the workspace.
views::WizardRun demoRun() {
  views::WizardRun run;
  config::RunSpec& s = run.spec;
  s.useCpu = true;
  run.setParadigm(views::WizardRun::Paradigm::Ddp);
  s.numProcesses = 2;
  s.fathom.planner.hardware = "cpu-host";
  s.fathom.planner.microBatch = 8;
  s.fathom.trackers = {config::Tracker::Sqlite};
  run.builtin.name = "gpt-tiny";
  run.steps = DemoBuilder::kSteps;
  run.logEvery = 5;
  return run;
}

/// The saved comparison: does Llama 2 7B train on 8 H100s, and how?
views::PlanRequest demoComparison() {
  views::PlanRequest r;
  r.model = views::ModelSourceEditor::dimensionPresets().front();
  r.hardware.preset = u"h100-sxm-80gb"_s;
  r.plan.numGpus = 8;
  r.plan.microBatch = 1;
  r.plan.seqLen = 4096;
  r.plan.strategy = plan::Strategy::Fsdp;
  return r;
}

}  // namespace

DemoBuilder::DemoBuilder(QObject* parent) : QObject(parent), m_launch(new LaunchController(this)) {
  connect(m_launch, &LaunchController::output, this, [this](const QString& line) {
    m_log += line + u'\n';
    emit output(line);
  });
  // Progress comes from the workspace (rank 0's loss points, one per --log_every steps), never from the trainer's
  // lines for people.
  m_progressTimer.setInterval(500);
  connect(&m_progressTimer, &QTimer::timeout, this, &DemoBuilder::pollProgress);
  connect(m_launch, &LaunchController::runRecorded, this, [this](qint64 run, const QString&) {
    m_run = run;
    m_lastStep = 0;
    emit progress(tr("Training gpt-tiny on 2 processes: step %1 of %2").arg(0).arg(kSteps), 10);
    m_progressTimer.start();
  });
  connect(m_launch, &LaunchController::finished, this, [this](int exitCode, qint64) {
    m_progressTimer.stop();
    if (!m_running) {
      return;
    }
    if (exitCode != 0) {
      fail(tr("The demo run failed (fathom launch exited with %1).").arg(exitCode), m_log);
      return;
    }
    savePlan();
  });
}

DemoBuilder::~DemoBuilder() = default;

QString DemoBuilder::defaultDirectory() {
  return QDir(QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation)).filePath(u"demo"_s);
}

QString DemoBuilder::workspacePath(const QString& directory) {
  return QDir(directory).filePath(u"fathom.sqlite"_s);
}

bool DemoBuilder::isComplete(const QString& path) {
  if (!QFile::exists(path)) {
    return false;
  }
  try {
    const store::Workspace ws(path.toStdString(), store::Workspace::readerOptions(path.toStdString()));
    const auto runs = ws.listRuns();
    const bool succeeded = std::any_of(runs.begin(), runs.end(),
                                       [](const store::RunInfo& r) { return r.status == store::RunStatus::Succeeded; });
    return succeeded && !ws.plans().empty();
  } catch (const Error&) {
    return false;
  }
}

void DemoBuilder::start(const QString& directory) {
  m_directory = QDir(directory).absolutePath();
  m_log.clear();
  m_run = 0;
  m_running = true;
  emit progress(tr("Preparing %1").arg(QDir::toNativeSeparators(m_directory)), 2);
  if (!QDir().mkpath(m_directory)) {
    fail(tr("Cannot create the folder %1.").arg(QDir::toNativeSeparators(m_directory)), QString());
    return;
  }
  const QString workspace = workspacePath(m_directory);
  for (const QString& suffix : {QString(), u"-wal"_s, u"-shm"_s}) {
    QFile::remove(workspace + suffix);  // an incomplete demo is rebuilt from scratch
  }
  const QString config = QDir(m_directory).filePath(u"demo.yaml"_s);
  const views::WizardRun run = demoRun();
  try {
    config::saveConfigFile(run.toConfig(), config.toStdString());
  } catch (const Error& e) {
    fail(tr("Cannot write the demo configuration."), QString::fromUtf8(e.what()));
    return;
  }
  emit progress(tr("Launching gpt-tiny on 2 processes"), 8);
  QString error;
  if (!m_launch->start(config, run.command(), workspace, &error)) {
    fail(tr("Cannot launch the demo run."), error);
  }
}

void DemoBuilder::cancel() {
  m_progressTimer.stop();
  if (m_running) {
    m_running = false;
    m_launch->stop();
  }
}

void DemoBuilder::savePlan() {
  emit progress(tr("Comparing strategies for Llama 2 7B on 8 × H100"), 92);
  const QString workspace = workspacePath(m_directory);
  auto* watcher = new QFutureWatcher<QString>(this);
  connect(watcher, &QFutureWatcher<QString>::finished, this, [this, watcher, workspace] {
    watcher->deleteLater();
    const QString error = watcher->result();
    if (!m_running) {
      return;
    }
    if (!error.isEmpty()) {
      fail(tr("Cannot save the demo comparison."), error);
      return;
    }
    m_running = false;
    emit progress(tr("Done"), 100);
    emit finished(workspace);
  });
  watcher->setFuture(QtConcurrent::run([workspace]() -> QString {
    try {
      const views::PlanRequest request = demoComparison();
      const views::PlanComparison comparison =
          views::compare(request, request.model.resolve(), request.hardware.resolve());
      store::Workspace ws(workspace.toStdString(), store::Workspace::Options{.create = false, .reconcile = false});
      ws.savePlan(views::comparisonInputJson(request), views::comparisonPredictionJson(comparison));
      return {};
    } catch (const Error& e) {
      return QString::fromUtf8(e.what());
    }
  }));
}

void DemoBuilder::pollProgress() {
  if (m_polling || m_run == 0) {
    return;
  }
  m_polling = true;
  const QString workspace = workspacePath(m_directory);
  auto* watcher = new QFutureWatcher<int>(this);
  connect(watcher, &QFutureWatcher<int>::finished, this, [this, watcher] {
    watcher->deleteLater();
    m_polling = false;
    const int step = watcher->result();
    if (m_running && m_progressTimer.isActive() && step > m_lastStep) {
      m_lastStep = step;
      emit progress(tr("Training gpt-tiny on 2 processes: step %1 of %2").arg(step).arg(kSteps),
                    10 + 80 * std::min(step, kSteps) / kSteps);
    }
  });
  watcher->setFuture(QtConcurrent::run([workspace, run = m_run]() -> int {
    try {
      const store::Workspace ws(workspace.toStdString(), store::Workspace::readerOptions(workspace.toStdString()));
      const auto loss = ws.metricSeries(store::RunId{run}, "loss", 0);
      return loss.empty() ? 0 : static_cast<int>(loss.back().point.step);
    } catch (const Error&) {
      return 0;  // not readable this moment (being created, locked): the next poll tries again
    }
  }));
}

void DemoBuilder::fail(const QString& message, const QString& detail) {
  m_running = false;
  emit failed(message, detail);
}

}  // namespace fathom::studio
