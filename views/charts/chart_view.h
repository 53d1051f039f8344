// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QChartView>
#include <QString>
#include <QStringList>

#include <utility>

namespace fathom::views {

/// The Studio's chart frame: a QChartView with antialiasing, the light theme, a title, compact margins and a
/// legend at the bottom; subclasses add series. showTip() shows a hover explanation where the pointer is.
class ChartView : public QChartView {
  Q_OBJECT

public:
  explicit ChartView(QWidget* parent = nullptr);

  /// Draws the chart into `target` of `painter` at the target's size, whether or not the view is shown (exports
  /// render charts of hidden tabs too); the chart returns to the view's size afterwards.
  void renderTo(QPainter* painter, const QRectF& target);
  /// Redraws now (otherwise a redraw asked for by scheduleRedraw() follows on the next turn of the event loop).
  void redrawNow();

protected:
  /// Asks for one redraw() on the next turn of the event loop, however often it is asked until then: a batch of
  /// points, a resize and a new range cost one redraw.
  void scheduleRedraw();
  /// Puts the chart's own data into its series (charts that draw incrementally: MetricPlot, MemoryTimeline).
  virtual void redraw() {}
  /// Removes every series and axis (a chart is rebuilt for each new comparison).
  void clearChart();
  /// Puts `labels` (one per strategy) on a rotated category axis at the bottom for `bars`, and, for `overlay` (a
  /// line or points drawn over the bars), a hidden numeric axis whose categories lie at 0, 1, 2, ...
  void addStrategyAxes(const QStringList& labels, QAbstractSeries* bars, QAbstractSeries* overlay);
  /// The x range [lo, hi] of the points shown, made drawable: [0, 1] when there are none (lo > hi), one unit wide
  /// around a single x.
  static std::pair<double, double> drawableRange(double lo, double hi);
  /// Shows `text` (rich text) as a tooltip at the pointer; an empty text hides it.
  void showTip(const QString& text);
  /// Puts an explanation block (plain text, `--explain` format) into a tooltip-ready rich text under `heading`.
  static QString tipText(const QString& heading, const QString& explanation);

private:
  bool m_redrawPending = false;
};

}  // namespace fathom::views
