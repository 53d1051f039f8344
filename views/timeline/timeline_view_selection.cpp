// SPDX-License-Identifier: Apache-2.0
// TimelineView's selection: the slice under a click, the area of a Shift+drag, revealing and fitting them, and the
// geometry its overlays draw from. In a file of its own so that timeline_view.cpp keeps the rows and navigation.
#include "timeline/time_coords.h"
#include "timeline/timeline_overlays.h"
#include "timeline/timeline_view.h"

#include <QPainter>
#include <QScrollBar>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <utility>

namespace fathom::views {

std::optional<trace::SliceRef> TimelineView::sliceAtPos(const QPoint& pos) const {
  const Row* row = m_index ? rowAt(pos.y()) : nullptr;
  const int x = pos.x() - m_options.headerWidth;
  if (!row || row->kind != Row::Kind::Slices || x < 0 || x >= plotWidth())
    return std::nullopt;
  const trace::TimelineLane& lane = m_index->lane(row->item);
  if (row->depth >= lane.depthCount())
    return std::nullopt;
  const std::int64_t t = pixelToTime(m_range, plotWidth(), x);
  const std::int64_t slack = 2 * std::max<std::int64_t>(1, (m_range.endNs - m_range.startNs) / plotWidth());
  const auto slice = trace::sliceAt(lane, row->depth, t, slack);
  if (!slice)
    return std::nullopt;
  return trace::SliceRef{row->item, *slice};
}

std::optional<std::pair<std::uint32_t, std::uint32_t>> TimelineView::instantAtPos(const QPoint& pos) const {
  const Row* row = m_index ? rowAt(pos.y()) : nullptr;
  const int x = pos.x() - m_options.headerWidth;
  if (!row || row->kind != Row::Kind::Slices || row->depth != 0 || x < 0 || x >= plotWidth())
    return std::nullopt;
  if (pos.y() >= rowTopY(*row) + 6)
    return std::nullopt;  // below the markers (paintInstants draws them 5 px tall at the row's top)
  const auto& ts = m_index->lane(row->item).instantTs;
  const std::int64_t lo = pixelToTime(m_range, plotWidth(), x - 3);
  const std::int64_t hi = pixelToTime(m_range, plotWidth(), x + 4);
  // The nearest to the cursor: the first at or after it, or the one before; within the slack.
  const std::int64_t t = pixelToTime(m_range, plotWidth(), x + 0.5);
  const auto after = std::lower_bound(ts.begin(), ts.end(), t);
  auto best = ts.end();
  if (after != ts.end() && *after < hi)
    best = after;
  if (after != ts.begin() && *std::prev(after) >= lo && (best == ts.end() || t - *std::prev(after) <= *best - t))
    best = std::prev(after);
  if (best == ts.end())
    return std::nullopt;
  return std::pair{row->item, static_cast<std::uint32_t>(best - ts.begin())};
}

void TimelineView::selectSlice(std::optional<trace::SliceRef> slice) {
  if (slice &&
      (!m_index || slice->lane >= m_index->lanes().size() || slice->index >= m_index->lane(slice->lane).sliceCount()))
    slice.reset();  // nothing to select: a reference into another index
  if (selectedSlice() == slice)
    return;
  if (slice)
    m_highlight = highlightFor(*m_index, *slice);
  else
    m_highlight.reset();
  viewport()->update();
  emit sliceSelected(slice);
}

std::optional<trace::SliceRef> TimelineView::selectedSlice() const {
  return m_highlight ? std::optional<trace::SliceRef>(m_highlight->slice) : std::nullopt;
}

void TimelineView::revealSlice(trace::SliceRef slice) {
  if (!m_index || slice.lane >= m_index->lanes().size() || slice.index >= m_index->lane(slice.lane).sliceCount())
    return;
  const trace::TimelineLane& lane = m_index->lane(slice.lane);
  const std::int64_t start = lane.start[slice.index];
  const std::int64_t end = lane.end[slice.index];
  const std::int64_t duration = end - start;
  const std::int64_t length = m_range.endNs - m_range.startNs;
  const std::int64_t centre = start + duration / 2;
  const double widthPx = timeToPixel(m_range, plotWidth(), end) - timeToPixel(m_range, plotWidth(), start);
  std::int64_t newLength = length;
  if (duration > length * 8 / 10)
    newLength = duration * 5 / 4;  // longer than the range: zoom out until it fits with a margin
  else if (widthPx < 3)
    newLength = std::max(kMinRangeNs, duration * 10);  // too thin to see: zoom in, a tenth of the plot
  if (newLength != length || start < m_range.startNs || end > m_range.endNs)
    setVisibleRange({centre - newLength / 2, centre - newLength / 2 + newLength});
  // Rows: expand what hides its row (its process, its lane) and scroll it on screen (a pinned lane always is).
  ensureLaneVisible(slice.lane, lane.depthOf(slice.index));
}

void TimelineView::setAreaSelection(trace::TimeRange range, std::vector<std::uint32_t> lanes) {
  std::sort(lanes.begin(), lanes.end());
  lanes.erase(std::unique(lanes.begin(), lanes.end()), lanes.end());
  const std::size_t known = m_index ? m_index->lanes().size() : 0;
  lanes.erase(std::remove_if(lanes.begin(), lanes.end(), [&](std::uint32_t l) { return l >= known; }), lanes.end());
  std::optional<AreaSelection> area;
  if (range.endNs > range.startNs && !lanes.empty())
    area = AreaSelection{range, std::move(lanes)};
  if (area == m_area)
    return;
  m_area = std::move(area);
  viewport()->update();
  emit areaSelected(m_area);
}

void TimelineView::clearAreaSelection() {
  setAreaSelection({}, {});
}

std::vector<std::uint32_t> TimelineView::lanesBetween(int y0, int y1) const {
  // Viewport rows: the pinned ones between the ruler and scrollTop(), the scrolling ones below, each part of the band
  // against its own rows.
  const int top = std::min(y0, y1);
  const int bottom = std::max(y0, y1);
  std::vector<std::uint32_t> lanes;
  for (const Row& r : m_layout.pinnedRows()) {
    const int y = m_options.rulerHeight + r.top;
    if (r.kind == Row::Kind::Slices && y <= bottom && y + r.height > top)
      lanes.push_back(r.item);
  }
  const int scrollingTop = std::max(top, scrollTop());
  if (bottom >= scrollingTop)
    for (const Row& r : m_layout.rowsIn(contentY(scrollingTop), contentY(bottom) + 1))
      if (r.kind == Row::Kind::Slices)
        lanes.push_back(r.item);
  std::sort(lanes.begin(), lanes.end());
  lanes.erase(std::unique(lanes.begin(), lanes.end()), lanes.end());
  return lanes;
}

std::optional<QRectF> TimelineView::sliceRect(trace::SliceRef slice) const {
  if (!m_index)
    return std::nullopt;
  return overlayFrame().sliceRect(slice);
}

void TimelineView::fitSelection() {
  if (!m_index)
    return;
  if (m_area) {
    setVisibleRange(m_area->range);
  } else if (const auto slice = selectedSlice()) {
    const trace::TimelineLane& lane = m_index->lane(slice->lane);
    const std::int64_t margin = std::max<std::int64_t>(1, lane.duration(slice->index) / 10);
    setVisibleRange({lane.start[slice->index] - margin, lane.end[slice->index] + margin});
  } else {
    fit();
  }
}

void TimelineView::clickAt(const QPoint& pos) {
  // One selection at a time, as in Perfetto: a click replaces an area selection (F then fits what was clicked).
  clearAreaSelection();
  selectSlice(sliceAtPos(pos));
}

void TimelineView::updateBox(const QPoint& pos) {
  const int x = std::clamp(pos.x() - m_options.headerWidth, 0, plotWidth());
  const std::int64_t t = pixelToTime(m_range, plotWidth(), x);
  const int viewportStartY = viewportY(m_boxStartY);
  AreaSelection box{{std::min(m_boxStartNs, t), std::max(m_boxStartNs, t)}, lanesBetween(viewportStartY, pos.y())};
  if (box.range.endNs <= box.range.startNs || box.lanes.empty() || (pos - m_pressPos).manhattanLength() < kClickSlop) {
    m_boxPreview.reset();  // a Shift+click, or a box over no lane: nothing
  } else {
    m_boxPreview = std::move(box);
  }
  viewport()->update();
}

OverlayFrame TimelineView::overlayFrame(OverlayRegion region) const {
  OverlayFrame frame;
  frame.index = m_index.get();
  frame.range = m_range;
  const int height = viewport()->height();
  const int top = region == OverlayRegion::Scrolling ? scrollTop() : m_options.rulerHeight;
  const int bottom = region == OverlayRegion::Pinned ? scrollTop() : height;
  frame.plot = QRect(m_options.headerWidth, top, plotWidth(), std::max(0, bottom - top));
  if (!m_index)
    return frame;
  frame.lanes.resize(m_index->lanes().size());
  frame.processes.resize(m_index->processes().size());
  const QFontMetrics metrics = fontMetrics();
  // Overlays need per lane its top, the depth rows shown and the row height; 0 depths: not shown (collapsed process,
  // or a pinned lane in the scrolling region and the other way round).
  const auto add = [&](const Row& r) {
    const int y = rowTopY(r);
    if (r.kind == Row::Kind::Process) {
      // The title is drawn from x = 2 + 12 (paintHeader); its number labels keep clear of it.
      frame.processes[r.item] = {true, y, r.height, 14 + metrics.horizontalAdvance(r.header) + 8};
    } else if (r.kind == Row::Kind::Slices) {
      LaneGeometry& g = frame.lanes[r.item];
      if (g.depths == 0)
        g = {y, 0, r.height};
      g.depths = std::max(g.depths, static_cast<int>(r.depth) + 1);
    }
  };
  if (region != OverlayRegion::Scrolling)
    for (const Row& r : m_layout.pinnedRows())
      add(r);
  if (region != OverlayRegion::Pinned)
    for (const Row& r : m_layout.rows())
      add(r);
  return frame;
}

void TimelineView::paintOverlays(QPainter& painter, OverlayRegion region, bool under) {
  const OverlayFrame frame = overlayFrame(region);
  if (frame.plot.isEmpty())
    return;
  painter.save();
  painter.setClipRect(QRect(0, frame.plot.top(), viewport()->width(), frame.plot.height()));
  if (under) {
    m_stats.stepBands += countStepBands(frame);  // drawn by the rows (paintSlices), under their slices
  } else {
    m_stats.instants += paintInstants(painter, frame, palette());
    m_stats.stepLabels += paintStepLabels(painter, frame, palette());
    if (const auto& area = m_boxing ? m_boxPreview : m_area)
      paintAreaSelection(painter, frame, *area, palette());
    if (m_highlight)
      paintSliceHighlight(painter, frame, *m_highlight, palette());
  }
  painter.restore();
}

}  // namespace fathom::views
