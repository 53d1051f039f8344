// SPDX-License-Identifier: Apache-2.0
// TimelineView's painting (a frame: the rows on screen, pinned first, their overlays, the ruler); the view's state and
// API are in timeline_view.cpp, its input in timeline_view_input.cpp, its selection in timeline_view_selection.cpp.
#include "timeline/timeline_view.h"

#include "timeline/plan_lane_painter.h"
#include "timeline/time_coords.h"
#include "timeline/timeline_overlays.h"

#include <QElapsedTimer>
#include <QPainter>
#include <QScrollBar>

#include <algorithm>
#include <cmath>

namespace fathom::views {

void TimelineView::paintEvent(QPaintEvent*) {
  QElapsedTimer timer;
  timer.start();
  QPainter painter(viewport());
  m_stats = {};
  m_planLanes->beginFrame();
  const int pixels = plotWidth();
  m_stats.pixels = pixels;
  m_bands.clear();
  if (m_index) {
    m_bands = stepBandColumns(*m_index, m_range, pixels);  // O(steps), once per frame
    m_bandColour = stepBandColour(palette());
  }
  if (!m_index) {
    painter.fillRect(viewport()->rect(), palette().base());
    const QString text = !m_error.isEmpty() ? m_error : isLoading() ? QString() : tr("No trace loaded");
    painter.setPen(palette().color(QPalette::Text));
    painter.drawText(viewport()->rect().adjusted(16, m_options.rulerHeight, -16, -16),
                     Qt::AlignCenter | Qt::TextWordWrap, text);
    return;
  }
  const int scroll = verticalScrollBar()->value();
  const int bottom = viewport()->height();
  const int top = scrollTop();
  // Only rows on screen are queried and painted: the layout finds them by binary search (rows are sorted by top), so
  // a frame costs O(rows on screen x pixels), whatever the number of lanes.
  painter.setClipRect(0, top, viewport()->width(), std::max(0, bottom - top));
  // Each row fills its own background (a zoomed-out row's plot is an image: filling under it too would write its
  // pixels twice, and fills are memory-bound); below the last row, the base colour.
  for (const Row& row : m_layout.rowsIn(scroll, scroll + bottom - top))
    paintRow(painter, row, top + row.top - scroll, pixels);
  if (const int end = top + m_layout.contentHeight() - scroll; end < bottom)
    painter.fillRect(0, std::max(end, top), viewport()->width(), bottom - std::max(end, top), palette().base());
  paintOverlays(painter, OverlayRegion::Scrolling, true);
  paintOverlays(painter, OverlayRegion::Scrolling, false);
  // Pinned rows last, over the scrolled ones, between the ruler and the scrolling rows.
  if (!m_layout.pinnedRows().empty()) {
    painter.setClipRect(0, m_options.rulerHeight, viewport()->width(), m_layout.pinnedHeight());
    painter.fillRect(0, m_options.rulerHeight, viewport()->width(), m_layout.pinnedHeight(), palette().base());
    for (const Row& row : m_layout.pinnedRows())
      paintRow(painter, row, m_options.rulerHeight + row.top, pixels);
    paintOverlays(painter, OverlayRegion::Pinned, true);
    paintOverlays(painter, OverlayRegion::Pinned, false);
    painter.setClipping(false);
    painter.setPen(palette().color(QPalette::Mid));
    painter.drawLine(0, top - 1, viewport()->width(), top - 1);
  }
  painter.setClipping(false);
  paintRuler(painter, pixels);
  if (m_headerDragging && m_headerPress && !m_headerPress->pinned) {
    // Where a dragged header would land (headerDropped's rule): a line over the sibling under the cursor.
    const Row* target = rowAt(m_headerDragY);
    const Row* sibling = nullptr;
    if (target && !target->pinned && m_headerPress->kind == Row::Kind::Process) {
      const auto& rows = m_layout.rows();
      const auto it = std::find_if(rows.begin(), rows.end(), [&](const Row& r) {
        return r.kind == Row::Kind::Process && r.item == target->process;
      });
      sibling = it != rows.end() ? &*it : nullptr;
    } else if (target && !target->pinned && target->kind == Row::Kind::Slices &&
               target->process == m_headerPress->process) {
      sibling = m_layout.findSliceRow(target->item, 0);
    }
    if (sibling)
      painter.fillRect(0, rowTopY(*sibling) - 1, viewport()->width(), 2, palette().color(QPalette::Highlight));
  }
  m_stats.milliseconds = static_cast<double>(timer.nsecsElapsed()) / 1e6;
}

void TimelineView::paintRow(QPainter& painter, const Row& row, int y, int pixels) {
  switch (row.kind) {
  case Row::Kind::Process: painter.fillRect(0, y, viewport()->width(), row.height, palette().alternateBase()); break;
  case Row::Kind::Slices: paintSlices(painter, row, y, pixels); break;
  case Row::Kind::Counter: paintCounter(painter, row, y, pixels); break;
  case Row::Kind::Plan:
    painter.fillRect(0, y, viewport()->width(), row.height, palette().base());
    m_planLanes->paint(painter, row.item, m_range, m_options.headerWidth, pixels, y, m_options.rowHeight);
    break;
  }
  paintHeader(painter, row, y);
}

void TimelineView::paintHeader(QPainter& painter, const Row& row, int y) {
  if (row.header.isEmpty())
    return;
  // A disclosure triangle for what collapses (pointing right when collapsed), then the title, indented per level.
  const int indent = row.kind == Row::Kind::Process ? 2 : 10;
  const int width = (row.kind == Row::Kind::Process ? viewport()->width() : m_options.headerWidth) - indent - 16;
  const int lineHeight = row.kind == Row::Kind::Counter && m_layout.charts()[row.item].series.size() > 1
                             ? m_layout.options().legendLineHeight
                             : row.height;
  if (row.expandable) {
    const int cx = indent + 5;
    const int cy = y + std::min(row.height, m_options.rowHeight) / 2;
    const QPolygon triangle = row.collapsed
                                  ? QPolygon({QPoint(cx - 2, cy - 4), QPoint(cx + 2, cy), QPoint(cx - 2, cy + 4)})
                                  : QPolygon({QPoint(cx - 4, cy - 2), QPoint(cx + 4, cy - 2), QPoint(cx, cy + 2)});
    painter.setPen(Qt::NoPen);
    painter.setBrush(palette().color(QPalette::Text));
    painter.drawPolygon(triangle);
    painter.setBrush(Qt::NoBrush);
  }
  painter.setPen(palette().color(QPalette::Text));
  const QRect text(indent + 12, y, width, lineHeight);
  painter.drawText(text, Qt::AlignVCenter | Qt::AlignLeft,
                   painter.fontMetrics().elidedText(row.header, Qt::ElideRight, text.width()));
  if (row.kind != Row::Kind::Counter || lineHeight == row.height)
    return;
  // A stacked chart's legend: one line per series, top of the stack first, with its colour.
  const CounterChart& chart = m_layout.charts()[row.item];
  int line = y + lineHeight;
  for (std::size_t i = chart.series.size(); i-- > 0; line += lineHeight) {
    painter.fillRect(indent + 12, line + 2, 8, lineHeight - 4, m_chartColours[row.item][i]);
    painter.setPen(palette().color(QPalette::Text));
    painter.drawText(
        QRect(indent + 24, line, width - 12, lineHeight), Qt::AlignVCenter | Qt::AlignLeft,
        painter.fontMetrics().elidedText(QString::fromStdString(m_index->counters()[chart.series[i]].series),
                                         Qt::ElideRight, width - 12));
  }
}

void TimelineView::paintSlices(QPainter& painter, const Row& row, int y, int pixels) {
  const trace::TimelineLane& lane = m_index->lane(row.item);
  const int left = m_options.headerWidth;
  ++m_stats.rows;
  if (row.depth >= lane.depthCount()) {
    painter.fillRect(0, y, viewport()->width(), row.height, palette().base());
    fillBands(painter, row, y, row.height, false);
    return;
  }
  trace::mergeForPixels(lane, row.depth, m_range, static_cast<std::uint32_t>(pixels), m_merged);
  // Zoomed out, a row is a rectangle in almost every pixel column: its columns are written into one line of pixels
  // and drawn as one image (a fillRect call per column cost more than the queries at 10M events). Zoomed in, touching
  // rectangles of one colour are filled as one. Names are drawn last, over either.
  const bool asImage = m_merged.size() > kRowImageRectangles;
  if (asImage) {
    m_rowLine.assign(static_cast<std::size_t>(pixels), palette().color(QPalette::Base).rgb());
    fillAround(painter, QRect(left, y + 1, pixels, row.height - 2), y, row.height);
    fillBands(painter, row, y, row.height, true);
  } else {
    painter.fillRect(0, y, viewport()->width(), row.height, palette().base());
    fillBands(painter, row, y, row.height, false);
  }
  m_labels.clear();
  QRect run;
  QRgb runColour = 0;
  for (const trace::MergedSlice& slice : m_merged) {
    const int x0 = static_cast<int>(slice.column);
    const int x1 = std::clamp(static_cast<int>(std::ceil(timeToPixel(m_range, pixels, slice.endNs))), x0 + 1, pixels);
    const QRgb colour = m_nameColours[2 * std::size_t{lane.name[slice.longest]} + (slice.count > 1 ? 1 : 0)];
    ++m_stats.rectangles;
    if (x1 - x0 >= m_options.minLabelWidth)
      m_labels.push_back({x0, x1, lane.name[slice.longest]});
    if (asImage) {
      std::fill(m_rowLine.begin() + x0, m_rowLine.begin() + x1, colour);
      continue;
    }
    const QRect rect(left + x0, y + 1, x1 - x0, row.height - 2);
    if (!run.isEmpty() && colour == runColour && rect.left() <= run.right() + 1) {
      run.setRight(std::max(run.right(), rect.right()));
    } else {
      if (!run.isEmpty())
        painter.fillRect(run, QColor(runColour));
      run = rect;
      runColour = colour;
    }
  }
  if (!run.isEmpty())
    painter.fillRect(run, QColor(runColour));
  if (asImage) {
    const int h = row.height - 2;
    if (m_rowImage.width() < pixels || m_rowImage.height() < h)
      m_rowImage = QImage(std::max(pixels, m_rowImage.width()), std::max(h, m_rowImage.height()), QImage::Format_RGB32);
    for (int line = 0; line < h; ++line)
      std::copy(m_rowLine.begin(), m_rowLine.end(), reinterpret_cast<QRgb*>(m_rowImage.scanLine(line)));
    painter.drawImage(QPoint(left, y + 1), m_rowImage, QRect(0, 0, pixels, h));
  }
  painter.setPen(Qt::black);
  for (const Label& label : m_labels) {
    const QRect rect(left + label.x0, y + 1, label.x1 - label.x0, row.height - 2);
    painter.drawText(rect.adjusted(2, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft,
                     painter.fontMetrics().elidedText(QString::fromUtf8(m_index->name(label.name)), Qt::ElideRight,
                                                      rect.width() - 4));
    ++m_stats.labels;
  }
  if (!m_matchesByLane.empty() && !m_matchesByLane[row.item].empty())
    paintMatches(painter, row.item, row.depth, y, row.height, pixels);
}

void TimelineView::fillBands(QPainter& painter, const Row& row, int y, int height, bool line) {
  if (m_bands.empty())
    return;
  const std::optional<int> rank = m_index->processes()[row.process].rank;
  const int left = m_options.headerWidth;
  for (const StepBandColumns& band : m_bands) {
    if (band.rank != rank)
      continue;
    if (line) {  // the image's line, and the pixel row above and below it that fillAround painted
      std::fill(m_rowLine.begin() + band.x0, m_rowLine.begin() + band.x1, m_bandColour);
      painter.fillRect(left + band.x0, y, band.x1 - band.x0, 1, QColor(m_bandColour));
      painter.fillRect(left + band.x0, y + height - 1, band.x1 - band.x0, 1, QColor(m_bandColour));
    } else {
      painter.fillRect(left + band.x0, y, band.x1 - band.x0, height, QColor(m_bandColour));
    }
  }
}

void TimelineView::paintMatches(QPainter& painter, std::uint32_t laneId, std::uint32_t depth, int y, int height,
                                int pixels) {
  const trace::TimelineLane& lane = m_index->lane(laneId);
  const std::vector<std::uint32_t>& matches = m_matchesByLane[laneId];
  // The visible window of this depth, then its matches: indices in [begin, end) are in start order, so two binary
  // searches find them; after outlining a match, the next one drawn is the first starting in a later pixel column
  // (another binary search), so a row outlines at most one match per column, whatever the matches.
  const trace::SliceWindow window = trace::visibleSlices(lane, depth, m_range);
  auto it = std::lower_bound(matches.begin(), matches.end(), window.begin);
  const auto last = std::lower_bound(it, matches.end(), window.end);
  const int left = m_options.headerWidth;
  painter.setBrush(Qt::NoBrush);
  painter.setPen(QPen(QColor(255, 214, 0), 1));
  while (it != last) {
    const std::uint32_t i = *it;
    const int x0 = std::max(0, static_cast<int>(std::floor(timeToPixel(m_range, pixels, lane.start[i]))));
    const int x1 = std::clamp(static_cast<int>(std::ceil(timeToPixel(m_range, pixels, lane.end[i]))), x0 + 1, pixels);
    painter.drawRect(left + x0, y, x1 - x0 - 1, height - 1);
    ++m_stats.matchOutlines;
    // Galloping from here, not bisecting the rest: the next column's match is near, and each probe reads the lane's
    // start array at a match's index (a cache miss at millions of matches).
    const std::int64_t next = pixelToTime(m_range, pixels, x1);
    const auto before = [&](std::uint32_t j) { return lane.start[j] < next; };
    auto lo = it + 1;
    std::ptrdiff_t step = 1;
    while (step < last - lo && before(lo[step])) {
      lo += step;
      step *= 2;
    }
    it = std::partition_point(lo, lo + std::min(step + 1, last - lo), before);
  }
  if (m_currentMatch && m_currentMatch->lane == laneId && lane.depthOf(m_currentMatch->index) == depth) {
    const std::uint32_t i = m_currentMatch->index;
    if (lane.end[i] >= m_range.startNs && lane.start[i] <= m_range.endNs) {
      const int x0 = std::max(0, static_cast<int>(std::floor(timeToPixel(m_range, pixels, lane.start[i]))));
      const int x1 = std::clamp(static_cast<int>(std::ceil(timeToPixel(m_range, pixels, lane.end[i]))), x0 + 2, pixels);
      painter.setPen(QPen(QColor(255, 128, 0), 2));
      painter.drawRect(left + x0 + 1, y + 1, x1 - x0 - 2, height - 2);
    }
  }
}

void TimelineView::paintCounter(QPainter& painter, const Row& row, int y, int pixels) {
  const CounterChart& chart = m_layout.charts()[row.item];
  m_stats.rows += static_cast<int>(chart.series.size());
  stackCounterColumns(*m_index, chart, m_range, pixels, m_stack, m_counterPixels);
  const QRect plot(m_options.headerWidth, y + 2, pixels, row.height - 4);
  fillAround(painter, plot, y, row.height);  // paintCounterStack paints all of the plot
  m_stats.rectangles += paintCounterStack(painter, plot, chart, m_stack, m_chartColours[row.item],
                                          palette().color(QPalette::Base), m_chartImage);
}

void TimelineView::fillAround(QPainter& painter, const QRect& plot, int y, int height) {
  const QBrush base = palette().base();
  painter.fillRect(0, y, plot.left(), height, base);                                          // the header column
  painter.fillRect(plot.left(), y, viewport()->width() - plot.left(), plot.top() - y, base);  // above the plot
  painter.fillRect(plot.left(), plot.bottom() + 1, viewport()->width() - plot.left(), y + height - plot.bottom() - 1,
                   base);  // below it
  painter.fillRect(plot.right() + 1, plot.top(), viewport()->width() - plot.right() - 1, plot.height(), base);
}

void TimelineView::paintRuler(QPainter& painter, int pixels) {
  const int left = m_options.headerWidth;
  const int h = m_options.rulerHeight;
  painter.fillRect(0, 0, viewport()->width(), h, palette().window());
  painter.setPen(palette().color(QPalette::WindowText));
  const std::int64_t step = tickStep(m_range, pixels, 100);
  const std::int64_t origin = m_timeMode == TimeMode::SinceTraceStart ? m_index->data().startNs : 0;
  const std::int64_t length = m_range.endNs - m_range.startNs;
  painter.drawText(QRect(4, 0, left - 8, h), Qt::AlignVCenter | Qt::AlignLeft,
                   m_timeMode == TimeMode::SinceTraceStart
                       ? tr("since start, %1 shown").arg(formatTime(length, length))
                       : tr("trace clock, %1 shown").arg(formatTime(length, length)));
  // Ticks at multiples of `step` in the displayed clock.
  const std::int64_t firstShown = m_range.startNs - origin;
  std::int64_t tick = (firstShown >= 0 ? (firstShown + step - 1) / step : -((-firstShown) / step)) * step;
  for (; tick + origin <= m_range.endNs; tick += step) {
    const int x = left + static_cast<int>(std::lround(timeToPixel(m_range, pixels, tick + origin)));
    painter.drawLine(x, h - 6, x, h);
    painter.drawText(x + 3, h - 8, formatTime(tick, step));
  }
  painter.drawLine(0, h - 1, viewport()->width(), h - 1);
}

}  // namespace fathom::views
