// SPDX-License-Identifier: Apache-2.0
#include "timeline/counter_stack.h"

#include <QPainter>
#include <QRect>

#include <algorithm>
#include <cmath>
#include <functional>

namespace fathom::views {

void stackCounterColumns(const trace::TimelineIndex& index, const CounterChart& chart, trace::TimeRange range,
                         int pixels, CounterStack& out, std::vector<trace::CounterPixel>& scratch) {
  out.pixels = std::max(0, pixels);
  out.series = chart.series.size();
  out.tops.assign(out.series * static_cast<std::size_t>(out.pixels), 0.0);
  if (out.pixels == 0)
    return;
  for (std::size_t s = 0; s < chart.series.size(); ++s) {
    const trace::TimelineCounter& counter = index.counters()[chart.series[s]];
    trace::mergeCounterForPixels(counter, range, static_cast<std::uint32_t>(out.pixels), scratch);
    double* tops = out.tops.data() + s * static_cast<std::size_t>(out.pixels);
    const double* below = s == 0 ? nullptr : tops - out.pixels;
    double held = trace::counterValueAt(counter, range.startNs).value_or(0.0);
    auto pixel = scratch.begin();
    for (int c = 0; c < out.pixels; ++c) {
      double value = held;
      if (pixel != scratch.end() && static_cast<int>(pixel->column) == c) {
        value = pixel->max;
        held = pixel->last;
        ++pixel;
      }
      tops[c] = (below ? below[c] : 0.0) + value;
    }
  }
}

QColor seriesColour(const std::string& series, std::size_t position) {
  // A fixed palette (Tableau 10) picked by the name's hash, so a category keeps its colour; the position breaks ties
  // only when there is no name.
  static const QRgb kPalette[] = {0x4e79a7, 0xf28e2b, 0xe15759, 0x76b7b2, 0x59a14f,
                                  0xedc948, 0xb07aa1, 0xff9da7, 0x9c755f, 0xbab0ac};
  const std::size_t hash = series.empty() ? position : std::hash<std::string>{}(series);
  return QColor(kPalette[hash % std::size(kPalette)]);
}

int paintCounterStack(QPainter& painter, const QRect& plot, const CounterChart& chart, const CounterStack& stack,
                      const std::vector<QColor>& colours) {
  const double span = chart.top - chart.bottom;
  if (span <= 0 || stack.pixels == 0)
    return 0;
  // y of a value: bottom of the plot at chart.bottom, its top at chart.top (a constant series fills the row).
  const auto y = [&](double v) {
    const double f = std::clamp((v - chart.bottom) / span, 0.0, 1.0);
    return plot.bottom() + 1 - static_cast<int>(std::lround(f * plot.height()));
  };
  const int zero = y(0.0);
  int rectangles = 0;
  for (std::size_t s = 0; s < stack.series; ++s) {
    const QColor& colour = colours[s];
    // Runs of columns with the same band [lo, hi) become one rectangle: a held value is one rectangle, not one per
    // column, so a chart fills at most one rectangle per column and series.
    int runStart = 0;
    int runLo = 0;
    int runHi = 0;
    const auto flush = [&](int end) {
      if (end > runStart && runHi != runLo) {
        painter.fillRect(plot.left() + runStart, std::min(runLo, runHi), end - runStart, std::abs(runHi - runLo),
                         colour);
        ++rectangles;
      }
    };
    for (int c = 0; c < stack.pixels; ++c) {
      const int hi = y(stack.top(s, c));
      const int lo = s == 0 ? zero : y(stack.top(s - 1, c));
      if (c == 0 || hi != runHi || lo != runLo) {
        flush(c);
        runStart = c;
        runLo = lo;
        runHi = hi;
      }
    }
    flush(stack.pixels);
  }
  return rectangles;
}

}  // namespace fathom::views
