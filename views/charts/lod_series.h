// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

namespace fathom::views {

/// A plotted series as a level-of-detail structure: the points (x ascending) and, above them, the minimum and the
/// maximum of y over every aligned block of 2, 4, 8, ... points. It is built while the points arrive (append()
/// updates one block per level, O(log n)), and answers "min and max of y over points [begin, end)" in O(log n), so
/// decimating a million points to a few thousand pixel columns costs a few thousand such queries, never a pass over
/// the points. No Qt: a plain data structure, tested against brute force (tests/views/tst_lod_series).
///
/// Invariants: x is non-decreasing (append() refuses a smaller x: the caller rebuilds, see MetricPlot);
/// m_levels[k - 1] holds for block j the min and max of y over points [j * 2^k, (j + 1) * 2^k) that exist; NaN
/// values are kept as points but never become a minimum or a maximum.
class LodSeries {
public:
  /// The points of one pixel column of decimate().
  struct Column {
    int column = 0;           ///< 0 .. columns - 1
    std::size_t begin = 0;    ///< the first point in the column
    std::size_t end = 0;      ///< one past the last
    double min = 0, max = 0;  ///< of the finite values (NaN when the column holds only NaN)
    double first = 0, last = 0;
    double xFirst = 0, xLast = 0;
  };

  /// Appends a point; returns false (and keeps nothing) when `x` is below the last x.
  bool append(double x, double y);
  void clear();
  void reserve(std::size_t points);

  std::size_t size() const { return m_x.size(); }
  bool empty() const { return m_x.empty(); }
  double x(std::size_t i) const { return m_x[i]; }
  double y(std::size_t i) const { return m_y[i]; }
  double frontX() const { return m_x.front(); }
  double backX() const { return m_x.back(); }

  /// The first point with x >= `value` (size() when none).
  std::size_t lowerBound(double value) const;
  /// The first point with x > `value`.
  std::size_t upperBound(double value) const;
  /// The point nearest to x = `value` (size() when empty).
  std::size_t nearest(double value) const;

  /// Min and max of the finite y over points [begin, end); nullopt when there are none.
  std::optional<std::pair<double, double>> minMax(std::size_t begin, std::size_t end) const;

  /// The left edge of column `c` of `columns` columns over [x0, x1]; column c holds the points with
  /// columnEdge(c) <= x < columnEdge(c + 1), the last one also x == x1.
  static double columnEdge(double x0, double x1, int columns, int c);

  /// The non-empty columns of [x0, x1] cut into `columns` equal columns, with the exact min and max of each.
  std::vector<Column> decimate(double x0, double x1, int columns) const;

  /// The line through decimated columns: at most two points per column (its min and max at its first and last x,
  /// in the order the first value suggests), one for a column of one point; plus the points just outside [x0, x1]
  /// so the line runs to the edges. Never more than 2 * columns + 2 points.
  std::vector<std::pair<double, double>> polyline(double x0, double x1, int columns) const;

private:
  std::vector<double> m_x, m_y;
  /// m_levels[k - 1]: (min, max) per block of 2^k points.
  std::vector<std::vector<std::pair<double, double>>> m_levels;
};

}  // namespace fathom::views
