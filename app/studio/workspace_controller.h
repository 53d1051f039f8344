// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "planner/saved_plans_model.h"
#include "runs/run_comparison.h"
#include "runs/run_details.h"
#include "runs/runs_model.h"

#include <QFuture>
#include <QObject>
#include <QString>
#include <QTimer>

#include <memory>

namespace fathom::studio {

/// The open workspace, read off the GUI thread. Each job opens its own store::Workspace (the store is one object
/// per thread), reads what it needs and hands a value back on the GUI thread; results of a workspace that is no
/// longer open are dropped. While a workspace is open the controller reads its runs every kLiveRefreshMs (the WAL
/// lets it read while a launcher's collector writes), so a run started from the command line appears as one
/// started here; a live run's metric summaries are read at most every kLiveSummaryMaxAgeS. A run's page follows
/// the run itself, incrementally (RunFeed).
class WorkspaceController : public QObject {
  Q_OBJECT

public:
  explicit WorkspaceController(QObject* parent = nullptr);
  ~WorkspaceController() override;

  /// Opens the workspace at `path` (creating it when `create`); opened() or openFailed() follows.
  void open(const QString& path, bool create);
  void close();
  bool isOpen() const { return !m_path.isEmpty(); }
  QString path() const { return m_path; }

  /// Reads the runs and saved plans again (runsLoaded follows). `reconcile`: mark runs whose launcher is gone as
  /// lost first (a write; the periodic refresh does not).
  void refresh(bool reconcile = false);
  /// Reads the facts of one run for its page's header (runLoaded follows); its page's RunFeed reads the rest.
  void loadRun(qint64 runId);
  /// Reads two or more runs for the comparison page (comparisonLoaded follows): core's store::compareRuns and
  /// every metric point of the runs.
  void loadComparison(const QList<qint64>& runIds);
  /// Saves a planner result (planSaved follows, then a refresh).
  void savePlan(const std::string& inputJson, const std::string& predictionJson);

  /// How often the runs of an open workspace are read again.
  static constexpr int kLiveRefreshMs = 1000;
  /// How old a live run's metric summaries (the browser's final loss) may get before they are read again.
  static constexpr double kLiveSummaryMaxAgeS = 5;

signals:
  void opened(const QString& path);
  void openFailed(const QString& path, const QString& message);
  void closed();
  void runsLoaded(const QList<fathom::views::RunRow>& runs, const QList<fathom::views::SavedPlanRow>& plans);
  void runLoaded(const fathom::views::RunDetails& details);
  void comparisonLoaded(const fathom::views::RunComparisonData& data);
  void planSaved(qint64 planId);
  /// A read or write failed (the workspace stays open).
  void failed(const QString& what, const QString& message);

private:
  class SummaryCache;
  /// Keeps `worker` so the destructor can wait for it; forgets the finished ones.
  void track(const QFuture<void>& worker);

  QString m_path;
  quint64 m_generation = 0;  ///< bumped by open/close: results of an older generation are dropped
  bool m_refreshing = false;
  bool m_refreshAgain = false;
  QTimer m_live;
  std::shared_ptr<SummaryCache> m_cache;
  QList<QFuture<void>> m_workers;
};

}  // namespace fathom::studio
