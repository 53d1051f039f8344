// SPDX-License-Identifier: Apache-2.0
#include "timeline/step_alignment_canvas.h"

#include "timeline/time_coords.h"

#include <QPainter>

#include <algorithm>
#include <cmath>

namespace fathom::views {

StepAlignmentCanvas::StepAlignmentCanvas(QWidget* parent) : QWidget(parent) {
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
}

void StepAlignmentCanvas::setStep(const trace::TimelineIndex* index, const trace::AlignedStep* step) {
  m_index = index;
  m_step = index != nullptr ? step : nullptr;
  updateGeometry();
  update();
}

QSize StepAlignmentCanvas::sizeHint() const {
  const int rows = m_step != nullptr ? static_cast<int>(m_step->ranks.size()) : 2;
  return {640, kRulerHeight + rows * kRowHeight + 4};
}

QSize StepAlignmentCanvas::minimumSizeHint() const {
  return {320, sizeHint().height()};
}

void StepAlignmentCanvas::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  painter.fillRect(rect(), palette().base());
  m_marks.clear();
  if (m_step == nullptr || m_step->ranks.empty()) {
    painter.setPen(palette().color(QPalette::Text));
    painter.drawText(rect(), Qt::AlignCenter, tr("No ProfilerStep spans in this trace"));
    return;
  }
  const int pixels = std::max(1, width() - kHeaderWidth - 8);
  const trace::TimeRange range{m_step->startNs, std::max(m_step->endNs, m_step->startNs + 1)};
  const auto xOf = [&](std::int64_t t) {
    return kHeaderWidth + static_cast<int>(std::lround(timeToPixel(range, pixels, t)));
  };
  // Ruler: time since the earliest rank's start of the step.
  painter.setPen(palette().color(QPalette::WindowText));
  const std::int64_t step = tickStep(range, pixels, 90);
  for (std::int64_t t = 0; range.startNs + t <= range.endNs; t += step) {
    const int x = xOf(range.startNs + t);
    painter.drawLine(x, kRulerHeight - 5, x, kRulerHeight);
    painter.drawText(x + 3, kRulerHeight - 7, formatTime(t, step));
  }
  painter.drawLine(0, kRulerHeight - 1, width(), kRulerHeight - 1);

  const QColor stepColour(0xa9, 0xc8, 0xea);
  const QColor collectiveColour(0x7a, 0x7a, 0x7a);
  const QColor lastColour(0xd0, 0x30, 0x20);
  const auto rowOf = [&](int rank) {
    const auto it = std::find_if(m_step->ranks.begin(), m_step->ranks.end(),
                                 [&](const trace::RankStepSpan& s) { return s.rank == rank; });
    return static_cast<int>(it - m_step->ranks.begin());
  };
  const auto top = [&](int row) { return kRulerHeight + row * kRowHeight; };
  for (std::size_t row = 0; row < m_step->ranks.size(); ++row) {
    const trace::RankStepSpan& span = m_step->ranks[row];
    const int y = top(static_cast<int>(row));
    painter.setPen(palette().color(QPalette::Text));
    painter.drawText(QRect(6, y, kHeaderWidth - 10, kRowHeight), Qt::AlignVCenter | Qt::AlignLeft,
                     tr("rank %1").arg(span.rank));
    const int x0 = xOf(span.startNs);
    painter.fillRect(QRect(x0, y + 4, std::max(1, xOf(span.endNs) - x0), kRowHeight - 8), stepColour);
  }
  // Each collective: every rank's span (thin, grey), a mark at each arrival; the last arrival red, with its lag.
  for (const trace::AlignedCollective& c : m_step->collectives) {
    for (const trace::CollectiveArrival& a : c.ranks) {
      const int y = top(rowOf(a.rank));
      const int x = xOf(a.startNs);
      painter.fillRect(QRect(x, y + kRowHeight / 2 - 2, std::max(1, xOf(a.endNs) - x), 4), collectiveColour);
      const bool last = a.rank == c.lastRank && c.ranks.size() > 1;
      painter.fillRect(QRect(x - 1, y + 2, 3, kRowHeight - 4), last ? lastColour : palette().color(QPalette::Text));
      m_marks.push_back({a.rank, c.ordinal, x, last});
    }
    const auto last = std::find_if(c.ranks.begin(), c.ranks.end(),
                                   [&](const trace::CollectiveArrival& a) { return a.rank == c.lastRank; });
    if (last == c.ranks.end() || c.ranks.size() < 2) {
      continue;
    }
    const int x = xOf(last->startNs);
    QPen dashed(lastColour, 1, Qt::DashLine);
    painter.setPen(dashed);
    painter.drawLine(x, top(0), x, top(static_cast<int>(m_step->ranks.size())));
    painter.setPen(lastColour);
    const int y = top(rowOf(c.lastRank));
    const QString label =
        tr("#%1 +%2").arg(c.ordinal).arg(formatTime(c.lagNs, std::max<std::int64_t>(1, c.lagNs / 100)));
    const int textWidth = painter.fontMetrics().horizontalAdvance(label) + 4;
    // Right of the mark, or left of it where the canvas ends first.
    const QRect box = x + 4 + textWidth <= width() ? QRect(x + 4, y, textWidth, kRowHeight)
                                                   : QRect(x - 4 - textWidth, y, textWidth, kRowHeight);
    painter.fillRect(box.adjusted(0, 4, 0, -4), palette().base());
    painter.drawText(box, Qt::AlignCenter, label);
  }
}

}  // namespace fathom::views
