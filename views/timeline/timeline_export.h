// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/trace/trace_summary.h>

#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

class QAction;
class QProgressDialog;
class QThread;

namespace fathom::views {

class TimelineView;

/// The timeline's exports (issue 19): "Export Range as Chrome Trace…" (the selection, by default the visible range,
/// cut out of the trace file by trace::exportTraceRange: the function `fathom trace export --from --to` calls, so the
/// file loads in Perfetto and `fathom trace summary --from --to` agrees with it), and "Export View as PNG…"/"SVG…"
/// (the view as painted: QWidget::grab for PNG, the same paintEvent rendered into a QSvgGenerator for SVG).
///
/// Construct it on a TimelineView: it is the view's child, and its actions are added to the view's context menu
/// (actions() also lists them for a menu bar). The range export runs on a thread of its own with a progress dialog and
/// Cancel; rangeExported() or exportFailed() follows. The file dialogs' folders persist in QSettings.
class TimelineExport : public QObject {
  Q_OBJECT

public:
  /// What "Export Range" writes: a time range on the trace's clock, and the rows ("<pid>/<tid>", TimelineLane::key)
  /// to keep; no rows: every row.
  struct Selection {
    trace::TimeRange range;
    std::vector<std::string> rows;
  };
  using SelectionProvider = std::function<Selection()>;

  explicit TimelineExport(TimelineView* view);
  ~TimelineExport() override;

  QAction* exportRangeAction() const { return m_rangeAction; }
  QAction* exportPngAction() const { return m_pngAction; }
  QAction* exportSvgAction() const { return m_svgAction; }
  QList<QAction*> actions() const { return {m_rangeAction, m_pngAction, m_svgAction}; }

  /// Where "Export Range" takes its range and rows from. The default is the view's visible range and every row.
  /// Hook for the area selection: set a provider that returns TimelineView::areaSelection() when there is one.
  void setSelectionProvider(SelectionProvider provider);
  /// The selection "Export Range" would write now.
  Selection selection() const;

  /// Starts writing the selection of the view's trace to `path` (.json, or .json.gz to compress) off the GUI thread;
  /// rangeExported() or exportFailed() follows. Returns false (and says why in `error`) when nothing can start: no
  /// trace, a trace not read from a file, or an export already running.
  bool exportRange(const QString& path, QString* error = nullptr);
  bool isExporting() const { return m_job != nullptr; }
  /// Cancels a running range export (exportFailed() follows with "cancelled"); nothing when none runs.
  void cancel();

  /// Saves the view's viewport as painted (QWidget::grab) to `path` as PNG, atomically (QSaveFile).
  static bool savePng(TimelineView* view, const QString& path, QString* error = nullptr);
  /// Renders the view's viewport with its own paint code into an SVG file (QSvgGenerator), atomically: vector
  /// rectangles and text, so slice names stay searchable and sharp at any zoom.
  static bool saveSvg(TimelineView* view, const QString& path, QString* error = nullptr);

signals:
  /// A range export finished: `path` holds `events` events.
  void rangeExported(const QString& path, qulonglong events);
  /// A range export failed or was cancelled; `message` names the file.
  void exportFailed(const QString& message);

private:
  struct Job {
    std::atomic<bool> cancel{false};
  };
  void chooseRangeFile();
  void chooseImageFile(bool svg);
  void finish(const std::shared_ptr<Job>& job, const QString& path, qulonglong events, const QString& error);
  /// The folder of the last export (QSettings), else the trace's folder.
  QString startFolder() const;
  void rememberFolder(const QString& path) const;

  QPointer<TimelineView> m_view;
  QAction* m_rangeAction = nullptr;
  QAction* m_pngAction = nullptr;
  QAction* m_svgAction = nullptr;
  SelectionProvider m_provider;
  std::shared_ptr<Job> m_job;  ///< the running range export; nullptr when none
  QProgressDialog* m_progress = nullptr;
  QThread* m_thread = nullptr;  ///< the running export's thread (waited for by the destructor)
  bool m_interactive = false;   ///< the running export was started from the menu: show its error
  bool m_cancelled = false;     ///< the last export was cancelled
};

}  // namespace fathom::views
