// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/trace/timeline_index.h>
#include <fathom/trace/trace_summary.h>

#include <QWidget>

#include <cstdint>
#include <memory>
#include <vector>

namespace fathom::views {

/// A strip over the whole trace: how busy each moment is (per pixel column, the share of its time that lanes spend
/// in slices), and the view's visible range as a box. Clicking outside the box centres the range there, dragging the
/// box moves it, dragging its left or right edge resizes it: each asks for a new range with rangeRequested(); the
/// box follows setVisibleRange() (connect it to TimelineView::visibleRangeChanged).
class TimelineMinimap : public QWidget {
  Q_OBJECT

public:
  explicit TimelineMinimap(QWidget* parent = nullptr);

  /// The trace shown (nullptr: none).
  void setIndex(std::shared_ptr<const trace::TimelineIndex> index);
  trace::TimeRange visibleRange() const { return m_range; }
  void setVisibleRange(qint64 startNs, qint64 endNs);
  /// Per pixel column of the strip's width: the busy fraction in [0, 1], the mean over lanes of the time their
  /// outermost slices cover in the column. Computed once per width (O(outermost slices + columns x lanes)).
  const std::vector<float>& density();
  /// The box of the visible range, in widget coordinates.
  QRect rangeBox() const;
  /// The x of time `t` and the time at x, over the whole trace.
  double timeToX(std::int64_t t) const;
  std::int64_t xToTime(double x) const;

  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

signals:
  void rangeRequested(qint64 startNs, qint64 endNs);

protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;

private:
  enum class Drag { None, Move, Left, Right };
  void computeDensity(int width);

  std::shared_ptr<const trace::TimelineIndex> m_index;
  trace::TimeRange m_range{0, 1};
  std::vector<float> m_density;
  int m_densityWidth = -1;  ///< the width m_density was computed for
  Drag m_drag = Drag::None;
  std::int64_t m_grabOffset = 0;   ///< Move: the time under the cursor minus the range's start
  static constexpr int kEdge = 4;  ///< pixels around an edge of the box that grab it
};

}  // namespace fathom::views
