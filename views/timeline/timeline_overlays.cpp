// SPDX-License-Identifier: Apache-2.0
#include "timeline/timeline_overlays.h"

#include "timeline/time_coords.h"

#include <QPainter>
#include <QPalette>
#include <QPolygonF>

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

namespace fathom::views {

namespace {

/// Up to this many arrows are antialiased.
constexpr std::size_t kSmoothArrows = 64;

/// Steps and the selection are drawn in whole pixels inside the plot; coordinates far outside it are clamped first,
/// so that no QRect arithmetic overflows when zoomed in deep on a long trace.
QRectF clampToPlot(const QRectF& r, const QRect& plot, double slack) {
  const QRectF bounds = QRectF(plot).adjusted(-slack, -slack, slack, slack);
  return r.intersected(bounds);
}

/// The processes of each rank: their lanes' vertical extent (a rank's bands cover each of its processes).
struct RankBlock {
  std::optional<int> rank;
  int top = 0;
  int bottom = 0;
  std::uint32_t process = 0;
};

std::vector<RankBlock> rankBlocks(const OverlayFrame& frame) {
  std::vector<RankBlock> blocks;
  const auto& processes = frame.index->processes();
  for (std::uint32_t p = 0; p < processes.size(); ++p) {
    RankBlock b{processes[p].rank, 0, 0, p};
    bool any = false;
    for (const std::uint32_t l : processes[p].lanes) {
      const LaneGeometry& g = frame.lanes[l];
      if (g.depths == 0)
        continue;
      b.top = any ? std::min(b.top, g.top) : g.top;
      b.bottom = any ? std::max(b.bottom, g.bottom()) : g.bottom();
      any = true;
    }
    if (any && b.bottom > frame.plot.top() && b.top < frame.plot.bottom())
      blocks.push_back(b);
  }
  return blocks;
}

/// A slice's outline box in whole pixels: clamped to the plot (a few pixels beyond it, so that an edge off screen is
/// not drawn), at least 3 px wide.
QRect outlineBox(const QRectF& r, const QRect& plot) {
  QRectF box = clampToPlot(r, plot, 3);
  if (box.width() < 3)
    box = QRectF(std::clamp(r.center().x(), plot.left() - 3.0, plot.right() + 3.0) - 1.5, r.top(), 3, r.height());
  return box.toAlignedRect();
}

/// A `width` px outline inside `box` as four solid fills: the raster engine's fastest path (a wide pen's rectangle goes
/// through the stroker).
void outline(QPainter& painter, const QRect& box, const QColor& colour, int width) {
  painter.fillRect(box.left(), box.top(), box.width(), width, colour);
  painter.fillRect(box.left(), box.bottom() - width + 1, box.width(), width, colour);
  painter.fillRect(box.left(), box.top(), width, box.height(), colour);
  painter.fillRect(box.right() - width + 1, box.top(), width, box.height(), colour);
}

void arrowHead(QPainter& painter, const QLineF& line, bool filled, const QColor& colour) {
  const double length = line.length();
  if (length < 1e-6)
    return;
  const QPointF tip = line.p2();
  const QPointF dir = (line.p2() - line.p1()) / length;
  const QPointF normal(-dir.y(), dir.x());
  const double size = 7;
  const QPolygonF head({tip, tip - dir * size + normal * size / 2, tip - dir * size - normal * size / 2});
  painter.setBrush(filled ? QBrush(colour) : QBrush(Qt::NoBrush));
  painter.drawPolygon(head);
}

}  // namespace

double OverlayFrame::x(std::int64_t t) const {
  return plot.left() + timeToPixel(range, plot.width(), t);
}

std::optional<QRectF> OverlayFrame::sliceRect(trace::SliceRef slice) const {
  if (slice.lane >= lanes.size())
    return std::nullopt;
  const LaneGeometry& g = lanes[slice.lane];
  const trace::TimelineLane& lane = index->lane(slice.lane);
  if (slice.index >= lane.sliceCount())
    return std::nullopt;
  const auto depth = static_cast<int>(lane.depthOf(slice.index));
  if (depth >= g.depths)
    return std::nullopt;
  const double x0 = x(lane.start[slice.index]);
  const double x1 = x(lane.end[slice.index]);
  return QRectF(x0, g.top + depth * g.rowHeight, x1 - x0, g.rowHeight);
}

std::optional<QLineF> clipLine(const QLineF& line, const QRectF& rect) {
  double t0 = 0;
  double t1 = 1;
  const double dx = line.dx();
  const double dy = line.dy();
  // Each edge: p * t <= q keeps the point inside.
  const std::pair<double, double> edges[] = {{-dx, line.x1() - rect.left()},
                                             {dx, rect.right() - line.x1()},
                                             {-dy, line.y1() - rect.top()},
                                             {dy, rect.bottom() - line.y1()}};
  for (const auto& [p, q] : edges) {
    if (p == 0) {
      if (q < 0)
        return std::nullopt;  // parallel to the edge and outside it
      continue;
    }
    const double t = q / p;
    if (p < 0)
      t0 = std::max(t0, t);
    else
      t1 = std::min(t1, t);
    if (t0 > t1)
      return std::nullopt;
  }
  return QLineF(line.pointAt(t0), line.pointAt(t1));
}

int paintStepBands(QPainter& painter, const OverlayFrame& frame, const QPalette& palette) {
  int drawn = 0;
  const std::vector<RankBlock> blocks = rankBlocks(frame);
  if (blocks.empty())
    return 0;
  QColor shade = palette.color(QPalette::Text);
  shade.setAlpha(18);
  for (const trace::TimelineStep& step : frame.index->steps()) {
    if (step.number % 2 == 0)
      continue;  // even steps stay on the plain background: bands alternate (a one-step trace still shows its band)
    const trace::TimelineLane& lane = frame.index->lane(step.slice.lane);
    const double x0 = std::max<double>(frame.x(lane.start[step.slice.index]), frame.plot.left());
    const double x1 = std::min<double>(frame.x(lane.end[step.slice.index]), frame.plot.right() + 1);
    if (x1 - x0 < 2)
      continue;
    for (const RankBlock& b : blocks) {
      if (b.rank == step.rank) {
        painter.fillRect(clampToPlot(QRectF(x0, b.top, x1 - x0, b.bottom - b.top), frame.plot, 0), shade);
        ++drawn;
      }
    }
  }
  return drawn;
}

int countStepBands(const OverlayFrame& frame) {
  int bands = 0;
  const std::vector<RankBlock> blocks = rankBlocks(frame);
  if (blocks.empty())
    return 0;
  for (const trace::TimelineStep& step : frame.index->steps()) {
    if (step.number % 2 == 0)
      continue;
    const trace::TimelineLane& lane = frame.index->lane(step.slice.lane);
    const double x0 = std::max<double>(frame.x(lane.start[step.slice.index]), frame.plot.left());
    const double x1 = std::min<double>(frame.x(lane.end[step.slice.index]), frame.plot.right() + 1);
    if (x1 - x0 < 2)
      continue;
    bands += static_cast<int>(
        std::count_if(blocks.begin(), blocks.end(), [&](const RankBlock& b) { return b.rank == step.rank; }));
  }
  return bands;
}

std::vector<StepBandColumns> stepBandColumns(const trace::TimelineIndex& index, trace::TimeRange range, int pixels) {
  std::vector<StepBandColumns> out;
  for (const trace::TimelineStep& step : index.steps()) {
    if (step.number % 2 == 0)
      continue;  // as paintStepBands: even steps stay plain
    const trace::TimelineLane& lane = index.lane(step.slice.lane);
    const double x0 = std::max(timeToPixel(range, pixels, lane.start[step.slice.index]), 0.0);
    const double x1 = std::min(timeToPixel(range, pixels, lane.end[step.slice.index]), static_cast<double>(pixels));
    if (x1 - x0 < 2)
      continue;
    out.push_back({step.rank, static_cast<int>(std::lround(x0)), static_cast<int>(std::lround(x1))});
  }
  return out;
}

QRgb stepBandColour(const QPalette& palette) {
  const QColor base = palette.color(QPalette::Base);
  const QColor text = palette.color(QPalette::Text);
  const auto mix = [](int b, int t) { return b + (t - b) * 18 / 255; };
  return qRgb(mix(base.red(), text.red()), mix(base.green(), text.green()), mix(base.blue(), text.blue()));
}

int paintStepLabels(QPainter& painter, const OverlayFrame& frame, const QPalette& palette) {
  int drawn = 0;
  const auto& processes = frame.index->processes();
  painter.setPen(palette.color(QPalette::Text));
  const QFontMetrics metrics = painter.fontMetrics();
  for (const trace::TimelineStep& step : frame.index->steps()) {
    const trace::TimelineLane& lane = frame.index->lane(step.slice.lane);
    const double x0 = frame.x(lane.start[step.slice.index]);
    const double x1 = frame.x(lane.end[step.slice.index]);
    if (x1 < frame.plot.left() || x0 > frame.plot.right())
      continue;
    const QString text = QLatin1Char('#') + QString::number(step.number);
    const int width = metrics.horizontalAdvance(text) + 6;
    for (std::uint32_t p = 0; p < processes.size(); ++p) {
      const ProcessGeometry& g = frame.processes[p];
      if (!g.shown || processes[p].rank != step.rank || g.top + g.height <= frame.plot.top() ||
          g.top >= frame.plot.bottom())
        continue;
      const double left = std::max({x0, static_cast<double>(g.titleRight), static_cast<double>(frame.plot.left())});
      const double right = std::min(x1, static_cast<double>(frame.plot.right()));
      if (right - left < width)
        continue;
      painter.drawText(QRectF(left, g.top, right - left, g.height), Qt::AlignCenter, text);
      painter.drawLine(QPointF(std::max(x0, left), g.top + g.height - 3), QPointF(right, g.top + g.height - 3));
      ++drawn;
    }
  }
  return drawn;
}

int paintInstants(QPainter& painter, const OverlayFrame& frame, const QPalette& palette) {
  int drawn = 0;
  const int pixels = frame.plot.width();
  painter.setPen(Qt::NoPen);
  QColor marker = palette.color(QPalette::Text);
  marker.setAlpha(140);  // many instants (memory events) in a row must not read as a black bar
  painter.setBrush(marker);
  const auto& lanes = frame.index->lanes();
  for (std::uint32_t l = 0; l < lanes.size(); ++l) {
    const LaneGeometry& g = frame.lanes[l];
    const auto& ts = lanes[l].instantTs;
    if (g.depths == 0 || ts.empty() || g.top + g.rowHeight <= frame.plot.top() || g.top >= frame.plot.bottom())
      continue;
    auto it = std::lower_bound(ts.begin(), ts.end(), frame.range.startNs);
    const auto end = std::lower_bound(it, ts.end(), frame.range.endNs);
    while (it != end) {
      // One marker per column: draw the first instant of the column, then jump to the next column's first.
      const auto column = static_cast<int>(std::floor(timeToPixel(frame.range, pixels, *it)));
      const double x = frame.plot.left() + column + 0.5;
      painter.drawPolygon(QPolygonF({QPointF(x - 3.5, g.top), QPointF(x + 3.5, g.top), QPointF(x, g.top + 5)}));
      ++drawn;
      const std::int64_t next = std::max(pixelToTime(frame.range, pixels, column + 1), *it + 1);
      it = std::lower_bound(it, end, next);
    }
  }
  painter.setBrush(Qt::NoBrush);
  return drawn;
}

void paintSliceHighlight(QPainter& painter, const OverlayFrame& frame, const SliceHighlight& highlight,
                         const QPalette& palette) {
  const QColor ink = palette.color(QPalette::Text);
  const QColor launchedColour(230, 120, 0);
  painter.save();
  painter.setClipRect(frame.plot);
  // The work it launched: outlined, one outline per pixel column of a row (thousands of kernels stay cheap).
  QPoint last(-1, -1);
  for (const trace::SliceRef& k : highlight.launched) {
    const std::optional<QRectF> r = frame.sliceRect(k);
    if (!r || r->right() < frame.plot.left() || r->left() > frame.plot.right() || r->bottom() < frame.plot.top() ||
        r->top() > frame.plot.bottom())
      continue;
    const QRect box = outlineBox(*r, frame.plot);
    if (box.topLeft() == last)
      continue;
    last = box.topLeft();
    outline(painter, box, launchedColour, 2);
  }
  // Flow arrows: from the source slice's start to the target's start, at their rows' centres. An end off screen is
  // pulled to the plot's edge (x and y clamped: the arrow still joins the on-screen end to the side, and as near the
  // row, of the other), drawn dashed; the head is hollow when the target is the end off screen. An arrow whose
  // segment does not cross the plot at all is not drawn, nor one whose ends fall on the pixels of one already drawn
  // (a step's hundreds of launches, zoomed out). Cosmetic 1 px lines: a wide antialiased pen goes through QPainter's
  // stroker, ~0.25 ms an arrow.
  QColor arrowColour = ink;
  arrowColour.setAlpha(220);
  const QRectF plot(frame.plot);
  const QRectF inner = plot.adjusted(1, 1, -1, -1);
  const auto pull = [&](const QPointF& p) {
    return QPointF(std::clamp(p.x(), inner.left(), inner.right()), std::clamp(p.y(), inner.top(), inner.bottom()));
  };
  // Antialiased for a few arrows; a step's hundreds are drawn aliased (~4x cheaper: ~3 ms for 400 instead of ~12).
  painter.setRenderHint(QPainter::Antialiasing, highlight.arrows.size() <= kSmoothArrows);
  std::vector<std::array<int, 4>> drawn;
  drawn.reserve(highlight.arrows.size());
  for (const trace::TimelineFlow& flow : highlight.arrows) {
    const std::optional<QRectF> from = frame.sliceRect(flow.from);
    const std::optional<QRectF> to = frame.sliceRect(flow.to);
    if (!from || !to)
      continue;
    const QLineF full(QPointF(from->left(), from->center().y()), QPointF(to->left(), to->center().y()));
    if (!clipLine(full, plot))
      continue;
    const bool sourceShown = plot.contains(full.p1());
    const bool targetShown = plot.contains(full.p2());
    const QLineF shown(pull(full.p1()), pull(full.p2()));
    const std::array<int, 4> key{static_cast<int>(shown.x1()), static_cast<int>(shown.y1()),
                                 static_cast<int>(shown.x2()), static_cast<int>(shown.y2())};
    if (std::find(drawn.end() - std::min<std::ptrdiff_t>(drawn.size(), 8), drawn.end(), key) != drawn.end())
      continue;  // arrows come by source: duplicates are neighbours
    drawn.push_back(key);
    painter.setPen(QPen(arrowColour, 0, sourceShown && targetShown ? Qt::SolidLine : Qt::DashLine));
    painter.drawLine(shown);
    painter.setPen(QPen(arrowColour, 0));
    if (sourceShown) {
      painter.setBrush(arrowColour);
      painter.drawEllipse(full.p1(), 2, 2);
    }
    arrowHead(painter, shown, targetShown, arrowColour);
  }
  painter.setRenderHint(QPainter::Antialiasing, false);
  // The slice itself, last: a 2 px outline, at least 3 px wide so that a sub-pixel slice still shows.
  if (const std::optional<QRectF> r = frame.sliceRect(highlight.slice)) {
    if (r->right() >= frame.plot.left() && r->left() <= frame.plot.right() + 1)
      outline(painter, outlineBox(*r, frame.plot), ink, 2);
  }
  painter.restore();
}

void paintAreaSelection(QPainter& painter, const OverlayFrame& frame, const AreaSelection& area,
                        const QPalette& palette) {
  const double x0 = std::max(frame.x(area.range.startNs), static_cast<double>(frame.plot.left()));
  const double x1 = std::min(frame.x(area.range.endNs), static_cast<double>(frame.plot.right() + 1));
  if (x1 < x0)
    return;
  QColor fill = palette.color(QPalette::Highlight);
  fill.setAlpha(55);
  painter.save();
  painter.setClipRect(frame.plot);
  for (const std::uint32_t l : area.lanes) {
    if (l >= frame.lanes.size() || frame.lanes[l].depths == 0)
      continue;
    const LaneGeometry& g = frame.lanes[l];
    painter.fillRect(clampToPlot(QRectF(x0, g.top, std::max(1.0, x1 - x0), g.bottom() - g.top), frame.plot, 0), fill);
  }
  painter.setPen(QPen(palette.color(QPalette::Highlight), 1, Qt::DashLine));
  for (const std::int64_t t : {area.range.startNs, area.range.endNs}) {
    const double x = frame.x(t);
    if (x >= frame.plot.left() && x <= frame.plot.right() + 1)
      painter.drawLine(QPointF(x, frame.plot.top()), QPointF(x, frame.plot.bottom()));
  }
  painter.restore();
}

}  // namespace fathom::views
