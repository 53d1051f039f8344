// SPDX-License-Identifier: Apache-2.0
#include "run_feed.h"

#include "runs/run_details.h"

#include <fathom/common/error.h>
#include <fathom/plan/hardware.h>
#include <fathom/plan/prediction_json.h>
#include <fathom/store/run_measurements.h>
#include <fathom/store/workspace.h>

#include <nlohmann/json.hpp>

#include <QDateTime>
#include <QtConcurrent/QtConcurrentRun>

#include <optional>

namespace fathom::studio {
namespace {

struct ReadOutcome {
  std::optional<views::RunDelta> delta;
  bool more = false;
  QString error;
};

}  // namespace

RunFeed::RunFeed(const QString& workspacePath, qint64 runId, QObject* parent)
    : QObject(parent), m_path(workspacePath), m_run(runId) {
  m_timer.setInterval(kPollMs);
  connect(&m_timer, &QTimer::timeout, this, &RunFeed::poll);
}

RunFeed::~RunFeed() {
  // A job the pool has not started yet runs inside waitForFinished() on this thread, and Qt then calls its
  // continuation directly: m_stopped makes the continuations return before they emit.
  m_stopped = true;
  m_worker.waitForFinished();
  m_planWorker.waitForFinished();
}

views::RunPlanComparison RunFeed::readPlan(const store::Workspace& ws, qint64 runId) {
  views::RunPlanComparison out;
  try {
    const std::optional<store::RunPlan> stored = ws.runPlan(store::RunId{runId});
    if (!stored) {
      return out;
    }
    out.stored = true;
    out.source = stored->source;
    const plan::PredictionReport report =
        plan::predictionReportFromJson(nlohmann::json::parse(stored->predictionJson), "run plan");
    out.comparison = plan::comparePlanToRun(runId, report.prediction, store::measuredRanks(ws, store::RunId{runId}));
  } catch (const nlohmann::json::exception& e) {
    out.error = QString::fromUtf8(e.what());
  } catch (const Error& e) {
    out.error = QString::fromUtf8(e.what());
  }
  return out;
}

std::optional<views::StoredRunFit> RunFeed::readFit(const store::Workspace& ws, qint64 runId) {
  const std::vector<store::HardwareFitRow> fits = ws.hardwareFits(store::RunId{runId});
  if (fits.empty()) {
    return std::nullopt;
  }
  const store::HardwareFitRow& newest = fits.back();  // in id order
  views::StoredRunFit out;
  out.id = newest.id.value;
  out.createdAt = newest.fit.createdAt;
  try {
    const plan::HardwareSpec profile =
        plan::parseHardware(newest.fit.profileYaml, fathom::detail::concat("hardware fit ", newest.id.value));
    if (profile.calibration && profile.calibration->runFit) {
      out.fit = *profile.calibration->runFit;
    } else {
      out.error = tr("the stored profile has no run_fit section");
    }
  } catch (const Error& e) {
    out.error = QString::fromUtf8(e.what());
  }
  return out;
}

void RunFeed::refreshPlan() {
  if (m_planWorker.isRunning()) {
    return;
  }
  auto worker = QtConcurrent::run([path = m_path, run = m_run] {
    try {
      const std::filesystem::path file(path.toStdString());
      const store::Workspace ws(file, store::Workspace::readerOptions(file));
      return readPlan(ws, run);
    } catch (const Error& e) {
      views::RunPlanComparison failed;
      failed.error = QString::fromUtf8(e.what());
      return failed;
    }
  });
  m_planWorker = QFuture<void>(worker);
  worker.then(this, [this](const views::RunPlanComparison& plan) {
    if (!m_stopped) {  // the destructor's wait may run the job and this continuation on this thread
      emit planRead(plan);
    }
  });
}

void RunFeed::start() {
  m_stopped = false;
  m_timer.start();
  poll();
}

void RunFeed::stop() {
  m_stopped = true;
  m_timer.stop();
}

views::RunDelta RunFeed::read(const QString& workspacePath, qint64 runId, const Cursors& after, bool first,
                              bool* more) {
  const std::filesystem::path file(workspacePath.toStdString());
  const store::Workspace ws(file, store::Workspace::readerOptions(file));
  views::RunDelta d;
  d.readAt = double(QDateTime::currentMSecsSinceEpoch()) / 1000.0;
  d.first = first;
  // The status first: a run read as finished has committed everything before the rows below are read.
  const auto info = ws.run(store::RunId{runId});
  FATHOM_CHECK(info.has_value(), ConfigError, "run ", runId, " is not in the workspace (deleted?)");
  d.info = *info;
  d.ranks = ws.ranks(info->id);
  d.heartbeats = ws.heartbeats(info->id);
  d.alerts = ws.alerts(info->id);
  d.metrics = ws.metricsSince(info->id, store::MetricId{after.metrics}, kBatchLimit);
  *more = d.metrics.size() >= kBatchLimit;
  d.events = first ? ws.lastEvents(info->id, views::RunDetails::kEventLimit)
                   : ws.eventsSince(info->id, store::EventId{after.events});
  d.deviceMaps = ws.deviceMaps(info->id, store::DeviceMapId{after.deviceMaps});
  if (first || (info->status != store::RunStatus::Running && !*more)) {
    d.plan = readPlan(ws, runId);
  }
  if (first) {
    d.fit = readFit(ws, runId);
  }
  return d;
}

void RunFeed::poll() {
  if (m_busy || m_stopped) {
    return;
  }
  m_busy = true;
  auto worker = QtConcurrent::run([path = m_path, run = m_run, cursors = m_cursors, first = m_first] {
    ReadOutcome out;
    try {
      out.delta = read(path, run, cursors, first, &out.more);
    } catch (const Error& e) {
      out.error = QString::fromUtf8(e.what());
    }
    return out;
  });
  m_worker = QFuture<void>(worker);
  worker.then(this, [this](const ReadOutcome& out) {
    m_busy = false;
    if (m_stopped) {
      return;
    }
    if (!out.delta) {
      stop();
      emit failed(out.error);
      return;
    }
    const views::RunDelta& d = *out.delta;
    m_first = false;
    if (!d.metrics.empty()) {
      m_cursors.metrics = d.metrics.back().id.value;
    }
    if (!d.events.empty()) {
      m_cursors.events = d.events.back().id.value;
    }
    if (!d.deviceMaps.empty()) {
      m_cursors.deviceMaps = d.deviceMaps.back().id.value;
    }
    const bool live = d.info.status == store::RunStatus::Running;
    emit delta(d);
    if (out.more) {
      poll();  // the rest of a long history (or a burst) before the next tick
    } else if (!live) {
      stop();
      emit ended();
    }
  });
}

}  // namespace fathom::studio
