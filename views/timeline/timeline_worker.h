// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QList>
#include <QObject>

#include <functional>

class QThread;

namespace fathom::views {

/// Runs the timeline panels' slow queries (a slice's args re-read from a gzip trace, an area's aggregation over
/// millions of slices) off the GUI thread, newest request wins: run() supersedes the request still running, whose
/// result is dropped (hotspot's JobTracker, RenderDoc's tagged AsyncInvoke). `work` runs on a thread of its own and
/// returns what to do with its result; that runs on this object's thread, only if no later run() or cancel() came and
/// the object still exists. The destructor waits for the threads still running (the queries cannot be interrupted;
/// they hold their index by shared_ptr).
class TimelineWorker : public QObject {
  Q_OBJECT

public:
  using Work = std::function<std::function<void()>()>;

  explicit TimelineWorker(QObject* parent = nullptr);
  ~TimelineWorker() override;

  void run(Work work);
  /// Drops the running request's result.
  void cancel() { ++m_current; }
  /// A request runs whose result is still wanted.
  bool isBusy() const { return m_busy == m_current && m_busy != 0; }

signals:
  /// The current request's result was applied.
  void finished();

private:
  quint64 m_current = 0;  ///< the number of the request whose result is wanted
  quint64 m_busy = 0;     ///< the number of the last request started and not finished; 0 when none
  QList<QThread*> m_threads;
};

}  // namespace fathom::views
