// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/trace/timeline_index.h>

#include <QList>
#include <QObject>
#include <QString>

#include <atomic>
#include <memory>

class QThread;

namespace fathom::views {

/// Loads a trace into a TimelineIndex on a thread of its own, so that the GUI stays responsive on a trace of
/// millions of events. One load at a time: load() cancels the one running. Results arrive on the loader's thread
/// (the GUI's) through queued calls tagged with the load's number, so a result of a superseded load is dropped.
/// The destructor cancels the running load and waits for its thread (a cancelled load stops between events).
class TimelineLoader : public QObject {
  Q_OBJECT

public:
  explicit TimelineLoader(QObject* parent = nullptr);
  ~TimelineLoader() override;

  /// Starts loading `path` (`.json` or `.json.gz`); cancels a load still running.
  void load(const QString& path);
  /// Cancels the running load (cancelled() follows); nothing when none runs.
  void cancel();
  bool isLoading() const { return m_job != nullptr; }
  /// The index of the last load that finished; nullptr before.
  std::shared_ptr<const trace::TimelineIndex> index() const { return m_index; }

signals:
  /// The fraction of the file's bytes read, 0 .. 1, never decreasing within one load.
  void progress(double fraction);
  void loaded();
  /// `message` names the file and the byte offset of malformed input (the index's StorageError).
  void failed(const QString& message);
  void cancelled();

private:
  struct Job {
    quint64 number = 0;
    std::atomic<bool> cancel{false};
  };
  void finish(quint64 number, std::shared_ptr<const trace::TimelineIndex> index, const QString& error);

  std::shared_ptr<Job> m_job;  ///< the running load; nullptr when none
  quint64 m_lastNumber = 0;
  QList<QThread*> m_threads;  ///< threads not finished yet (a cancelled one may still be unwinding)
  std::shared_ptr<const trace::TimelineIndex> m_index;
};

}  // namespace fathom::views
