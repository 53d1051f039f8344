// SPDX-License-Identifier: Apache-2.0
#include "timeline/counter_stack.h"

#include <QPainter>
#include <QRect>

#include <algorithm>
#include <cmath>

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

QColor seriesColour(std::size_t position) {
  static const QRgb kPalette[] = {0x4e79a7, 0xf28e2b, 0xe15759, 0x76b7b2, 0x59a14f,
                                  0xedc948, 0xb07aa1, 0xff9da7, 0x9c755f, 0xbab0ac};  // Tableau 10
  return QColor(kPalette[position % std::size(kPalette)]);
}

int paintCounterStack(QPainter& painter, const QRect& plot, const CounterChart& chart, const CounterStack& stack,
                      const std::vector<QColor>& colours, const QColor& background, QImage& image) {
  const double span = chart.top - chart.bottom;
  if (span <= 0 || stack.pixels == 0 || plot.height() <= 0 || stack.series == 0) {
    painter.fillRect(plot, background);
    return 0;
  }
  const int width = std::min(stack.pixels, plot.width());
  if (width < plot.width())  // columns the stack does not cover
    painter.fillRect(plot.adjusted(width, 0, 0, 0), background);
  const int height = plot.height();
  const std::size_t series = stack.series;
  // Each band in pixel rows from the bottom: a value fills the rows below its height, so chart.top fills the row
  // entirely (a constant series fills its row) and chart.bottom leaves it empty.
  const double scale = height / span;
  const auto level = [&](double v) {
    const double f = std::clamp((v - chart.bottom) * scale, 0.0, static_cast<double>(height));
    return static_cast<int>(f + 0.5);
  };
  // levels[c * (series + 1) + s]: the boundary below series s in column c (s = series: the stack's top).
  std::vector<int> levels(static_cast<std::size_t>(width) * (series + 1));
  const int zero = level(0.0);
  int runs = 0;
  for (int c = 0; c < width; ++c) {
    int* l = levels.data() + static_cast<std::size_t>(c) * (series + 1);
    l[0] = zero;
    for (std::size_t s = 0; s < series; ++s) {
      l[s + 1] = level(stack.top(s, c));
      const int* before = c > 0 ? l - (series + 1) : nullptr;
      if (l[s + 1] != l[s] && (!before || before[s] != l[s] || before[s + 1] != l[s + 1]))
        ++runs;  // a new run of this series' band: one rectangle
    }
  }
  const int bottom = plot.bottom() + 1;
  if (runs <= 4 * width / 8) {
    // Few runs (zoomed in: values hold across columns): the background, then the runs as rectangles.
    painter.fillRect(plot, background);
    for (std::size_t s = 0; s < series; ++s) {
      const QColor& colour = colours[s];
      int start = 0;
      for (int c = 1; c <= width; ++c) {
        const int* a = levels.data() + static_cast<std::size_t>(start) * (series + 1);
        const int* b = c < width ? levels.data() + static_cast<std::size_t>(c) * (series + 1) : nullptr;
        if (b && b[s] == a[s] && b[s + 1] == a[s + 1])
          continue;
        if (a[s] != a[s + 1])
          painter.fillRect(plot.left() + start, bottom - std::max(a[s], a[s + 1]), c - start, std::abs(a[s + 1] - a[s]),
                           colour);
        start = c;
      }
    }
    return runs;
  }
  // Many runs (zoomed out: a different band in every column): write the pixels into `image` and draw it once;
  // thousands of 1 px fillRect calls cost far more than writing the same pixels.
  if (image.width() < width || image.height() < height)
    image = QImage(std::max(width, image.width()), std::max(height, image.height()), QImage::Format_RGB32);
  std::vector<QRgb> rgb;
  for (const QColor& c : colours)
    rgb.push_back(c.rgb());
  const QRgb fill = background.rgb();
  // Column by column into a transposed buffer (a column's pixels contiguous, bottom first): the background, then each
  // series' band over it (a later series wins where bands overlap, as painting them in order would), each a fill of
  // contiguous pixels; then the buffer is transposed into the image's rows.
  thread_local std::vector<QRgb> columns;
  columns.resize(static_cast<std::size_t>(width) * static_cast<std::size_t>(height));
  for (int c = 0; c < width; ++c) {
    QRgb* column = columns.data() + static_cast<std::size_t>(c) * static_cast<std::size_t>(height);
    std::fill_n(column, height, fill);
    const int* l = levels.data() + static_cast<std::size_t>(c) * (series + 1);
    for (std::size_t s = 0; s < series; ++s) {
      const int from = std::min(l[s], l[s + 1]);
      std::fill_n(column + from, std::max(l[s], l[s + 1]) - from, rgb[s]);
    }
  }
  for (int r = 0; r < height; ++r) {
    QRgb* line = reinterpret_cast<QRgb*>(image.scanLine(r));
    const QRgb* source = columns.data() + (height - 1 - r);
    for (int c = 0; c < width; ++c, source += height)
      line[c] = *source;
  }
  painter.drawImage(plot.topLeft(), image, QRect(0, 0, width, height));
  return runs;
}

}  // namespace fathom::views
