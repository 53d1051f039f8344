// SPDX-License-Identifier: Apache-2.0
#include "timeline/timeline_layout.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace fathom::views {

TimelineLayout::TimelineLayout(const TimelineLayoutOptions& options) : m_options(options) {}

void TimelineLayout::setIndex(const trace::TimelineIndex* index) {
  m_index = index;
  const std::size_t processes = index ? index->processes().size() : 0;
  const std::size_t lanes = index ? index->lanes().size() : 0;
  m_processOrder.resize(processes);
  std::iota(m_processOrder.begin(), m_processOrder.end(), 0u);
  m_laneOrder.assign(processes, {});
  for (std::size_t p = 0; p < processes; ++p)
    m_laneOrder[p] = index->processes()[p].lanes;
  m_processCollapsed.assign(processes, 0);
  m_laneCollapsed.assign(lanes, 0);
  m_lanePinned.assign(lanes, 0);
  m_pinOrder.clear();
  m_plan.assign(processes, 0);
  computeCharts();
  rebuild();
}

void TimelineLayout::updateIndex(const trace::TimelineIndex* index) {
  const bool same =
      m_index && index && index->processes().size() == m_index->processes().size() &&
      index->lanes().size() == m_index->lanes().size() &&
      std::equal(index->processes().begin(), index->processes().end(), m_index->processes().begin(),
                 [](const trace::TimelineProcess& a, const trace::TimelineProcess& b) { return a.lanes == b.lanes; });
  if (!same) {
    const std::vector<std::uint8_t> plan = m_plan;
    setIndex(index);
    if (index && plan.size() == index->processes().size())
      m_plan = plan;
    rebuild();
    return;
  }
  m_index = index;
  computeCharts();
  rebuild();
}

void TimelineLayout::setPlanProcesses(const std::vector<std::uint32_t>& processes) {
  m_plan.assign(m_index ? m_index->processes().size() : 0, 0);
  for (const std::uint32_t p : processes)
    if (p < m_plan.size())
      m_plan[p] = 1;
  rebuild();
}

void TimelineLayout::computeCharts() {
  m_charts.clear();
  m_processCharts.assign(m_index ? m_index->processes().size() : 0, {});
  if (!m_index)
    return;
  const auto& counters = m_index->counters();
  // A process's counters come by name, then series (TimelineProcess::counters): one chart per run of one name.
  for (std::uint32_t p = 0; p < m_index->processes().size(); ++p) {
    for (const std::uint32_t c : m_index->processes()[p].counters) {
      if (m_processCharts[p].empty() || m_charts[m_processCharts[p].back()].name != counters[c].name) {
        m_processCharts[p].push_back(static_cast<std::uint32_t>(m_charts.size()));
        m_charts.push_back({p, counters[c].name, {}, 0, 0});
      }
      m_charts[m_processCharts[p].back()].series.push_back(c);
    }
  }
  // The stack's extremes over the whole trace: a k-way merge of the series' samples (k is small: the memory
  // categories), summing the values holding at each sample time. O(samples x series), once per index.
  for (CounterChart& chart : m_charts) {
    std::vector<std::size_t> next(chart.series.size(), 0);
    std::vector<double> held(chart.series.size(), 0.0);
    double top = std::numeric_limits<double>::lowest();
    double bottom = std::numeric_limits<double>::max();
    for (;;) {
      std::int64_t t = std::numeric_limits<std::int64_t>::max();
      for (std::size_t s = 0; s < chart.series.size(); ++s) {
        const trace::TimelineCounter& series = counters[chart.series[s]];
        if (next[s] < series.ts.size())
          t = std::min(t, series.ts[next[s]]);
      }
      if (t == std::numeric_limits<std::int64_t>::max())
        break;
      for (std::size_t s = 0; s < chart.series.size(); ++s) {
        const trace::TimelineCounter& series = counters[chart.series[s]];
        while (next[s] < series.ts.size() && series.ts[next[s]] == t)
          held[s] = series.value[next[s]++];
      }
      const double sum = std::accumulate(held.begin(), held.end(), 0.0);
      top = std::max(top, sum);
      bottom = std::min(bottom, sum);
    }
    if (top < bottom)  // no samples
      top = bottom = 0;
    chart.top = std::max(top, 0.0);
    chart.bottom = std::min(bottom, 0.0);
  }
}

QString TimelineLayout::processTitle(std::uint32_t process) const {
  const trace::TimelineProcess& p = m_index->processes().at(process);
  QString title = QString::fromStdString(p.title);
  if (p.rank && !title.contains(QLatin1String("rank")))
    title = tr("rank %1 · %2").arg(*p.rank).arg(title);
  if (!p.labels.empty())
    title += QLatin1String(" (") + QString::fromStdString(p.labels) + u')';
  return title;
}

QString TimelineLayout::laneTitle(std::uint32_t lane) const {
  return QString::fromStdString(m_index->lane(lane).title);
}

void TimelineLayout::appendLaneRows(std::vector<Row>& rows, int& top, std::uint32_t laneId, bool pinned) const {
  const trace::TimelineLane& lane = m_index->lane(laneId);
  const std::uint32_t depths = std::max<std::uint32_t>(1, lane.depthCount());  // an empty lane keeps its header
  const bool collapsed = m_laneCollapsed[laneId] != 0;
  const std::uint32_t shown = collapsed ? 1 : depths;
  QString header = laneTitle(laneId);
  if (pinned) {  // away from its process: say whose it is
    const trace::TimelineProcess& process = m_index->processes()[lane.process];
    header = process.rank ? tr("rank %1 · %2").arg(*process.rank).arg(header)
                          : QString::fromStdString(process.title) + QLatin1String(" · ") + header;
  }
  for (std::uint32_t d = 0; d < shown; ++d) {
    Row row{Row::Kind::Slices, laneId, d, lane.process, top, m_options.rowHeight, d == 0 ? header : QString()};
    row.expandable = d == 0 && depths > 1;
    row.collapsed = collapsed && depths > 1;
    row.pinned = pinned;
    rows.push_back(std::move(row));
    top += m_options.rowHeight;
  }
}

void TimelineLayout::rebuild() {
  m_rows.clear();
  m_pinned.clear();
  int top = 0;
  int pinnedTop = 0;
  if (m_index) {
    for (const std::uint32_t lane : m_pinOrder)
      appendLaneRows(m_pinned, pinnedTop, lane, true);
    for (const std::uint32_t p : m_processOrder) {
      Row header{Row::Kind::Process, p, 0, p, top, m_options.processHeight, processTitle(p)};
      header.expandable = true;
      header.collapsed = m_processCollapsed[p] != 0;
      m_rows.push_back(std::move(header));
      top += m_options.processHeight;
      if (m_processCollapsed[p])
        continue;
      for (const std::uint32_t lane : m_laneOrder[p])
        if (!m_lanePinned[lane])
          appendLaneRows(m_rows, top, lane, false);
      if (hasPlanRow(p)) {
        m_rows.push_back({Row::Kind::Plan, p, 0, p, top, m_options.planHeight, tr("plan (predicted step)")});
        top += m_options.planHeight;
      }
      for (const std::uint32_t c : m_processCharts[p]) {
        const CounterChart& chart = m_charts[c];
        QString title = QString::fromUtf8(m_index->name(chart.name));
        if (chart.series.size() == 1 && !m_index->counters()[chart.series[0]].series.empty())
          title += QLatin1String(": ") + QString::fromStdString(m_index->counters()[chart.series[0]].series);
        // A stacked chart's header lists its series (the legend): one line each.
        const int height = chart.series.size() > 1
                               ? std::max(m_options.counterHeight,
                                          4 + m_options.legendLineHeight * static_cast<int>(chart.series.size() + 1))
                               : m_options.counterHeight;
        m_rows.push_back({Row::Kind::Counter, c, 0, p, top, height, title});
        top += height;
      }
    }
  }
  m_contentHeight = top;
  m_pinnedHeight = pinnedTop;
}

std::span<const TimelineLayout::Row> TimelineLayout::rowsIn(int top, int bottom) const {
  const auto first =
      std::partition_point(m_rows.begin(), m_rows.end(), [&](const Row& r) { return r.top + r.height <= top; });
  const auto last = std::partition_point(first, m_rows.end(), [&](const Row& r) { return r.top < bottom; });
  return {first, last};
}

namespace {
const TimelineLayout::Row* rowIn(const std::vector<TimelineLayout::Row>& rows, int y) {
  const auto it = std::partition_point(rows.begin(), rows.end(),
                                       [&](const TimelineLayout::Row& r) { return r.top + r.height <= y; });
  return it != rows.end() && it->top <= y ? &*it : nullptr;
}
}  // namespace

const TimelineLayout::Row* TimelineLayout::rowAt(int y) const {
  return rowIn(m_rows, y);
}

const TimelineLayout::Row* TimelineLayout::pinnedRowAt(int y) const {
  return rowIn(m_pinned, y);
}

const TimelineLayout::Row* TimelineLayout::findSliceRow(std::uint32_t lane, std::uint32_t depth) const {
  for (const std::vector<Row>* rows : {&m_pinned, &m_rows})
    for (const Row& row : *rows)
      if (row.kind == Row::Kind::Slices && row.item == lane && row.depth == depth)
        return &row;
  return nullptr;
}

void TimelineLayout::setProcessCollapsed(std::uint32_t process, bool collapsed) {
  if ((m_processCollapsed.at(process) != 0) == collapsed)
    return;
  m_processCollapsed[process] = collapsed ? 1 : 0;
  rebuild();
}

void TimelineLayout::setLaneCollapsed(std::uint32_t lane, bool collapsed) {
  if ((m_laneCollapsed.at(lane) != 0) == collapsed)
    return;
  m_laneCollapsed[lane] = collapsed ? 1 : 0;
  rebuild();
}

void TimelineLayout::setLanePinned(std::uint32_t lane, bool pinned) {
  if ((m_lanePinned.at(lane) != 0) == pinned)
    return;
  m_lanePinned[lane] = pinned ? 1 : 0;
  if (pinned)
    m_pinOrder.push_back(lane);
  else
    std::erase(m_pinOrder, lane);
  rebuild();
}

void TimelineLayout::expandToLane(std::uint32_t lane) {
  const std::uint32_t process = m_index->lane(lane).process;
  if (!m_processCollapsed.at(process) && !m_laneCollapsed.at(lane))
    return;
  m_processCollapsed[process] = 0;
  m_laneCollapsed[lane] = 0;
  rebuild();
}

bool TimelineLayout::move(std::vector<std::uint32_t>& order, std::uint32_t item, Move move) {
  const auto it = std::find(order.begin(), order.end(), item);
  if (it == order.end())
    return false;
  const auto at = static_cast<std::size_t>(it - order.begin());
  switch (move) {
  case Move::Up:
    if (at == 0)
      return false;
    std::swap(order[at], order[at - 1]);
    return true;
  case Move::Down:
    if (at + 1 >= order.size())
      return false;
    std::swap(order[at], order[at + 1]);
    return true;
  case Move::ToTop:
    if (at == 0)
      return false;
    std::rotate(order.begin(), it, it + 1);
    return true;
  }
  return false;
}

void TimelineLayout::moveTo(std::vector<std::uint32_t>& order, std::uint32_t item, std::size_t position) {
  const auto it = std::find(order.begin(), order.end(), item);
  if (it == order.end())
    return;
  order.erase(it);
  order.insert(order.begin() + static_cast<std::ptrdiff_t>(std::min(position, order.size())), item);
}

bool TimelineLayout::moveProcess(std::uint32_t process, Move how) {
  if (!move(m_processOrder, process, how))
    return false;
  rebuild();
  return true;
}

bool TimelineLayout::moveLane(std::uint32_t lane, Move how) {
  if (!move(m_laneOrder.at(m_index->lane(lane).process), lane, how))
    return false;
  rebuild();
  return true;
}

void TimelineLayout::moveProcessTo(std::uint32_t process, std::size_t position) {
  moveTo(m_processOrder, process, position);
  rebuild();
}

void TimelineLayout::moveLaneTo(std::uint32_t lane, std::size_t position) {
  moveTo(m_laneOrder.at(m_index->lane(lane).process), lane, position);
  rebuild();
}

}  // namespace fathom::views
