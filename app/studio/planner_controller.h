// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "planner/plan_comparison.h"

#include <QFuture>
#include <QObject>

#include <memory>
#include <optional>

namespace fathom::studio {

/// Runs the planner for the what-if view and the planner panels, off the GUI thread: resolving a model can mean
/// building a built-in model's LibTorch module, and a comparison is ~100 predictions plus a plan search (a few ms,
/// docs/studio.md). One job of each kind runs at a time; requests that arrive meanwhile collapse into the newest,
/// which runs next. Results come back on the GUI thread as values. Resolved models are cached by source.
class PlannerController : public QObject {
  Q_OBJECT

public:
  explicit PlannerController(QObject* parent = nullptr);
  ~PlannerController() override;

  /// Compares every strategy for `request` (comparisonReady or comparisonFailed follows).
  void compare(const views::PlanRequest& request);
  /// Evaluates `request.plan` alone (snapshotReady follows).
  void evaluate(const views::PlanRequest& request);

signals:
  void comparisonReady(const fathom::views::PlanComparison& comparison);
  void comparisonFailed(const fathom::views::PlanRequest& request, const QString& message);
  void snapshotReady(const fathom::views::PlanSnapshot& snapshot);

private:
  class ModelCache;
  struct Lane {
    bool running = false;
    std::optional<views::PlanRequest> next;
    QFuture<void> worker;  ///< the job on the pool (not its continuation, which runs on the GUI thread)
  };
  void startComparison(const views::PlanRequest& request);
  void startEvaluation(const views::PlanRequest& request);

  std::shared_ptr<ModelCache> m_cache;
  bool m_stopped = false;  ///< set by the destructor: continuations run while it waits return at once
  Lane m_compare;
  Lane m_evaluate;
};

}  // namespace fathom::studio
