// SPDX-License-Identifier: Apache-2.0
#include "charts/metric_series_store.h"

#include <algorithm>

namespace fathom::views {

void MetricSeriesStore::append(const std::vector<store::MetricRow>& rows) {
  for (const store::MetricRow& row : rows) {
    const store::MetricPoint& p = row.point;
    SeriesPoints& s = m_series[SeriesId{row.run.value, p.key, p.rank}];
    if (s.step.empty()) {
      m_byKey[p.key].insert({row.run.value, p.rank});
    }
    s.step.push_back(p.step);
    s.wallTime.push_back(p.wallTime);
    s.value.push_back(p.value);
    auto [start, inserted] = m_start.try_emplace(row.run.value, p.wallTime);
    if (!inserted) {
      start->second = std::min(start->second, p.wallTime);
    }
    ++m_points;
  }
}

void MetricSeriesStore::clear() {
  m_series.clear();
  m_byKey.clear();
  m_start.clear();
  m_points = 0;
}

const SeriesPoints* MetricSeriesStore::find(const SeriesId& id) const {
  const auto it = m_series.find(id);
  return it == m_series.end() ? nullptr : &it->second;
}

std::vector<std::string> MetricSeriesStore::keys() const {
  std::vector<std::string> out;
  out.reserve(m_byKey.size());
  for (const auto& entry : m_byKey) {
    out.push_back(entry.first);
  }
  return out;
}

std::vector<SeriesId> MetricSeriesStore::seriesOf(const std::string& key) const {
  std::vector<SeriesId> out;
  if (const auto it = m_byKey.find(key); it != m_byKey.end()) {
    for (const auto& [run, rank] : it->second) {
      out.push_back({run, key, rank});
    }
  }
  return out;
}

double MetricSeriesStore::startTime(std::int64_t run) const {
  const auto it = m_start.find(run);
  return it == m_start.end() ? 0 : it->second;
}

}  // namespace fathom::views
