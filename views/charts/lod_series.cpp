// SPDX-License-Identifier: Apache-2.0
#include "charts/lod_series.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fathom::views {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// std::fmin / fmax: a NaN side loses, so a block's extremes are those of its finite values.
std::pair<double, double> merge(std::pair<double, double> a, std::pair<double, double> b) {
  return {std::fmin(a.first, b.first), std::fmax(a.second, b.second)};
}

/// ±inf is no extreme either (it would flatten the plot): only finite values take part.
double finiteOrNaN(double y) {
  return std::isfinite(y) ? y : kNaN;
}

}  // namespace

bool LodSeries::append(double x, double y) {
  if (!m_x.empty() && x < m_x.back()) {
    return false;
  }
  const double value = finiteOrNaN(y);
  const std::size_t i = m_x.size();
  m_x.push_back(x);
  m_y.push_back(y);
  const std::size_t n = i + 1;
  for (std::size_t k = 1; (std::size_t{1} << k) <= n; ++k) {
    if (m_levels.size() < k) {
      // The level's first block completes now (n == 2^k): it merges the two blocks below it.
      m_levels.emplace_back();
      m_levels.back().push_back(k == 1 ? merge({finiteOrNaN(m_y[0]), finiteOrNaN(m_y[0])}, {value, value})
                                       : merge(m_levels[k - 2][0], m_levels[k - 2][1]));
      continue;
    }
    auto& level = m_levels[k - 1];
    const std::size_t block = i >> k;
    if (block == level.size()) {
      level.emplace_back(value, value);
    } else {
      level[block] = merge(level[block], {value, value});
    }
  }
  return true;
}

void LodSeries::clear() {
  m_x.clear();
  m_y.clear();
  m_levels.clear();
}

void LodSeries::reserve(std::size_t points) {
  m_x.reserve(points);
  m_y.reserve(points);
}

std::size_t LodSeries::lowerBound(double value) const {
  return static_cast<std::size_t>(std::lower_bound(m_x.begin(), m_x.end(), value) - m_x.begin());
}

std::size_t LodSeries::upperBound(double value) const {
  return static_cast<std::size_t>(std::upper_bound(m_x.begin(), m_x.end(), value) - m_x.begin());
}

std::size_t LodSeries::nearest(double value) const {
  const std::size_t i = lowerBound(value);
  if (i == 0 || m_x.empty()) {
    return i == 0 && !m_x.empty() ? 0 : m_x.size();
  }
  if (i == m_x.size()) {
    return i - 1;
  }
  return value - m_x[i - 1] <= m_x[i] - value ? i - 1 : i;
}

std::optional<std::pair<double, double>> LodSeries::minMax(std::size_t begin, std::size_t end) const {
  end = std::min(end, m_x.size());
  std::pair<double, double> out{kNaN, kNaN};
  // Greedy: from `begin`, the largest aligned block that fits before `end` (at most two per level).
  while (begin < end) {
    std::size_t k = 0;
    while (k < m_levels.size() && (begin & ((std::size_t{2} << k) - 1)) == 0 && begin + (std::size_t{2} << k) <= end) {
      ++k;
    }
    if (k == 0) {
      const double y = finiteOrNaN(m_y[begin]);
      out = merge(out, {y, y});
      ++begin;
    } else {
      out = merge(out, m_levels[k - 1][begin >> k]);
      begin += std::size_t{1} << k;
    }
  }
  if (std::isnan(out.first)) {
    return std::nullopt;
  }
  return out;
}

double LodSeries::columnEdge(double x0, double x1, int columns, int c) {
  return c >= columns ? x1 : x0 + (x1 - x0) * (static_cast<double>(c) / static_cast<double>(columns));
}

std::vector<LodSeries::Column> LodSeries::decimate(double x0, double x1, int columns) const {
  std::vector<Column> out;
  if (m_x.empty() || columns <= 0 || !(x1 >= x0)) {
    return out;
  }
  std::size_t begin = lowerBound(x0);
  for (int c = 0; c < columns && begin < m_x.size(); ++c) {
    const std::size_t end = c + 1 == columns ? upperBound(x1) : lowerBound(columnEdge(x0, x1, columns, c + 1));
    if (end > begin) {
      Column col;
      col.column = c;
      col.begin = begin;
      col.end = end;
      const auto extremes = minMax(begin, end);
      col.min = extremes ? extremes->first : kNaN;
      col.max = extremes ? extremes->second : kNaN;
      col.first = m_y[begin];
      col.last = m_y[end - 1];
      col.xFirst = m_x[begin];
      col.xLast = m_x[end - 1];
      out.push_back(col);
      begin = end;
    }
  }
  return out;
}

std::vector<std::pair<double, double>> LodSeries::polyline(double x0, double x1, int columns) const {
  std::vector<std::pair<double, double>> out;
  const std::vector<Column> cols = decimate(x0, x1, columns);
  const std::size_t before = lowerBound(x0);
  if (before > 0) {
    out.emplace_back(m_x[before - 1], m_y[before - 1]);
  }
  for (const Column& c : cols) {
    if (c.end - c.begin == 1 || std::isnan(c.min)) {
      out.emplace_back(c.xFirst, c.first);
      continue;
    }
    // Rising columns draw min then max, falling ones max then min: the segment joins its neighbours.
    const bool rising = std::fabs(c.first - c.min) <= std::fabs(c.first - c.max);
    out.emplace_back(c.xFirst, rising ? c.min : c.max);
    out.emplace_back(c.xLast, rising ? c.max : c.min);
  }
  const std::size_t after = upperBound(x1);
  if (after < m_x.size()) {
    out.emplace_back(m_x[after], m_y[after]);
  }
  return out;
}

}  // namespace fathom::views
