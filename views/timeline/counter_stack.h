// SPDX-License-Identifier: Apache-2.0
#pragma once

// A counter chart's series stacked per pixel column (memory by category as stacked areas), Qt-free so the sums are
// tested on their own, and the QPainter code that draws them.

#include "timeline/timeline_layout.h"

#include <fathom/trace/timeline_queries.h>

#include <QColor>
#include <QImage>

#include <cstdint>
#include <vector>

class QPainter;
class QRect;

namespace fathom::views {

/// Per pixel column, the top of each series of a chart's stack.
struct CounterStack {
  int pixels = 0;
  std::size_t series = 0;
  /// tops[s * pixels + c]: the sum of series 0..s at column c. A series' value in a column is its largest sample
  /// there (peak-preserving, as the single-series chart always drew), else the value holding from its last earlier
  /// sample (counterValueAt), else 0 before its first sample.
  std::vector<double> tops;
  double top(std::size_t s, int column) const { return tops[s * static_cast<std::size_t>(pixels) + column]; }
};

/// Fills `out` for `chart` over `range` drawn `pixels` wide: one mergeCounterForPixels per series, O(series x
/// (pixels + columns with samples x log n)). `scratch` is reused across frames.
void stackCounterColumns(const trace::TimelineIndex& index, const CounterChart& chart, trace::TimeRange range,
                         int pixels, CounterStack& out, std::vector<trace::CounterPixel>& scratch);

/// The colour of a chart's series at `position`: distinct for the first 10 (a name's hash collided for 8 memory
/// categories). A counter lists its series in the same order (by name) on every rank, so a memory category has one
/// colour everywhere.
QColor seriesColour(std::size_t position);

/// Draws `stack` into `plot` (x: its columns, y: the chart's bottom..top scale), each series a band in its colour
/// over `background`: every pixel of `plot` is painted. The bands are written as pixels into `image` (reused across
/// frames), then drawn as one image: a zoomed-out chart has a different band in every column of every series, and
/// thousands of 1 px fillRect calls cost far more than writing the same pixels. Returns the bands' rectangles (runs of
/// equal columns), for PaintStats.
int paintCounterStack(QPainter& painter, const QRect& plot, const CounterChart& chart, const CounterStack& stack,
                      const std::vector<QColor>& colours, const QColor& background, QImage& image);

}  // namespace fathom::views
