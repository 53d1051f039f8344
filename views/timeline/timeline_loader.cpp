// SPDX-License-Identifier: Apache-2.0
#include "timeline/timeline_loader.h"

#include <QThread>

#include <exception>
#include <filesystem>
#include <utility>

namespace fathom::views {

TimelineLoader::TimelineLoader(QObject* parent) : QObject(parent) {}

TimelineLoader::~TimelineLoader() {
  if (m_job)
    m_job->cancel = true;
  for (QThread* thread : std::as_const(m_threads)) {
    thread->wait();
    delete thread;
  }
}

void TimelineLoader::load(const QString& path) {
  cancel();
  auto job = std::make_shared<Job>();
  job->number = ++m_lastNumber;
  m_job = job;
  const std::filesystem::path file(path.toStdU16String());
  QThread* thread = QThread::create([this, job, file] {
    trace::TimelineLoadOptions options;
    options.cancel = &job->cancel;
    double last = -1;
    options.onProgress = [this, job, &last](const trace::TimelineLoadProgress& p) {
      const double fraction = p.fraction();
      if (fraction - last >= 0.01 || fraction >= 1.0) {  // at most ~100 queued calls per load
        last = fraction;
        QMetaObject::invokeMethod(
            this,
            [this, number = job->number, fraction] {
              if (m_job && m_job->number == number)
                emit progress(fraction);
            },
            Qt::QueuedConnection);
      }
      return !job->cancel.load();
    };
    std::shared_ptr<const trace::TimelineIndex> index;
    QString error;
    try {
      if (auto loaded = trace::TimelineIndex::load(file, options))
        index = std::make_shared<const trace::TimelineIndex>(std::move(*loaded));
    } catch (const std::exception& e) {
      error = QString::fromStdString(e.what());
    }
    QMetaObject::invokeMethod(
        this, [this, number = job->number, index, error] { finish(number, index, error); }, Qt::QueuedConnection);
  });
  m_threads.append(thread);
  connect(thread, &QThread::finished, this, [this, thread] {
    m_threads.removeOne(thread);
    thread->deleteLater();
  });
  thread->start();
}

void TimelineLoader::cancel() {
  if (!m_job)
    return;
  m_job->cancel = true;
  m_job.reset();  // its result, when it comes, is dropped
  emit cancelled();
}

void TimelineLoader::finish(quint64 number, std::shared_ptr<const trace::TimelineIndex> index, const QString& error) {
  if (!m_job || m_job->number != number)
    return;  // superseded or cancelled
  m_job.reset();
  if (!error.isEmpty()) {
    emit failed(error);
  } else if (index) {
    m_index = std::move(index);
    emit loaded();
  } else {
    emit cancelled();  // cancelled through the flag but not by cancel(): cannot happen today, handled all the same
  }
}

}  // namespace fathom::views
