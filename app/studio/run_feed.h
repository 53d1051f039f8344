// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "runs/run_delta.h"

#include <QFuture>
#include <QObject>
#include <QString>
#include <QTimer>

namespace fathom::store {
class Workspace;
}

namespace fathom::studio {

/// Follows one run of a workspace: the first read brings its history (every metric point, the last log lines),
/// each later one, every kPollMs while the run is live, only the rows with ids above the cursors (store::Workspace's
/// run-scoped metricsSince / eventsSince), off the GUI thread. delta() hands each read to the page; ended() follows
/// the read that found the run finished (that read holds everything it recorded, since the status is read first).
/// A run started from the command line is followed the same way: the feed reads the workspace, not a launcher.
class RunFeed : public QObject {
  Q_OBJECT

public:
  RunFeed(const QString& workspacePath, qint64 runId, QObject* parent = nullptr);
  ~RunFeed() override;

  /// Reads now, then every kPollMs until the run ends or stop().
  void start();
  void stop();
  qint64 runId() const { return m_run; }
  bool isFollowing() const { return m_timer.isActive(); }

  /// Reads the run's plan comparison again, off the GUI thread (after `fathom runs plan-vs-actual --compute`
  /// stored one): planRead() follows.
  void refreshPlan();
  /// The run's stored plan compared with its measurements; never throws (a bad plan is `error`).
  static views::RunPlanComparison readPlan(const store::Workspace& workspace, qint64 runId);
  /// The run's newest hardware fit, if any.
  static std::optional<views::StoredRunFit> readFit(const store::Workspace& workspace, qint64 runId);

  /// How often a live run is read: a point the collector commits is on screen within this plus one read.
  static constexpr int kPollMs = 250;
  /// The most metric rows one read takes; the rest follow in the next read, right away.
  static constexpr std::size_t kBatchLimit = 200'000;

  /// Where the previous read ended: the largest id read of each incrementally read table.
  struct Cursors {
    qint64 metrics = 0;
    qint64 events = 0;
    qint64 deviceMaps = 0;
  };

  /// One read (what the worker does): the run's row, ranks and heartbeats, and the metrics, events and device maps
  /// above the cursors (the last RunDetails::kEventLimit events when `first`). `more`: the batch limit cut the
  /// metrics short.
  static views::RunDelta read(const QString& workspacePath, qint64 runId, const Cursors& after, bool first, bool* more);

signals:
  void delta(const fathom::views::RunDelta& delta);
  void failed(const QString& message);
  void ended();
  void planRead(const fathom::views::RunPlanComparison& plan);

private:
  void poll();

  QString m_path;
  qint64 m_run = 0;
  Cursors m_cursors;
  bool m_first = true;
  bool m_busy = false;
  bool m_stopped = false;
  QTimer m_timer;
  QFuture<void> m_worker;
  QFuture<void> m_planWorker;
};

}  // namespace fathom::studio
