// SPDX-License-Identifier: Apache-2.0
// Builds a TimelineIndex's data from a trace's events, one event at a time (TimelineIndex::load drives it from a
// TraceReader). Events may come in any order; everything that needs them all (sorting, depths, flows, ranks) runs in
// finish().
#pragma once

#include "event_fields.h"
#include "fathom/trace/timeline_index.h"
#include "fathom/trace/trace_event_view.h"
#include "flow_key_table.h"
#include "string_table.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace fathom::trace::detail {

class TimelineBuilder {
public:
  /// Adds one event (already parsed into `event`, its `times` read by readCheckedEvent) found at byte `offset` of
  /// the uncompressed text.
  void add(const TraceEventView& event, const EventTimes& times, std::uint64_t offset);
  /// Sorts and links everything; `metadata` is the reader's (complete: the whole file has been read).
  TimelineData finish(std::string source, const nlohmann::json& metadata, std::uint64_t events);

private:
  /// A slice as read, before sorting (40 bytes; freed lane by lane as the lanes are built).
  struct Staged {
    std::int64_t start;
    std::int64_t end;
    std::uint64_t offset;
    NameId name;
    std::uint16_t category;
    std::uint32_t facts;  ///< index into StagedLane::facts, or kNone
  };
  struct StagedLane {
    TimelineLane lane;
    std::string pidKey;
    std::vector<Staged> slices;
    std::vector<SliceFacts> facts;  ///< SliceFacts::index is filled when the lane is built
    struct Instant {
      std::int64_t ts;
      std::uint64_t offset;
      NameId name;
    };
    std::vector<Instant> instants;
    bool gpu = false;
    bool cpuOps = false;
    bool collectiveSpans = false;
  };
  struct FlowPoint {
    std::uint32_t key;  ///< m_flowKeys' id of (id, cat, name)
    std::uint32_t lane;
    std::int64_t ts;
    std::uint64_t order;  ///< file order
    char phase;           ///< 's', 't' or 'f'
    bool enclosing;       ///< binds to the enclosing slice (s, t, f with "bp":"e")
  };
  struct Meta {
    std::string name;
    std::string labels;
    std::optional<std::int64_t> sortIndex;
  };
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;

  std::uint32_t laneOf(const TraceEventView& e);
  std::uint32_t processOf(std::string_view pidRaw);
  void addComplete(const TraceEventView& e, const EventTimes& times, std::uint64_t offset);
  void addInstant(const TraceEventView& e, std::int64_t ts, std::uint64_t offset);
  void addCounter(const TraceEventView& e, std::int64_t ts);
  void addFlow(const TraceEventView& e, char phase, std::int64_t ts);
  void addMetadata(const TraceEventView& e);
  void extend(std::int64_t t);

  void buildLane(StagedLane& staged);
  void assignProcesses(TimelineData& data, const nlohmann::json& metadata);
  void linkFlows(TimelineData& data);
  void collectSteps(TimelineData& data) const;

  StringTable m_names;
  StringTable m_categories;
  StringTable m_flowStrings;  ///< flow events' cat and name texts (a handful)
  FlowKeyTable m_flowKeys;
  std::string m_key;
  std::string m_lastLaneKey;  ///< the last lane looked up, and its id
  std::uint32_t m_lastLane = 0;
  std::string m_lastCategory;  ///< the last category interned, and its id
  std::uint32_t m_lastCategoryId = 0;
  bool m_haveLastCategory = false;
  TraceEventView m_args;
  std::vector<StagedLane> m_lanes;
  std::unordered_map<std::string, std::uint32_t> m_laneIndex;
  std::vector<TimelineProcess> m_processes;
  std::unordered_map<std::string, std::uint32_t> m_processIndex;
  std::vector<TimelineCounter> m_counters;
  std::unordered_map<std::string, std::uint32_t> m_counterIndex;
  std::vector<FlowPoint> m_flowPoints;
  std::unordered_map<std::string, Meta> m_processMeta;  ///< by pid text
  std::unordered_map<std::string, Meta> m_threadMeta;   ///< by lane key
  std::uint64_t m_ignored = 0;
  std::uint64_t m_order = 0;
  std::int64_t m_start = std::numeric_limits<std::int64_t>::max();
  std::int64_t m_end = std::numeric_limits<std::int64_t>::min();
};

}  // namespace fathom::trace::detail
