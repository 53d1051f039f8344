// SPDX-License-Identifier: Apache-2.0
#include "planner_controller.h"

#include <fathom/common/error.h>

#include <QElapsedTimer>
#include <QHash>
#include <QLoggingCategory>
#include <QMutex>
#include <QtConcurrent/QtConcurrentRun>

using namespace Qt::StringLiterals;

Q_LOGGING_CATEGORY(lcPlanner, "fathom.studio.planner", QtInfoMsg)

namespace fathom::studio {

/// Resolved models by ModelSource::cacheKey(); thread-safe. Built-in models are introspected once per shape.
class PlannerController::ModelCache {
public:
  plan::ModelSpec resolve(const views::ModelSource& source) {
    const QString key = source.cacheKey();
    {
      QMutexLocker lock(&m_mutex);
      if (const auto it = m_models.constFind(key); it != m_models.constEnd()) {
        return *it;
      }
    }
    QElapsedTimer timer;
    timer.start();
    plan::ModelSpec model = source.resolve();  // may throw; nothing is cached then
    qCDebug(lcPlanner) << "resolved" << QString::fromStdString(model.name) << "in" << timer.elapsed() << "ms";
    QMutexLocker lock(&m_mutex);
    if (source.kind != views::ModelSource::Kind::HfConfig) {  // a config.json may change on disk
      m_models.insert(key, model);
    }
    return model;
  }

private:
  QMutex m_mutex;
  QHash<QString, plan::ModelSpec> m_models;
};

namespace {

struct ComparisonResult {
  std::optional<views::PlanComparison> comparison;
  views::PlanRequest request;
  QString error;
};

}  // namespace

PlannerController::PlannerController(QObject* parent) : QObject(parent), m_cache(std::make_shared<ModelCache>()) {}

PlannerController::~PlannerController() {
  // Wait for the pool jobs. A job the pool has not started yet runs here, on this thread, and Qt then calls its
  // continuation directly (same thread): m_stopped makes it return before it starts a job or emits to receivers
  // that may be half destroyed. Continuations queued to later are dropped once this object is gone.
  m_stopped = true;
  m_compare.worker.waitForFinished();
  m_evaluate.worker.waitForFinished();
}

void PlannerController::compare(const views::PlanRequest& request) {
  if (m_compare.running) {
    m_compare.next = request;
    return;
  }
  startComparison(request);
}

void PlannerController::startComparison(const views::PlanRequest& request) {
  m_compare.running = true;
  auto cache = m_cache;
  auto worker = QtConcurrent::run([cache, request] {
    ComparisonResult out;
    out.request = request;
    try {
      const plan::ModelSpec model = cache->resolve(request.model);
      const plan::HardwareSpec hardware = request.hardware.resolve();
      out.comparison = views::compare(request, model, hardware);
    } catch (const Error& e) {
      out.error = QString::fromUtf8(e.what());
    }
    return out;
  });
  m_compare.worker = QFuture<void>(worker);
  worker.then(this, [this](const ComparisonResult& result) {
    m_compare.running = false;
    if (m_stopped) {
      return;
    }
    if (m_compare.next) {
      const views::PlanRequest next = *m_compare.next;
      m_compare.next.reset();
      startComparison(next);  // a newer request waits: this result is already stale
      return;
    }
    if (result.comparison) {
      qCDebug(lcPlanner) << "comparison in" << result.comparison->elapsedMs << "ms";
      emit comparisonReady(*result.comparison);
    } else {
      emit comparisonFailed(result.request, result.error);
    }
  });
}

void PlannerController::evaluate(const views::PlanRequest& request) {
  if (m_evaluate.running) {
    m_evaluate.next = request;
    return;
  }
  startEvaluation(request);
}

void PlannerController::startEvaluation(const views::PlanRequest& request) {
  m_evaluate.running = true;
  auto cache = m_cache;
  auto worker = QtConcurrent::run([cache, request] {
    views::PlanSnapshot s;
    s.request = request;
    try {
      s.model = cache->resolve(request.model);
      s.hardware = request.hardware.resolve();
      s.evaluation = views::evaluate(s.model, s.hardware, request.plan);
    } catch (const Error& e) {
      s.error = QString::fromUtf8(e.what());
    }
    return s;
  });
  m_evaluate.worker = QFuture<void>(worker);
  worker.then(this, [this](const views::PlanSnapshot& snapshot) {
    m_evaluate.running = false;
    if (m_stopped) {
      return;
    }
    if (m_evaluate.next) {
      const views::PlanRequest next = *m_evaluate.next;
      m_evaluate.next.reset();
      startEvaluation(next);
      return;
    }
    emit snapshotReady(snapshot);
  });
}

}  // namespace fathom::studio
