// SPDX-License-Identifier: Apache-2.0
#include "timeline/timeline_worker.h"

#include <QThread>

#include <utility>

namespace fathom::views {

TimelineWorker::TimelineWorker(QObject* parent) : QObject(parent) {}

TimelineWorker::~TimelineWorker() {
  for (QThread* thread : std::as_const(m_threads)) {
    thread->wait();
    delete thread;
  }
}

void TimelineWorker::run(Work work) {
  const quint64 number = ++m_current;
  m_busy = number;
  QThread* thread = QThread::create([this, number, work = std::move(work)] {
    std::function<void()> apply = work();
    // Queued to this object: dropped with it when it is destroyed first (the destructor waits for this thread, so
    // `this` is valid while the call is queued).
    QMetaObject::invokeMethod(
        this,
        [this, number, apply = std::move(apply)] {
          if (number != m_current)
            return;  // superseded or cancelled
          m_busy = 0;
          if (apply)
            apply();
          emit finished();
        },
        Qt::QueuedConnection);
  });
  m_threads.append(thread);
  connect(thread, &QThread::finished, this, [this, thread] {
    m_threads.removeOne(thread);
    thread->deleteLater();
  });
  thread->start();
}

}  // namespace fathom::views
