// SPDX-License-Identifier: Apache-2.0
#include "workspace_controller.h"

#include <fathom/common/error.h>
#include <fathom/launch/slurm_client.h>
#include <fathom/store/run_comparison.h>
#include <fathom/store/workspace.h>

#include <QCoreApplication>
#include <QDateTime>
#include <QHash>
#include <QLoggingCategory>
#include <QMutex>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <chrono>
#include <string>

using namespace Qt::StringLiterals;

Q_LOGGING_CATEGORY(lcWorkspace, "fathom.studio.workspace", QtInfoMsg)

namespace fathom::studio {
namespace {

std::filesystem::path fsPath(const QString& path) {
  return std::filesystem::path(path.toStdString());
}

struct RunsSnapshot {
  QList<views::RunRow> runs;
  QList<views::SavedPlanRow> plans;
};

/// The state of SLURM job `jobId` as squeue (else sacct) reports it, asked from this machine (the Studio runs where
/// the job was submitted, or on a login node); empty when `jobId` is empty or SLURM cannot say. Blocks up to 5 s
/// per command: called off the GUI thread.
std::string slurmJobState(const std::string& jobId) {
  if (jobId.empty()) {
    return {};
  }
  try {
    const launch::SlurmClient client({.timeout = std::chrono::seconds(5)});
    std::optional<launch::SlurmJobState> state = client.queueState(jobId);
    if (!state) {
      state = client.accountingState(jobId);
    }
    return state ? state->state : std::string();
  } catch (const Error& e) {
    qCInfo(lcWorkspace) << "no state for SLURM job" << jobId.c_str() << ":" << e.what();
    return {};
  }
}

template <typename T> struct Outcome {
  std::optional<T> value;
  QString error;
};

}  // namespace

static double nowSeconds() {
  return double(QDateTime::currentMSecsSinceEpoch()) / 1000.0;
}

/// Metric summaries of finished runs never change: read them once per run (by id and end time). A live run's are
/// kept for kLiveSummaryMaxAgeS (aggregating a long run every second would cost more than everything else).
class WorkspaceController::SummaryCache {
public:
  std::optional<std::vector<store::MetricSummary>> find(qint64 run, std::optional<double> endedAt) {
    QMutexLocker lock(&m_mutex);
    const auto it = m_entries.constFind(run);
    if (it == m_entries.constEnd() || it->endedAt != endedAt) {
      return std::nullopt;
    }
    if (!endedAt && nowSeconds() - it->readAt > kLiveSummaryMaxAgeS) {
      return std::nullopt;
    }
    return it->summaries;
  }
  void insert(qint64 run, std::optional<double> endedAt, std::vector<store::MetricSummary> summaries) {
    QMutexLocker lock(&m_mutex);
    m_entries.insert(run, {endedAt, nowSeconds(), std::move(summaries)});
  }
  void clear() {
    QMutexLocker lock(&m_mutex);
    m_entries.clear();
  }

private:
  struct Entry {
    std::optional<double> endedAt;  ///< empty: the run was live when read
    double readAt = 0;
    std::vector<store::MetricSummary> summaries;
  };
  QMutex m_mutex;
  QHash<qint64, Entry> m_entries;
};

WorkspaceController::WorkspaceController(QObject* parent) : QObject(parent), m_cache(std::make_shared<SummaryCache>()) {
  m_live.setInterval(kLiveRefreshMs);
  connect(&m_live, &QTimer::timeout, this, [this] { refresh(false); });
}

WorkspaceController::~WorkspaceController() {
  // A job the pool has not started yet runs inside waitForFinished() on this thread, and Qt then calls its
  // continuation directly (same thread), emitting to a window that is being destroyed: a new generation makes every
  // continuation return first. (tst_main_window crashed in ~WorkspaceController so, once.)
  ++m_generation;
  for (QFuture<void>& worker : m_workers) {
    worker.waitForFinished();
  }
}

void WorkspaceController::track(const QFuture<void>& worker) {
  m_workers.removeIf([](const QFuture<void>& f) { return f.isFinished(); });
  m_workers.append(worker);
}

void WorkspaceController::open(const QString& path, bool create) {
  const quint64 generation = ++m_generation;
  m_cache->clear();
  auto worker = QtConcurrent::run([path, create] {
    Outcome<bool> out;
    try {
      store::Workspace ws(fsPath(path), store::Workspace::Options{.create = create, .reconcile = true});
      out.value = true;
    } catch (const Error& e) {
      out.error = QString::fromUtf8(e.what());
    }
    return out;
  });
  track(QFuture<void>(worker));
  worker.then(this, [this, generation, path](const Outcome<bool>& out) {
    if (generation != m_generation) {
      return;
    }
    if (!out.value) {
      qCWarning(lcWorkspace).noquote() << "cannot open" << path << ":" << out.error;
      emit openFailed(path, out.error);
      return;
    }
    m_path = path;
    qCInfo(lcWorkspace).noquote() << "opened" << path;
    emit opened(path);
    refresh(false);
  });
}

void WorkspaceController::close() {
  ++m_generation;
  m_path.clear();
  m_live.stop();
  m_refreshing = m_refreshAgain = false;
  emit closed();
}

void WorkspaceController::refresh(bool reconcile) {
  if (m_path.isEmpty()) {
    return;
  }
  if (m_refreshing) {
    m_refreshAgain = true;
    return;
  }
  m_refreshing = true;
  const quint64 generation = m_generation;
  const QString path = m_path;
  auto cache = m_cache;
  auto worker = QtConcurrent::run([path, reconcile, cache] {
    Outcome<RunsSnapshot> out;
    try {
      store::Workspace ws(fsPath(path), store::Workspace::Options{.create = false, .reconcile = reconcile});
      RunsSnapshot snapshot;
      for (const store::RunInfo& run : ws.listRuns()) {
        std::vector<store::MetricSummary> summaries;
        const bool finished = run.status != store::RunStatus::Running && run.endedAt;
        const std::optional<double> endedAt = finished ? run.endedAt : std::nullopt;
        if (auto cached = cache->find(run.id.value, endedAt)) {
          summaries = std::move(*cached);
        } else {
          summaries = ws.metricSummaries(run.id);
          cache->insert(run.id.value, endedAt, summaries);
        }
        const int ranks = static_cast<int>(ws.ranks(run.id).size());
        snapshot.runs.append(views::RunRow::fromStore(run, ranks, summaries, ws.alerts(run.id)));
      }
      for (const store::PlanRecord& plan : ws.plans()) {
        snapshot.plans.append(views::SavedPlanRow::fromRecord(plan));
      }
      out.value = std::move(snapshot);
    } catch (const Error& e) {
      out.error = QString::fromUtf8(e.what());
    }
    return out;
  });
  track(QFuture<void>(worker));
  worker.then(this, [this, generation](const Outcome<RunsSnapshot>& out) {
    m_refreshing = false;
    if (generation != m_generation) {
      return;
    }
    if (!out.value) {
      m_live.stop();
      emit failed(tr("Reading the workspace"), out.error);
    } else {
      if (!m_live.isActive()) {
        m_live.start();  // runs launched elsewhere (the command line) appear within kLiveRefreshMs
      }
      emit runsLoaded(out.value->runs, out.value->plans);
    }
    if (m_refreshAgain) {
      m_refreshAgain = false;
      refresh(false);
    }
  });
}

void WorkspaceController::loadRun(qint64 runId) {
  if (m_path.isEmpty()) {
    return;
  }
  const quint64 generation = m_generation;
  const QString path = m_path;
  auto worker = QtConcurrent::run([path, runId] {
    Outcome<views::RunDetails> out;
    try {
      const store::Workspace ws(fsPath(path), store::Workspace::readerOptions(fsPath(path)));
      const auto info = ws.run(store::RunId{runId});
      FATHOM_CHECK(info.has_value(), ConfigError, "run ", runId, " is not in the workspace (deleted?)");
      views::RunDetails d;
      d.ranks = ws.ranks(info->id);
      d.metrics = ws.metricSummaries(info->id);
      d.row = views::RunRow::fromStore(*info, static_cast<int>(d.ranks.size()), d.metrics);
      d.artifacts = ws.artifacts(info->id);
      d.slurmState = slurmJobState(info->slurmJobId);
      out.value = std::move(d);
    } catch (const Error& e) {
      out.error = QString::fromUtf8(e.what());
    }
    return out;
  });
  track(QFuture<void>(worker));
  worker.then(this, [this, generation, runId](const Outcome<views::RunDetails>& out) {
    if (generation != m_generation) {
      return;
    }
    if (out.value) {
      emit runLoaded(*out.value);
    } else {
      emit failed(tr("Reading run %1").arg(runId), out.error);
    }
  });
}

void WorkspaceController::loadComparison(const QList<qint64>& runIds) {
  if (m_path.isEmpty() || runIds.isEmpty()) {
    return;
  }
  const quint64 generation = m_generation;
  const QString path = m_path;
  auto worker = QtConcurrent::run([path, runIds] {
    Outcome<views::RunComparisonData> out;
    try {
      const store::Workspace ws(fsPath(path), store::Workspace::readerOptions(fsPath(path)));
      views::RunComparisonData data;
      std::vector<store::RunId> ids;
      for (const qint64 id : runIds) {
        ids.push_back(store::RunId{id});
      }
      data.comparison = store::compareRuns(ws, ids);
      for (const store::RunId id : ids) {
        ws.forEachMetric(id, [&data](const store::MetricRow& m) { data.metrics.push_back(m); });
      }
      out.value = std::move(data);
    } catch (const Error& e) {
      out.error = QString::fromUtf8(e.what());
    }
    return out;
  });
  track(QFuture<void>(worker));
  worker.then(this, [this, generation](const Outcome<views::RunComparisonData>& out) {
    if (generation != m_generation) {
      return;
    }
    if (out.value) {
      emit comparisonLoaded(*out.value);
    } else {
      emit failed(tr("Comparing runs"), out.error);
    }
  });
}

void WorkspaceController::savePlan(const std::string& inputJson, const std::string& predictionJson) {
  if (m_path.isEmpty()) {
    emit failed(tr("Saving the comparison"), tr("No workspace is open."));
    return;
  }
  const quint64 generation = m_generation;
  const QString path = m_path;
  auto worker = QtConcurrent::run([path, inputJson, predictionJson] {
    Outcome<qint64> out;
    try {
      store::Workspace ws(fsPath(path), store::Workspace::Options{.create = false, .reconcile = false});
      out.value = ws.savePlan(inputJson, predictionJson).value;
    } catch (const Error& e) {
      out.error = QString::fromUtf8(e.what());
    }
    return out;
  });
  track(QFuture<void>(worker));
  worker.then(this, [this, generation](const Outcome<qint64>& out) {
    if (generation != m_generation) {
      return;
    }
    if (out.value) {
      emit planSaved(*out.value);
      refresh(false);
    } else {
      emit failed(tr("Saving the comparison"), out.error);
    }
  });
}

}  // namespace fathom::studio
