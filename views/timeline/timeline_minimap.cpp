// SPDX-License-Identifier: Apache-2.0
#include "timeline/timeline_minimap.h"

#include <QMouseEvent>
#include <QPainter>

#include <algorithm>
#include <cmath>
#include <utility>

namespace fathom::views {

TimelineMinimap::TimelineMinimap(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
  setToolTip(tr("The whole trace: click to move the view there, drag the box to pan, drag its edges to zoom"));
}

QSize TimelineMinimap::sizeHint() const {
  return {400, 36};
}

QSize TimelineMinimap::minimumSizeHint() const {
  return {100, 36};
}

void TimelineMinimap::setIndex(std::shared_ptr<const trace::TimelineIndex> index) {
  m_index = std::move(index);
  m_densityWidth = -1;
  m_density.clear();
  if (m_index)
    m_range = {m_index->data().startNs, m_index->data().endNs};
  update();
}

void TimelineMinimap::setVisibleRange(qint64 startNs, qint64 endNs) {
  if (m_range.startNs == startNs && m_range.endNs == endNs)
    return;
  m_range = {startNs, endNs};
  update();
}

double TimelineMinimap::timeToX(std::int64_t t) const {
  if (!m_index)
    return 0;
  const double length = static_cast<double>(std::max<std::int64_t>(1, m_index->data().endNs - m_index->data().startNs));
  return static_cast<double>(t - m_index->data().startNs) * width() / length;
}

std::int64_t TimelineMinimap::xToTime(double x) const {
  if (!m_index)
    return 0;
  const double length = static_cast<double>(std::max<std::int64_t>(1, m_index->data().endNs - m_index->data().startNs));
  return m_index->data().startNs + static_cast<std::int64_t>(std::llround(x * length / std::max(1, width())));
}

QRect TimelineMinimap::rangeBox() const {
  const int x0 = static_cast<int>(std::floor(timeToX(m_range.startNs)));
  const int x1 = std::max(x0 + 3, static_cast<int>(std::ceil(timeToX(m_range.endNs))));  // never thinner than 3 px
  return {x0, 0, x1 - x0, height()};
}

const std::vector<float>& TimelineMinimap::density() {
  if (m_densityWidth != width())
    computeDensity(width());
  return m_density;
}

void TimelineMinimap::computeDensity(int pixels) {
  m_densityWidth = pixels;
  m_density.assign(static_cast<std::size_t>(std::max(0, pixels)), 0.0f);
  if (!m_index || pixels <= 0 || m_index->lanes().empty())
    return;
  const std::int64_t t0 = m_index->data().startNs;
  const double length = static_cast<double>(std::max<std::int64_t>(1, m_index->data().endNs - t0));
  const double nsPerColumn = length / pixels;
  // Busy time per column, summed over lanes: each outermost slice (depth 0: disjoint within a lane, so nothing is
  // counted twice) adds its overlap with every column it spans. Columns are fractional so that a slice shorter than a
  // column adds its duration, not a whole column.
  std::vector<double> busy(m_density.size(), 0.0);
  for (const trace::TimelineLane& lane : m_index->lanes()) {
    if (lane.depthCount() == 0)
      continue;
    for (std::uint32_t i = lane.depthBegin[0]; i < lane.depthBegin[1]; ++i) {
      const double a = static_cast<double>(lane.start[i] - t0) / nsPerColumn;
      const double b = static_cast<double>(lane.end[i] - t0) / nsPerColumn;
      const int c0 = std::clamp(static_cast<int>(a), 0, pixels - 1);
      const int c1 = std::clamp(static_cast<int>(b), 0, pixels - 1);
      if (c0 == c1) {
        busy[c0] += b - a;
        continue;
      }
      busy[c0] += (c0 + 1) - a;
      for (int c = c0 + 1; c < c1; ++c)
        busy[c] += 1.0;
      busy[c1] += b - c1;
    }
  }
  const double lanes = static_cast<double>(m_index->lanes().size());
  for (std::size_t c = 0; c < busy.size(); ++c)
    m_density[c] = static_cast<float>(std::clamp(busy[c] / lanes, 0.0, 1.0));
}

void TimelineMinimap::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  painter.fillRect(rect(), palette().base());
  if (!m_index)
    return;
  // Bars scaled to the busiest column, so that a trace with a few busy lanes among many idle ones still shows its
  // shape; a column's height is its busy fraction relative to that.
  const std::vector<float>& bars = density();
  const float peak = bars.empty() ? 0.0f : *std::max_element(bars.begin(), bars.end());
  const QColor fill = palette().color(QPalette::Highlight).lighter(130);
  const int h = height() - 2;
  if (peak > 0) {
    for (int x = 0; x < static_cast<int>(bars.size()); ++x) {
      const int bar = static_cast<int>(std::lround(bars[static_cast<std::size_t>(x)] / peak * h));
      if (bar > 0)
        painter.fillRect(x, height() - 1 - bar, 1, bar, fill);
    }
  }
  const QRect box = rangeBox();
  QColor shade = palette().color(QPalette::Text);
  shade.setAlpha(40);
  painter.fillRect(QRect(0, 0, box.left(), height()), shade);  // outside the box: dimmed
  painter.fillRect(QRect(box.right() + 1, 0, width() - box.right() - 1, height()), shade);
  painter.setPen(QPen(palette().color(QPalette::Highlight), 1));
  painter.setBrush(Qt::NoBrush);
  painter.drawRect(box.adjusted(0, 0, -1, -1));
  painter.setPen(palette().color(QPalette::Mid));
  painter.drawLine(0, height() - 1, width(), height() - 1);
}

void TimelineMinimap::mousePressEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton || !m_index)
    return QWidget::mousePressEvent(event);
  const int x = static_cast<int>(event->position().x());
  const QRect box = rangeBox();
  const std::int64_t length = m_range.endNs - m_range.startNs;
  if (std::abs(x - box.left()) <= kEdge && box.width() > 2 * kEdge) {
    m_drag = Drag::Left;
  } else if (std::abs(x - (box.right() + 1)) <= kEdge) {
    m_drag = Drag::Right;
  } else if (x >= box.left() && x <= box.right()) {
    m_drag = Drag::Move;
    m_grabOffset = xToTime(x) - m_range.startNs;
  } else {
    // Outside the box: centre the range there, then drag it from its centre.
    m_drag = Drag::Move;
    m_grabOffset = length / 2;
    const std::int64_t start = xToTime(x) - m_grabOffset;
    emit rangeRequested(start, start + length);
  }
}

void TimelineMinimap::mouseMoveEvent(QMouseEvent* event) {
  const int x = static_cast<int>(event->position().x());
  if (m_drag == Drag::None) {
    const QRect box = rangeBox();
    const bool edge = std::abs(x - box.left()) <= kEdge || std::abs(x - (box.right() + 1)) <= kEdge;
    setCursor(edge ? Qt::SizeHorCursor : Qt::ArrowCursor);
    return;
  }
  const std::int64_t t = xToTime(std::clamp(x, 0, width()));
  switch (m_drag) {
  case Drag::Move: {
    const std::int64_t start = t - m_grabOffset;
    emit rangeRequested(start, start + (m_range.endNs - m_range.startNs));
    break;
  }
  case Drag::Left: emit rangeRequested(std::min(t, m_range.endNs - 1), m_range.endNs); break;
  case Drag::Right: emit rangeRequested(m_range.startNs, std::max(t, m_range.startNs + 1)); break;
  case Drag::None: break;
  }
}

void TimelineMinimap::mouseReleaseEvent(QMouseEvent* event) {
  if (event->button() == Qt::LeftButton)
    m_drag = Drag::None;
}

}  // namespace fathom::views
