// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/store/records.h>

#include <compare>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace fathom::views {

/// Which series: one metric key of one rank of one run.
struct SeriesId {
  std::int64_t run = 0;
  std::string key;
  int rank = 0;

  auto operator<=>(const SeriesId&) const = default;
};

/// The points of one series in arrival order (a rank logs its steps in order; MetricPlot copes when it does not).
struct SeriesPoints {
  std::vector<std::int64_t> step;
  std::vector<double> wallTime;
  std::vector<double> value;

  std::size_t size() const { return step.size(); }
};

/// The metric points a page has read, by series: what the live run page and the comparison page plot. append()
/// takes the rows of an incremental read (store::Workspace::metricsSince) as they come; nothing is read twice.
class MetricSeriesStore {
public:
  void append(const std::vector<store::MetricRow>& rows);
  void clear();

  const SeriesPoints* find(const SeriesId& id) const;
  /// Every metric key held, sorted.
  std::vector<std::string> keys() const;
  /// The series of `key` (of every run and rank), by run then rank.
  std::vector<SeriesId> seriesOf(const std::string& key) const;
  /// The first wall time of each run held (the origin of a "time since start" axis).
  double startTime(std::int64_t run) const;
  std::size_t pointCount() const { return m_points; }

private:
  std::map<SeriesId, SeriesPoints> m_series;
  std::map<std::string, std::set<std::pair<std::int64_t, int>>> m_byKey;
  std::map<std::int64_t, double> m_start;
  std::size_t m_points = 0;
};

}  // namespace fathom::views
