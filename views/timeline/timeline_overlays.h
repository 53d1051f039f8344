// SPDX-License-Identifier: Apache-2.0
#pragma once

// What the timeline draws over (and under) its slice rows: ProfilerStep#N bands and their numbers, instant events,
// the selected slice with its flow arrows and launched work, and the area selection. Free functions over one frame's
// geometry (OverlayFrame), so that TimelineView keeps only its rows and navigation; each costs O(visible pixels) or
// O(what is selected), never O(events).

#include "timeline/timeline_selection.h"

#include <fathom/trace/timeline_index.h>

#include <QColor>
#include <QLineF>
#include <QRect>
#include <QRectF>

#include <cstdint>
#include <optional>
#include <vector>

class QPainter;
class QPalette;

namespace fathom::views {

/// Where one lane's rows are in a frame (viewport coordinates; they may lie off screen).
struct LaneGeometry {
  int top = 0;        ///< the top of its first depth row
  int depths = 0;     ///< depth rows shown; 0: the lane is not shown
  int rowHeight = 0;  ///< the height of one depth row
  int bottom() const { return top + depths * rowHeight; }
};

/// Where one process's header row is in a frame.
struct ProcessGeometry {
  bool shown = false;
  int top = 0;
  int height = 0;
  int titleRight = 0;  ///< the x where its title's text ends: step numbers start right of it
};

/// One frame's geometry, built by the view from its rows.
struct OverlayFrame {
  const trace::TimelineIndex* index = nullptr;
  trace::TimeRange range;
  QRect plot;                       ///< the plot in viewport coordinates: right of the header column, below the ruler
  std::vector<LaneGeometry> lanes;  ///< per lane id
  std::vector<ProcessGeometry> processes;  ///< per process id

  /// The x of time `t` in viewport coordinates (may lie far outside the plot).
  double x(std::int64_t t) const;
  /// The rectangle of `slice` (unclipped), or nullopt when its lane or depth is not shown.
  std::optional<QRectF> sliceRect(trace::SliceRef slice) const;
};

/// Faint alternating bands, one per odd ProfilerStep#N, across the lanes of the step's rank (each of its processes).
/// Drawn first: slices paint over them. Steps narrower than 2 px are skipped (they would only be noise). Returns the
/// bands drawn (one per step and process).
int paintStepBands(QPainter& painter, const OverlayFrame& frame, const QPalette& palette);
/// The bands paintStepBands would draw, without drawing them (TimelineView bakes them into its rows' backgrounds).
int countStepBands(const OverlayFrame& frame);
/// The pixel columns [x0, x1) of the plot (0 = its left edge) of each band paintStepBands draws, with its rank.
struct StepBandColumns {
  std::optional<int> rank;
  int x0 = 0;
  int x1 = 0;
};
std::vector<StepBandColumns> stepBandColumns(const trace::TimelineIndex& index, trace::TimeRange range, int pixels);
/// The band's colour over `base`: the text colour at 18 / 255 over it (what paintStepBands blends).
QRgb stepBandColour(const QPalette& palette);
/// Each step's number ("#N") in its rank's process header rows, where the band is wide enough and clear of the title.
/// Returns the labels drawn.
int paintStepLabels(QPainter& painter, const OverlayFrame& frame, const QPalette& palette);
/// Instant events (ph i) as small markers at the top of their lane, at most one per pixel column and lane (a binary
/// search per marker). Returns the markers drawn.
int paintInstants(QPainter& painter, const OverlayFrame& frame, const QPalette& palette);
/// The selected slice's outline, the work it launched outlined, and its flow arrows (an end off screen is pulled to the
/// plot's edge and the arrow dashed, its head hollow when the target is off screen).
void paintSliceHighlight(QPainter& painter, const OverlayFrame& frame, const SliceHighlight& highlight,
                         const QPalette& palette);
/// The area selection: a translucent box over each selected lane's rows for its range, and its two edges across the
/// plot.
void paintAreaSelection(QPainter& painter, const OverlayFrame& frame, const AreaSelection& area,
                        const QPalette& palette);

/// The part of the segment a-b inside `rect` (Liang-Barsky), or nullopt when none is.
std::optional<QLineF> clipLine(const QLineF& line, const QRectF& rect);

}  // namespace fathom::views
