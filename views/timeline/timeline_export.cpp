// SPDX-License-Identifier: Apache-2.0
#include "timeline/timeline_export.h"

#include "timeline/timeline_view.h"

#include <fathom/common/error.h>
#include <fathom/trace/timeline_index.h>
#include <fathom/trace/trace_range_export.h>

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QPainter>
#include <QPixmap>
#include <QProgressDialog>
#include <QSaveFile>
#include <QSettings>
#include <QSvgGenerator>
#include <QThread>

using namespace Qt::StringLiterals;

namespace fathom::views {
namespace {

const QString kFolderKey = u"timeline/exportFolder"_s;

/// "<name> <start>–<end> µs" as a file name stem: where in the trace the export came from.
QString suggestedStem(const QString& source, trace::TimeRange range) {
  QString stem = QFileInfo(source).fileName();
  for (const QString& suffix : {u".gz"_s, u".json"_s, u".pt.trace"_s}) {
    if (stem.endsWith(suffix)) {
      stem.chop(suffix.size());
    }
  }
  return u"%1_%2-%3us"_s.arg(stem.isEmpty() ? u"trace"_s : stem).arg(range.startNs / 1000).arg(range.endNs / 1000);
}

}  // namespace

TimelineExport::TimelineExport(TimelineView* view) : QObject(view), m_view(view) {
  setObjectName(u"timelineExport"_s);
  m_rangeAction = new QAction(tr("Export Range as Chrome Trace…"), this);
  m_rangeAction->setObjectName(u"timelineExportRange"_s);
  m_rangeAction->setToolTip(tr("Write the selected time range (else the visible one) as a trace Perfetto opens"));
  m_pngAction = new QAction(tr("Export View as PNG…"), this);
  m_pngAction->setObjectName(u"timelineExportPng"_s);
  m_svgAction = new QAction(tr("Export View as SVG…"), this);
  m_svgAction->setObjectName(u"timelineExportSvg"_s);
  connect(m_rangeAction, &QAction::triggered, this, &TimelineExport::chooseRangeFile);
  connect(m_pngAction, &QAction::triggered, this, [this] { chooseImageFile(false); });
  connect(m_svgAction, &QAction::triggered, this, [this] { chooseImageFile(true); });
  view->addActions(actions());  // TimelineView::createContextMenu shows them right of the header column
  m_provider = [this] { return Selection{m_view ? m_view->visibleRange() : trace::TimeRange{}, {}}; };
  // Errors of an export the user started from the menu are shown; a cancel is not an error to show.
  connect(this, &TimelineExport::exportFailed, this, [this](const QString& message) {
    if (m_interactive && !m_cancelled && m_view) {
      QMessageBox::warning(m_view, tr("Export Range"), message);
    }
  });
}

TimelineExport::~TimelineExport() {
  if (m_job) {
    m_job->cancel = true;
  }
  if (m_thread) {
    m_thread->wait();  // a cancelled export stops within progressEvery events and removes its partial file
  }
}

void TimelineExport::setSelectionProvider(SelectionProvider provider) {
  m_provider = std::move(provider);
}

TimelineExport::Selection TimelineExport::selection() const {
  return m_provider();
}

bool TimelineExport::exportRange(const QString& path, QString* error) {
  auto fail = [error](const QString& message) {
    if (error != nullptr) {
      *error = message;
    }
    return false;
  };
  if (m_job) {
    return fail(tr("An export is already running."));
  }
  const trace::TimelineIndex* index = m_view ? m_view->index() : nullptr;
  if (index == nullptr) {
    return fail(tr("No trace is loaded."));
  }
  const QString source = QString::fromStdString(index->source());
  if (!QFileInfo(source).isFile()) {
    return fail(tr("The trace %1 is not a file that can be read again.").arg(source));
  }
  const Selection selected = selection();
  if (selected.range.startNs >= selected.range.endNs) {
    return fail(tr("The range to export is empty."));
  }
  auto job = std::make_shared<Job>();
  m_job = job;
  if (m_progress == nullptr) {
    m_progress = new QProgressDialog(m_view);
    m_progress->setObjectName(u"timelineExportProgress"_s);
    m_progress->setWindowTitle(tr("Export Range"));
    m_progress->setRange(0, 1000);
    m_progress->setMinimumDuration(500);
    m_progress->setAutoReset(false);
    m_progress->setAutoClose(false);
    connect(m_progress, &QProgressDialog::canceled, this, &TimelineExport::cancel);
  }
  m_progress->setLabelText(tr("Writing %1…").arg(QFileInfo(path).fileName()));
  m_progress->setValue(0);

  trace::TraceRangeExportOptions options;
  options.range = selected.range;
  options.rows = selected.rows;
  const std::string input = source.toStdString();
  const std::string output = path.toStdString();
  QPointer<QProgressDialog> progress = m_progress;
  m_thread = QThread::create([this, job, input, output, options, path, progress]() mutable {
    options.cancel = &job->cancel;
    options.onProgress = [progress](double fraction) {
      QMetaObject::invokeMethod(
          progress,
          [progress, fraction] {
            if (progress) {
              progress->setValue(static_cast<int>(fraction * 1000));
            }
          },
          Qt::QueuedConnection);
      return true;
    };
    QString message;
    qulonglong events = 0;
    try {
      const trace::TraceRangeExportResult result = trace::exportTraceRange(input, output, options);
      events = result.eventsWritten;
      if (result.cancelled) {
        message = tr("Export of %1 cancelled.").arg(path);
      }
    } catch (const std::exception& e) {
      message = QString::fromUtf8(e.what());
    }
    QMetaObject::invokeMethod(
        this, [this, job, path, events, message] { finish(job, path, events, message); }, Qt::QueuedConnection);
  });
  connect(m_thread, &QThread::finished, m_thread, &QObject::deleteLater);
  m_thread->start();
  return true;
}

void TimelineExport::cancel() {
  if (m_job) {
    m_job->cancel = true;
  }
}

void TimelineExport::finish(const std::shared_ptr<Job>& job, const QString& path, qulonglong events,
                            const QString& error) {
  if (job != m_job) {
    return;
  }
  m_cancelled = job->cancel;
  m_thread->wait();
  m_thread = nullptr;
  m_job.reset();
  if (m_progress) {
    m_progress->reset();
    m_progress->hide();
  }
  if (error.isEmpty()) {
    emit rangeExported(path, events);
  } else {
    emit exportFailed(error);
  }
  m_interactive = false;
}

bool TimelineExport::savePng(TimelineView* view, const QString& path, QString* error) {
  QSaveFile file(path);
  const bool ok = file.open(QIODevice::WriteOnly) && view->viewport()->grab().save(&file, "PNG") && file.commit();
  if (!ok && error != nullptr) {
    *error = tr("Could not write %1: %2").arg(QDir::toNativeSeparators(path), file.errorString());
  }
  return ok;
}

bool TimelineExport::saveSvg(TimelineView* view, const QString& path, QString* error) {
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly)) {
    if (error != nullptr) {
      *error = tr("Could not write %1: %2").arg(QDir::toNativeSeparators(path), file.errorString());
    }
    return false;
  }
  QWidget* viewport = view->viewport();
  QSvgGenerator svg;
  svg.setOutputDevice(&file);
  svg.setSize(viewport->size());
  svg.setResolution(viewport->logicalDpiX());  // the file's physical size is the view's on this screen
  svg.setViewBox(viewport->rect());
  svg.setTitle(tr("Fathom trace timeline"));
  svg.setDescription(view->index() != nullptr ? QString::fromStdString(view->index()->source()) : QString());
  {
    // render() sends the viewport a paint event whose QPainter draws on this painter's device: the same paint code as
    // on screen, as vectors.
    QPainter painter(&svg);
    viewport->render(&painter, QPoint(), QRegion(), QWidget::DrawChildren);
  }
  if (!file.commit()) {
    if (error != nullptr) {
      *error = tr("Could not write %1: %2").arg(QDir::toNativeSeparators(path), file.errorString());
    }
    return false;
  }
  return true;
}

QString TimelineExport::startFolder() const {
  const QString folder = QSettings().value(kFolderKey).toString();
  if (!folder.isEmpty() && QFileInfo(folder).isDir()) {
    return folder;
  }
  const trace::TimelineIndex* index = m_view ? m_view->index() : nullptr;
  return index != nullptr ? QFileInfo(QString::fromStdString(index->source())).absolutePath() : QDir::homePath();
}

void TimelineExport::rememberFolder(const QString& path) const {
  QSettings().setValue(kFolderKey, QFileInfo(path).absolutePath());
}

void TimelineExport::chooseRangeFile() {
  const trace::TimelineIndex* index = m_view ? m_view->index() : nullptr;
  if (index == nullptr) {
    return;
  }
  const QString stem = suggestedStem(QString::fromStdString(index->source()), selection().range);
  const QString path = QFileDialog::getSaveFileName(m_view, tr("Export Range as Chrome Trace"),
                                                    QDir(startFolder()).filePath(stem + u".json.gz"_s),
                                                    tr("Chrome trace, compressed (*.json.gz);;Chrome trace (*.json)"));
  if (path.isEmpty()) {
    return;
  }
  rememberFolder(path);
  QString error;
  if (!exportRange(path, &error)) {
    QMessageBox::warning(m_view, tr("Export Range"), error);
    return;
  }
  m_interactive = true;
}

void TimelineExport::chooseImageFile(bool svg) {
  if (!m_view) {
    return;
  }
  const QString title = svg ? tr("Export View as SVG") : tr("Export View as PNG");
  const QString stem = m_view->index() != nullptr
                           ? suggestedStem(QString::fromStdString(m_view->index()->source()), m_view->visibleRange())
                           : u"timeline"_s;
  const QString path =
      QFileDialog::getSaveFileName(m_view, title, QDir(startFolder()).filePath(stem + (svg ? u".svg"_s : u".png"_s)),
                                   svg ? tr("SVG image (*.svg)") : tr("PNG image (*.png)"));
  if (path.isEmpty()) {
    return;
  }
  rememberFolder(path);
  QString error;
  if (!(svg ? saveSvg(m_view, path, &error) : savePng(m_view, path, &error))) {
    QMessageBox::warning(m_view, title, error);
  }
}

}  // namespace fathom::views
