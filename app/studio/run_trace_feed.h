// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "timeline/run_timeline_page.h"

#include <fathom/store/records.h>
#include <fathom/trace/timeline_index.h>

#include <QElapsedTimer>
#include <QFuture>
#include <QList>
#include <QObject>
#include <QString>
#include <QThreadPool>
#include <QTimer>

#include <atomic>
#include <memory>
#include <utility>
#include <vector>

namespace fathom::studio {

/// Follows one run's stored traces for its Timeline page (issue 19), off the GUI thread:
/// - every kPollMs while the run is live (once when it has ended) it reads the run's trace list
///   (store::Workspace::traces: name, rank, chunks, bytes per trace) and hands the page its entries (entriesOf);
/// - for the chosen entry it reads the traces' bytes and builds their timeline (trace::loadTracesTimeline: one trace
///   as it is, several merged as `fathom trace merge` merges them, prefixes of traces still being written accepted),
///   and builds it again whenever those traces grew, one build at a time: arrivals during a build are taken by the
///   next build, so a burst of chunks costs one rebuild (the debounce), and a rebuild of the same entry rests
///   kRestFactor times the last build's time first, so following a big run takes at most a third of a core.
/// The profiler stores a window's trace when the window ends, in blocks of ~1 MiB as the file is written, so a live
/// timeline grows window by window, and a read may catch a trace half stored: its complete events are shown.
class RunTraceFeed : public QObject {
  Q_OBJECT

public:
  RunTraceFeed(const QString& workspacePath, qint64 runId, QObject* parent = nullptr);
  ~RunTraceFeed() override;

  /// Reads now, then every kPollMs until the run has ended and its last traces are shown, or stop().
  void start();
  void stop();
  /// Builds `key`'s timeline now, and again whenever its traces grow.
  void choose(const QString& key);
  bool isFollowing() const { return m_timer.isActive(); }
  /// Timelines built since start (for tests and the status line).
  int builds() const { return m_builds; }

  static constexpr int kPollMs = 500;
  /// After a build, a rebuild of the same entry waits this many times as long as the build took (the others: none).
  static constexpr double kRestFactor = 2.0;

  /// The page's entries for a run's stored traces: first the whole run when the profiler stored any (all per-rank
  /// traces of every window on one clock: the entry that grows while the run goes on); per group (a window, or another
  /// stored name) an entry with every rank together when it has several ranks (with one window, the whole run is
  /// that entry); then each rank's own trace. The profiler's stored merged traces are not listed where the
  /// per-rank traces they were merged from are (the group's entry is that merge, made in memory and live).
  static QList<views::RunTraceEntry> entriesOf(const std::vector<store::TraceSummary>& traces);
  /// The stored traces (name, rank) an entry shows.
  static std::vector<store::TraceSummary> tracesOf(const QString& key, const std::vector<store::TraceSummary>& traces);

signals:
  void entriesChanged(const QList<fathom::views::RunTraceEntry>& entries);
  void timelineReady(const QString& key, std::shared_ptr<const fathom::trace::TimelineIndex> index,
                     const fathom::views::RunTimelineLoad& load);
  void timelineFailed(const QString& key, const QString& message);
  /// The run is live (true) or has ended (false); told on the first read and when it changes.
  void liveChanged(bool live);

private:
  void poll();
  void maybeBuild();

  /// Reads and builds run on a pool of the feed's own: a whole-run build can take seconds, and must not hold up the
  /// global pool's few threads, which the run page's metric reads and the workspace controller share.
  QThreadPool m_pool;
  QString m_path;
  qint64 m_run = 0;
  QTimer m_timer;
  bool m_stopped = true;
  bool m_polling = false;
  std::optional<bool> m_live;
  std::vector<store::TraceSummary> m_traces;  ///< the last list read
  QString m_key;                              ///< the chosen entry
  std::vector<store::TraceSummary> m_built;   ///< what the last build of m_key read (chunks and bytes per trace)
  QString m_builtKey;
  bool m_building = false;
  double m_lastBuildMs = 0;
  QElapsedTimer m_sinceBuild;  ///< since the last build ended
  QTimer m_restTimer;          ///< a rebuild held back by kRestFactor
  int m_builds = 0;
  std::shared_ptr<std::atomic<bool>> m_cancel;  ///< the running build's
  QFuture<void> m_pollWorker;
  QFuture<void> m_buildWorker;
};

}  // namespace fathom::studio
