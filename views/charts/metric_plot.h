// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "charts/chart_view.h"
#include "charts/ema_smoother.h"
#include "charts/lod_series.h"
#include "charts/metric_series_store.h"

#include <QHash>
#include <QMap>
#include <QPair>
#include <QPointF>

#include <map>
#include <memory>
#include <vector>

class QAbstractAxis;
class QAreaSeries;
class QLineSeries;

namespace fathom::views {

/// One metric key of one or more runs as lines, TensorBoard's scalars chart as a desktop view: per rank, or the
/// mean across ranks with a min–max band; x = step or seconds since the run's first point; TensorBoard's debiased
/// exponential smoothing (the raw line stays, faint); log y; zoom (wheel, +/-), pan (drag, arrows), Home or a
/// double click to see everything; hover shows the values nearest the pointer; PNG, SVG and CSV export.
///
/// Each line keeps a LodSeries built while points arrive (pointsAppended()); a redraw decimates the visible range
/// to min/max per pixel column, so a series of a million points never puts more than two points per column into
/// Qt Charts. The plot reads a MetricSeriesStore it does not own; rebuild() after a change of options re-reads it.
class MetricPlot : public ChartView {
  Q_OBJECT

public:
  enum class Mode { PerRank, MeanBand };
  enum class XAxis { Step, WallTime };
  struct Options {
    QString key;  ///< the metric key; empty: nothing to plot
    Mode mode = Mode::PerRank;
    XAxis xAxis = XAxis::Step;
    double smoothing = 0;  ///< TensorBoard's weight, 0 (off) .. 0.999
    bool logY = false;     ///< values <= 0 are left out
  };

  explicit MetricPlot(const MetricSeriesStore* store, QWidget* parent = nullptr);
  ~MetricPlot() override;

  const Options& options() const { return m_options; }
  /// Applies `options` and rebuilds the lines from the store (the zoom is kept unless the key or axis changed).
  void setOptions(const Options& options);
  /// The names of runs in the legend (a comparison); without one a line is "rank N" or "mean".
  void setRunLabels(const QMap<qint64, QString>& labels);
  /// How many ranks run `run` has: a step of the mean is drawn once each of them has logged it.
  void setWorldSize(qint64 run, int ranks);

  /// Re-reads every line from the store.
  void rebuild();
  /// Extends the lines with `rows`, which the caller has just appended to the store.
  void pointsAppended(const std::vector<store::MetricRow>& rows);
  /// Draws the steps of the mean still waiting for a rank (the run ended).
  void flushPending();

  /// The visible x range.
  QPair<double, double> xRange() const { return {m_x0, m_x1}; }
  /// True after a zoom or a pan: new points no longer move the range.
  bool isZoomed() const { return m_zoomed; }
  void setXRange(double x0, double x1);
  /// Zooms by `factor` (< 1: in) around x = `centre`.
  void zoomBy(double factor, double centre);
  /// Moves the range by `fraction` of its width (negative: left).
  void panBy(double fraction);
  void resetZoom();

  /// The text hovering at x = `x` shows: each line's point nearest to it.
  QString valuesAt(double x) const;
  /// Writes the chart as PNG or SVG (by the suffix of `path`).
  bool exportImage(const QString& path, QString* error) const;
  /// Writes every point of the lines shown (not only the drawn ones): series, x, value, smoothed, min, max.
  bool exportCsv(const QString& path, QString* error) const;

  /// Lines shown (a per-rank line or a run's mean).
  int lineCount() const { return static_cast<int>(m_lines.size()); }
  /// Points handed to Qt Charts by the last redraw, over every series.
  int drawnPoints() const { return m_drawnPoints; }

signals:
  void rangeChanged(double x0, double x1);

protected:
  void redraw() override;
  void resizeEvent(QResizeEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;

private:
  struct Line;
  Line& lineFor(std::int64_t run, int rank);
  void addPoint(Line& line, std::int64_t step, double wallTime, double value);
  void feed(Line& line, double x, double y, double low, double high);
  void emitReadySteps(Line& line, bool all);
  QString lineName(const Line& line) const;
  void createAxes();
  double valueAtPixel(const QPointF& viewPos) const;

  const MetricSeriesStore* m_store;
  Options m_options;
  QMap<qint64, QString> m_runLabels;
  QHash<qint64, int> m_worldSizes;
  std::vector<std::unique_ptr<Line>> m_lines;
  std::map<std::pair<std::int64_t, int>, Line*> m_index;
  QAbstractAxis* m_xAxis = nullptr;
  QAbstractAxis* m_yAxis = nullptr;
  double m_x0 = 0, m_x1 = 1;
  bool m_zoomed = false;
  bool m_rebuildPending = false;
  int m_drawnPoints = 0;
  bool m_dragging = false;
  QPointF m_dragStart;
  QPair<double, double> m_dragRange;
};

}  // namespace fathom::views
