// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/trace/timeline_index.h>

#include <QCoreApplication>
#include <QString>

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace fathom::views {

/// One counter chart: the series of one counter name in one process, stacked bottom to top in the index's order
/// (Kineto's and Fathom's `Memory` has one series per memory category; most counters have one series).
struct CounterChart {
  std::uint32_t process = 0;
  trace::NameId name = trace::kNoName;
  std::vector<std::uint32_t> series;  ///< indices in TimelineIndex::counters(), stacking order
  /// The chart's scale, over the whole trace (computed once, so that it does not jump while panning): the largest sum
  /// of the series' values at any sample time, and the smallest (below 0 only for negative values). A constant series
  /// has top == its value and fills its row.
  double top = 0;
  double bottom = 0;
};

struct TimelineLayoutOptions {
  int rowHeight = 16;         ///< one depth of a lane
  int counterHeight = 40;     ///< one counter chart
  int processHeight = 20;     ///< a process's header row
  int legendLineHeight = 12;  ///< a stacked chart is at least one legend line per series (plus 4 px) high
  int planHeight = 32;        ///< a plan row: the critical path and the communication stream, a rowHeight each
};

/// Where the timeline's rows go, and the user's arrangement of them (Qt-free but for QString headers, so it is tested
/// without a widget): processes in order, each a header row, then its lanes (one row per depth; a lane's first row
/// carries its header), then its counter charts. A collapsed process shows its header row only; a collapsed lane shows
/// its depth 0 only. A process given a plan (setPlanProcesses) has a plan row after its lanes, before its charts; it
/// collapses with the process. Processes reorder among themselves and lanes within their process. A pinned lane's rows
/// leave the scrolling rows for the pinned rows, which the view draws at the top, below the ruler, whatever the scroll.
///
/// Invariants: rows() and pinnedRows() are each sorted by top, contiguous from 0 (row i + 1 starts where row i ends),
/// so the rows meeting a band of pixels are two binary searches (rowsIn). They are rebuilt on every change of the
/// arrangement (O(rows)); the counter charts' scales are computed once per index (O(samples x series)).
class TimelineLayout {
  Q_DECLARE_TR_FUNCTIONS(TimelineLayout)

public:
  struct Row {
    enum class Kind { Process, Slices, Counter, Plan } kind = Kind::Process;
    std::uint32_t item = 0;  ///< the process, the lane, the chart (index in charts()), or (Plan) the process
    std::uint32_t depth = 0;
    std::uint32_t process = 0;  ///< the process it belongs to
    int top = 0;                ///< content coordinates: from the top of the scrolling (or the pinned) rows
    int height = 0;
    QString header;           ///< the process's, the lane's (on its first row) or the chart's title; else empty
    bool expandable = false;  ///< a process header, or the first row of a lane with more than one depth
    bool collapsed = false;
    bool pinned = false;
  };
  enum class Move { Up, Down, ToTop };

  explicit TimelineLayout(const TimelineLayoutOptions& options = {});

  /// Lays out `index` (nullptr: no rows), everything expanded, unpinned, in the index's order.
  void setIndex(const trace::TimelineIndex* index);
  /// Lays out a newer index of the same trace (a live run's that grew): when it has the same processes and lanes, the
  /// arrangement (order, collapse, pins, plan rows) stays; otherwise as setIndex().
  void updateIndex(const trace::TimelineIndex* index);
  /// The processes that get a plan row (the planner's predicted step, PlanLanePainter); empty: none.
  void setPlanProcesses(const std::vector<std::uint32_t>& processes);
  bool hasPlanRow(std::uint32_t process) const { return process < m_plan.size() && m_plan[process] != 0; }
  const trace::TimelineIndex* index() const { return m_index; }
  const TimelineLayoutOptions& options() const { return m_options; }

  const std::vector<Row>& rows() const { return m_rows; }
  const std::vector<Row>& pinnedRows() const { return m_pinned; }
  int contentHeight() const { return m_contentHeight; }
  int pinnedHeight() const { return m_pinnedHeight; }
  /// The scrolling rows that meet [top, bottom) in content coordinates (two binary searches).
  std::span<const Row> rowsIn(int top, int bottom) const;
  /// The scrolling row at content y, or nullptr.
  const Row* rowAt(int y) const;
  /// The pinned row at y (from the top of the pinned rows), or nullptr.
  const Row* pinnedRowAt(int y) const;
  /// The row showing `lane`'s `depth` (scrolling or pinned), or nullptr when it is hidden (collapsed).
  const Row* findSliceRow(std::uint32_t lane, std::uint32_t depth) const;
  const std::vector<CounterChart>& charts() const { return m_charts; }

  /// Processes in display order; a process's lanes in display order.
  const std::vector<std::uint32_t>& processOrder() const { return m_processOrder; }
  const std::vector<std::uint32_t>& laneOrder(std::uint32_t process) const { return m_laneOrder.at(process); }

  bool isProcessCollapsed(std::uint32_t process) const { return m_processCollapsed.at(process) != 0; }
  bool isLaneCollapsed(std::uint32_t lane) const { return m_laneCollapsed.at(lane) != 0; }
  bool isLanePinned(std::uint32_t lane) const { return m_lanePinned.at(lane) != 0; }
  void setProcessCollapsed(std::uint32_t process, bool collapsed);
  void setLaneCollapsed(std::uint32_t lane, bool collapsed);
  void setLanePinned(std::uint32_t lane, bool pinned);
  /// Expands `lane` and its process so that all its depths have rows.
  void expandToLane(std::uint32_t lane);
  /// Moves a process among the processes, or a lane among its process's lanes; false when it cannot move (first or
  /// last already).
  bool moveProcess(std::uint32_t process, Move move);
  bool moveLane(std::uint32_t lane, Move move);
  /// Puts a process (a lane) at `position` in the order (clamped), as dropping a dragged header does.
  void moveProcessTo(std::uint32_t process, std::size_t position);
  void moveLaneTo(std::uint32_t lane, std::size_t position);

  /// The header of a process row ("rank 0 · process 1000 (CPU)").
  QString processTitle(std::uint32_t process) const;
  /// The header of a lane's first row.
  QString laneTitle(std::uint32_t lane) const;

private:
  void rebuild();
  void computeCharts();
  static bool move(std::vector<std::uint32_t>& order, std::uint32_t item, Move move);
  static void moveTo(std::vector<std::uint32_t>& order, std::uint32_t item, std::size_t position);
  void appendLaneRows(std::vector<Row>& rows, int& top, std::uint32_t lane, bool pinned) const;

  TimelineLayoutOptions m_options;
  const trace::TimelineIndex* m_index = nullptr;
  std::vector<CounterChart> m_charts;
  std::vector<std::vector<std::uint32_t>> m_processCharts;  ///< per process: its charts
  std::vector<std::uint32_t> m_processOrder;
  std::vector<std::vector<std::uint32_t>> m_laneOrder;  ///< per process
  std::vector<std::uint32_t> m_pinOrder;                ///< pinned lanes, in the order they were pinned
  std::vector<std::uint8_t> m_processCollapsed;
  std::vector<std::uint8_t> m_laneCollapsed;
  std::vector<std::uint8_t> m_lanePinned;
  std::vector<std::uint8_t> m_plan;  ///< per process: it has a plan row
  std::vector<Row> m_rows;
  std::vector<Row> m_pinned;
  int m_contentHeight = 0;
  int m_pinnedHeight = 0;
};

}  // namespace fathom::views
