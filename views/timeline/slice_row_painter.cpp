// SPDX-License-Identifier: Apache-2.0
#include "timeline/slice_row_painter.h"

#include <QColor>
#include <QPainter>
#include <QRect>

#include <algorithm>
#include <cstring>

namespace fathom::views {

QRgb SliceRowPainter::colour(trace::NameId name, bool merged) {
  const std::size_t slot = 2 * static_cast<std::size_t>(name) + (merged ? 1 : 0);
  if (slot >= m_colours.size())
    m_colours.resize(std::max(slot + 1, m_colours.size() * 2), 0);
  QRgb& cached = m_colours[slot];
  if (cached == 0) {
    const auto hash = static_cast<std::uint32_t>(name) * 2654435761u;  // Knuth's multiplicative hash
    const QColor base = QColor::fromHsv(static_cast<int>(hash % 360), 110 + static_cast<int>((hash >> 9) % 60), 215);
    cached = (merged ? base.darker(125) : base).rgb();  // opaque: never 0, so "computed" and premultiplied alike
  }
  return cached;
}

void SliceRowPainter::begin(int width) {
  m_line.assign(static_cast<std::size_t>(std::max(0, width)), 0);
}

void SliceRowPainter::fill(int x0, int x1, QRgb colour) {
  const int width = static_cast<int>(m_line.size());
  x0 = std::clamp(x0, 0, width);
  x1 = std::clamp(x1, x0, width);
  std::fill(m_line.begin() + x0, m_line.begin() + x1, colour);
}

void SliceRowPainter::end(QPainter& painter, const QRect& target) {
  const int width = static_cast<int>(m_line.size());
  const int height = target.height();
  if (width == 0 || height <= 0)
    return;
  if (m_image.width() < width || m_image.height() < height)
    m_image = QImage(std::max(width, m_image.width()), std::max(height, m_image.height()),
                     QImage::Format_ARGB32_Premultiplied);
  const std::size_t bytes = m_line.size() * sizeof(QRgb);
  for (int y = 0; y < height; ++y)
    std::memcpy(m_image.scanLine(y), m_line.data(), bytes);
  painter.drawImage(target.topLeft(), m_image, QRect(0, 0, width, height));
}

}  // namespace fathom::views
