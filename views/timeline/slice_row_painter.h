// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/trace/timeline_index.h>

#include <QImage>
#include <QRgb>

#include <vector>

class QPainter;
class QRect;

namespace fathom::views {

/// Paints one slice row of the timeline (a lane's depth: the rectangles of trace::mergeForPixels) as one image,
/// instead of one QPainter::fillRect per rectangle. Zoomed out, a row holds a rectangle in nearly every pixel
/// column, and a frame of a 10M-event trace tens of thousands of them: per call, fillRect costs far more than the
/// pixels it writes (state, clipping, span setup; bench_timeline_view measured it as most of the frame), and each
/// slice's colour was converted from HSV anew. Here the row's pixel line is written directly (a rectangle covers whole
/// columns over the row's height, so every line of the row is the same), copied to the row's height and drawn with
/// one drawImage, whose cost is the row's pixels; colours are computed once per name.
///
/// Use: begin(width), fill() each rectangle in column order (a later one covers an earlier one where they share a
/// column, as fillRect would), end(painter, target). Columns no rectangle covers stay transparent.
class SliceRowPainter {
public:
  /// The fill colour of slices named `name`, from the name alone, so that one op has one colour everywhere
  /// (Perfetto's rule); `merged` (a rectangle standing for several slices) is darker, so that a column of many
  /// slices does not read as one long slice. Cached per name: call clearColours() when the names change meaning.
  QRgb colour(trace::NameId name, bool merged);
  void clearColours() { m_colours.clear(); }

  /// Starts a row `width` pixel columns wide, all transparent.
  void begin(int width);
  /// Covers the columns [x0, x1) of the row with `colour` (opaque), clamped to the row.
  void fill(int x0, int x1, QRgb colour);
  /// Draws the row with its left edge at target.left(), target.height() pixel lines high (target.width() is
  /// ignored: the row is `width` wide).
  void end(QPainter& painter, const QRect& target);

private:
  std::vector<QRgb> m_colours;  ///< per name, [2 * name + merged]; 0 (transparent) = not computed yet
  std::vector<QRgb> m_line;     ///< the row's pixel line, premultiplied ARGB
  QImage m_image;               ///< the row, reused (grown, never shrunk) across rows and frames
};

}  // namespace fathom::views
