// SPDX-License-Identifier: Apache-2.0
#include "charts/memory_bar.h"

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>

namespace fathom::views {
namespace {

constexpr int kMargin = 2;

}  // namespace

MemoryBar::MemoryBar(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("memoryBar"));
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

void MemoryBar::setSegments(std::vector<Segment> segments, double capacityBytes) {
  m_segments = std::move(segments);
  m_capacity = capacityBytes;
  update();
}

double MemoryBar::total() const {
  double sum = 0;
  for (const Segment& s : m_segments) {
    sum += s.bytes;
  }
  return sum;
}

double MemoryBar::scale() const {
  // The longer of the bar and the capacity fills the width, with room for the capacity mark.
  const double longest = std::max(total(), m_capacity) * 1.05;
  return longest > 0 ? (width() - 2 * kMargin) / longest : 0.0;
}

int MemoryBar::segmentAt(int x) const {
  const double s = scale();
  double left = kMargin;
  for (std::size_t i = 0; i < m_segments.size(); ++i) {
    const double right = left + m_segments[i].bytes * s;
    if (x >= left && x < right) {
      return static_cast<int>(i);
    }
    left = right;
  }
  return -1;
}

QSize MemoryBar::sizeHint() const {
  return {240, 28};
}

QSize MemoryBar::minimumSizeHint() const {
  return {120, 28};
}

void MemoryBar::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing, false);
  const QRect bar = rect().adjusted(kMargin, 5, -kMargin, -5);
  p.fillRect(bar, palette().color(QPalette::AlternateBase));
  p.setPen(palette().color(QPalette::Mid));
  p.drawRect(bar.adjusted(0, 0, -1, -1));
  const double s = scale();
  double left = bar.left();
  for (const Segment& seg : m_segments) {
    const double w = seg.bytes * s;
    if (w >= 0.5) {
      p.fillRect(QRectF(left, bar.top() + 1, w, bar.height() - 2), categoryColor(seg.category));
    }
    left += w;
  }
  if (m_capacity > 0) {
    const double x = bar.left() + m_capacity * s;
    const bool over = total() > m_capacity;
    QPen pen(over ? QColor(0xb3, 0x26, 0x1e) : palette().color(QPalette::Text));
    pen.setWidth(2);
    p.setPen(pen);
    p.drawLine(QPointF(x, 1), QPointF(x, height() - 1));
  }
}

bool MemoryBar::event(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(e);
    const int i = segmentAt(help->pos().x());
    if (i >= 0) {
      QToolTip::showText(help->globalPos(), m_segments[static_cast<std::size_t>(i)].tooltip, this);
    } else {
      QToolTip::hideText();
      e->ignore();
    }
    return true;
  }
  return QWidget::event(e);
}

}  // namespace fathom::views
