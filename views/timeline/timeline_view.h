// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/trace/timeline_queries.h>

#include <QAbstractScrollArea>
#include <QPoint>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <memory>
#include <vector>

class QLabel;
class QPainter;
class QProgressBar;
class QPushButton;
class QWidget;

namespace fathom::views {

class TimelineLoader;

/// The trace timeline (issue 19): a TimelineIndex's processes stacked (a header row per process: a rank's CPU
/// process or a GPU), under each its lanes (CPU threads, GPU streams, the collectives row) with one row per depth,
/// then its counters as area charts; a time ruler on top. Zoom at the cursor (wheel, W/S), pan (drag, A/D), F fits
/// the whole trace, T switches the ruler between time since the trace's start and the trace's own clock; the
/// vertical scroll bar (or Shift+wheel) scrolls the rows.
///
/// Paint cost is O(visible pixels): each visible row asks the index for one merged rectangle per pixel column
/// (trace::mergeForPixels, mergeCounterForPixels) and draws what it returns, never the events themselves; a slice's
/// name is drawn when its rectangle is wide enough. lastPaint() counts what the last frame drew.
class TimelineView : public QAbstractScrollArea {
  Q_OBJECT

public:
  enum class TimeMode { SinceTraceStart, TraceClock };
  /// What the last paint drew.
  struct PaintStats {
    int pixels = 0;      ///< the plot's width: the pixel columns asked for
    int rows = 0;        ///< slice and counter rows painted (those on screen)
    int rectangles = 0;  ///< rectangles filled for slices and counter columns: at most pixels x rows
    int labels = 0;      ///< slice names drawn
    double milliseconds = 0;
  };
  struct Options {
    int headerWidth = 200;  ///< the column of row headers, left of the plot
    int rulerHeight = 24;
    int rowHeight = 16;      ///< one depth of a lane
    int counterHeight = 40;  ///< one counter series
    int processHeight = 20;  ///< a process's header row
    int minLabelWidth = 40;  ///< narrower rectangles carry no name
    double zoomStep = 0.8;   ///< W / one wheel notch: the range's length times this
    double panStep = 0.1;    ///< A/D: this fraction of the range
  };

  explicit TimelineView(QWidget* parent = nullptr);
  explicit TimelineView(const Options& options, QWidget* parent = nullptr);
  ~TimelineView() override;

  /// Loads `path` off the GUI thread, showing progress and a Cancel button; loaded() or loadFailed() follows.
  void open(const QString& path);
  void cancelLoad();
  bool isLoading() const;
  /// Shows `index` (fits its whole time range); nullptr clears the view.
  void setIndex(std::shared_ptr<const trace::TimelineIndex> index);
  const trace::TimelineIndex* index() const { return m_index.get(); }
  /// The message of the last failed load; empty after a successful one.
  QString errorMessage() const { return m_error; }

  trace::TimeRange visibleRange() const { return m_range; }
  /// Sets the visible range, clamped to the trace (at most its whole length, at least kMinRangeNs).
  void setVisibleRange(trace::TimeRange range);
  void fit();
  /// Multiplies the range's length by `factor` (< 1: zoom in), keeping time `centreNs` at the same x.
  void zoomBy(double factor, std::int64_t centreNs);
  /// Moves the range by `fraction` of its length (negative: earlier).
  void panBy(double fraction);
  TimeMode timeMode() const { return m_timeMode; }
  void setTimeMode(TimeMode mode);

  /// The plot's width in pixels (the viewport less the header column).
  int plotWidth() const;
  /// The lanes shown (all of the index's lanes, in display order).
  int laneCount() const;
  /// The header of each process row and each lane row (a lane's first depth), top to bottom, counters excluded.
  QStringList headers() const;
  const PaintStats& lastPaint() const { return m_stats; }
  /// What hovering at `pos` (viewport coordinates) shows: the slice under it (name, duration, start; a hit test with
  /// two pixels of slack), or a counter's value there; empty over nothing.
  QString toolTipAt(const QPoint& pos) const;

  static constexpr std::int64_t kMinRangeNs = 100;

signals:
  void loaded();
  void loadFailed(const QString& message);
  void visibleRangeChanged(qint64 startNs, qint64 endNs);

protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;

private:
  struct Row {
    enum class Kind { Process, Slices, Counter } kind = Kind::Process;
    std::uint32_t item = 0;  ///< the process, lane or counter
    std::uint32_t depth = 0;
    int top = 0;  ///< in content coordinates (below the ruler)
    int height = 0;
    QString header;  ///< empty on a lane's deeper rows
  };
  void buildRows();
  void updateScrollBar();
  void paintRuler(QPainter& painter, int pixels);
  void paintSlices(QPainter& painter, const Row& row, int y, int pixels);
  void paintCounter(QPainter& painter, const Row& row, int y, int pixels);
  /// The row at viewport y `y`, or nullptr (the ruler, below the last row).
  const Row* rowAt(int y) const;
  /// The time under the cursor, or the range's centre when the cursor is not over the plot.
  std::int64_t cursorTime() const;
  void showLoadPanel(bool show);

  Options m_options;
  std::shared_ptr<const trace::TimelineIndex> m_index;
  std::vector<Row> m_rows;
  std::vector<double> m_counterMax;  ///< per counter: its largest value (the top of its chart), computed once
  int m_contentHeight = 0;
  trace::TimeRange m_range{0, 1};
  TimeMode m_timeMode = TimeMode::SinceTraceStart;
  PaintStats m_stats;
  std::vector<trace::MergedSlice> m_merged;  ///< reused across frames: no allocation per row
  std::vector<trace::CounterPixel> m_counterPixels;

  bool m_dragging = false;
  int m_dragX = 0;
  trace::TimeRange m_dragRange;
  int m_cursorX = -1;  ///< the cursor's x in the plot, -1 when outside

  TimelineLoader* m_loader = nullptr;
  QString m_loadingPath;
  QString m_error;
  QWidget* m_loadPanel = nullptr;
  QLabel* m_loadLabel = nullptr;
  QProgressBar* m_loadProgress = nullptr;
  QPushButton* m_cancelButton = nullptr;
};

}  // namespace fathom::views
