// SPDX-License-Identifier: Apache-2.0
#include "timeline_builder.h"

#include "fathom/common/error.h"
#include "fathom/trace/timeline_queries.h"
#include "fathom/trace/trace_merge.h"
#include "slice_lod.h"
#include "trace_summarizer.h"

#include <algorithm>
#include <charconv>
#include <numeric>

namespace fathom::trace::detail {
namespace {

std::optional<double> numberOf(std::string_view raw) {
  double d = 0;
  const auto [end, error] = std::from_chars(raw.data(), raw.data() + raw.size(), d);
  return error == std::errc() && end == raw.data() + raw.size() && !raw.empty() ? std::optional<double>(d)
                                                                                : std::nullopt;
}

std::optional<std::int64_t> integerOf(std::string_view raw) {
  std::int64_t i = 0;
  const auto [end, error] = std::from_chars(raw.data(), raw.data() + raw.size(), i);
  return error == std::errc() && end == raw.data() + raw.size() && !raw.empty() ? std::optional<std::int64_t>(i)
                                                                                : std::nullopt;
}

bool isGpuCategory(std::string_view cat) {
  return cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset" || cat == "gpu_user_annotation";
}

}  // namespace

void TimelineBuilder::add(const TraceEventView& e, const EventTimes& times, std::uint64_t offset) {
  ++m_order;
  // readCheckedEvent guarantees a ts on every phase but M, and a dur >= 0 on X.
  switch (times.phase) {
  case 'X': addComplete(e, times, offset); break;
  case 'i':
  case 'I': addInstant(e, *times.ts, offset); break;
  case 'C': addCounter(e, *times.ts); break;
  case 's':
  case 't':
  case 'f': addFlow(e, times.phase, *times.ts); break;
  case 'M': addMetadata(e); break;
  default: ++m_ignored; break;
  }
}

void TimelineBuilder::extend(std::int64_t t) {
  m_start = std::min(m_start, t);
  m_end = std::max(m_end, t);
}

std::uint32_t TimelineBuilder::processOf(std::string_view pidRaw) {
  const auto [it, added] = m_processIndex.try_emplace(std::string(pidRaw), 0);
  if (added) {
    it->second = static_cast<std::uint32_t>(m_processes.size());
    TimelineProcess p;
    p.key = pidRaw;
    p.pid = integerOf(pidRaw);
    m_processes.push_back(std::move(p));
  }
  return it->second;
}

std::uint32_t TimelineBuilder::laneOf(const TraceEventView& e) {
  // The row key `fathom trace summary` uses: the raw texts of pid and tid.
  m_key.assign(e.raw("pid"));
  m_key += '/';
  m_key += e.raw("tid");
  if (m_key == m_lastLaneKey) {
    return m_lastLane;  // events of one row usually come in runs: skip the hash lookup
  }
  if (const auto it = m_laneIndex.find(m_key); it != m_laneIndex.end()) {
    m_lastLaneKey = m_key;
    m_lastLane = it->second;
    return it->second;
  }
  const auto id = static_cast<std::uint32_t>(m_lanes.size());
  StagedLane staged;
  staged.pidKey = e.raw("pid");
  staged.lane.key = m_key;
  staged.lane.tid = integerOf(e.raw("tid"));
  staged.lane.process = processOf(staged.pidKey);
  m_lanes.push_back(std::move(staged));
  m_laneIndex.emplace(m_key, id);
  return id;
}

void TimelineBuilder::addComplete(const TraceEventView& e, const EventTimes& times, std::uint64_t offset) {
  const std::int64_t ts = *times.ts;
  const std::string_view name = e.string("name").value_or("");
  const std::string_view cat = summaryCategory(e, name);  // PyTorch's legacy traces write none
  if (!m_haveLastCategory || cat != m_lastCategory) {     // a handful of categories, in runs: skip the hash lookup
    m_haveLastCategory = true;
    m_lastCategory = cat;
    m_lastCategoryId = m_categories.intern(cat);
  }
  const std::uint32_t categoryId = m_lastCategoryId;
  FATHOM_CHECK(categoryId < 0xFFFF, StorageError, "more than 65535 event categories");
  StagedLane& lane = m_lanes[laneOf(e)];
  Staged s{ts, ts + times.dur, offset, m_names.intern(name), static_cast<std::uint16_t>(categoryId), kNone};
  if (summaryReadsArgs(cat, name) && m_args.parse(e.raw("args"))) {
    const SummaryArgs args = summaryArgsOf(m_args);
    SliceFacts facts;
    facts.hasCorrelation = args.correlation.has_value();
    facts.correlation = args.correlation.value_or(0);
    facts.hasBytes = args.bytes.has_value();
    facts.bytes = args.bytes.value_or(0);
    facts.collectiveName = args.collectiveName.empty() ? kNoName : m_names.intern(args.collectiveName);
    s.facts = static_cast<std::uint32_t>(lane.facts.size());
    lane.facts.push_back(facts);
  }
  lane.gpu = lane.gpu || isGpuCategory(cat);
  lane.cpuOps = lane.cpuOps || cat == "cpu_op";
  lane.collectiveSpans = lane.collectiveSpans || (cat != "cpu_op" && summaryReadsArgs(cat, name) &&
                                                  !isGpuCategory(cat) && cat != "cuda_runtime" && cat != "cuda_driver");
  lane.slices.push_back(s);
  extend(s.start);
  extend(s.end);
}

void TimelineBuilder::addInstant(const TraceEventView& e, std::int64_t ts, std::uint64_t offset) {
  StagedLane& lane = m_lanes[laneOf(e)];
  lane.instants.push_back({ts, offset, m_names.intern(e.string("name").value_or(""))});
  extend(ts);
}

void TimelineBuilder::addCounter(const TraceEventView& e, std::int64_t ts) {
  if (!m_args.parse(e.raw("args"))) {
    ++m_ignored;
    return;
  }
  const std::string_view pid = e.raw("pid");
  const std::string_view name = e.string("name").value_or("");
  for (const TraceEventView::Member& m : m_args.members()) {
    const std::optional<double> value = numberOf(m.value);
    if (!value) {
      continue;  // a series is a number; anything else is not drawn
    }
    m_key.assign(pid);
    m_key += '\x1f';
    m_key += name;
    m_key += '\x1f';
    m_key += m.key;
    auto [it, added] = m_counterIndex.try_emplace(m_key, 0);
    if (added) {
      it->second = static_cast<std::uint32_t>(m_counters.size());
      TimelineCounter c;
      c.process = processOf(pid);
      c.name = m_names.intern(name);
      c.series = m.key;
      m_counters.push_back(std::move(c));
    }
    TimelineCounter& c = m_counters[it->second];
    c.ts.push_back(ts);
    c.value.push_back(*value);
  }
  extend(ts);
}

void TimelineBuilder::addFlow(const TraceEventView& e, char phase, std::int64_t ts) {
  const std::string_view id = e.raw("id");
  if (id.empty()) {
    ++m_ignored;
    return;
  }
  // Perfetto matches v1 flows by (id, cat, name).
  const std::uint32_t key = m_flowKeys.intern(id, m_flowStrings.intern(e.string("cat").value_or("")),
                                              m_flowStrings.intern(e.string("name").value_or("")));
  const bool enclosing = phase != 'f' || e.string("bp") == "e";
  m_flowPoints.push_back({key, laneOf(e), ts, m_order, phase, enclosing});
}

void TimelineBuilder::addMetadata(const TraceEventView& e) {
  const std::string_view name = e.string("name").value_or("");
  if (!m_args.parse(e.raw("args"))) {
    return;
  }
  const bool process = name.starts_with("process_");
  if (!process && !name.starts_with("thread_")) {
    return;
  }
  std::string key(e.raw("pid"));
  if (!process) {
    key += '/';
    key += e.raw("tid");
  }
  Meta& meta = (process ? m_processMeta : m_threadMeta)[key];
  if (name == "process_name" || name == "thread_name") {
    meta.name = m_args.string("name").value_or("");
  } else if (name == "process_labels") {
    meta.labels = m_args.string("labels").value_or("");
  } else if (name == "process_sort_index" || name == "thread_sort_index") {
    meta.sortIndex = integerOf(m_args.raw("sort_index"));
  }
}

TimelineData TimelineBuilder::finish(std::string source, const nlohmann::json& metadata, std::uint64_t events) {
  TimelineData data;
  data.source = std::move(source);
  data.metadata = metadata;
  data.events = events;
  data.ignoredEvents = m_ignored;
  data.lanes.reserve(m_lanes.size());
  for (StagedLane& staged : m_lanes) {
    buildLane(staged);
    data.lanes.push_back(std::move(staged.lane));
  }
  std::vector<StagedLane>().swap(m_lanes);
  for (TimelineCounter& c : m_counters) {
    std::vector<std::size_t> order(c.ts.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return c.ts[a] < c.ts[b]; });
    TimelineCounter sorted;
    for (const std::size_t i : order) {
      sorted.ts.push_back(c.ts[i]);
      sorted.value.push_back(c.value[i]);
    }
    c.ts = std::move(sorted.ts);
    c.value = std::move(sorted.value);
    buildCounterLod(c);
  }
  data.counters = std::move(m_counters);
  data.processes = std::move(m_processes);
  assignProcesses(data, metadata);
  linkFlows(data);
  collectSteps(data);
  auto names = m_names.release();
  data.names.assign(std::make_move_iterator(names.begin()), std::make_move_iterator(names.end()));
  auto categories = m_categories.release();
  data.categories.assign(std::make_move_iterator(categories.begin()), std::make_move_iterator(categories.end()));
  data.startNs = m_start <= m_end ? m_start : 0;
  data.endNs = m_start <= m_end ? m_end : 0;
  return data;
}

void TimelineBuilder::buildLane(StagedLane& staged) {
  std::vector<Staged>& slices = staged.slices;
  // Parents before their children: by start, then the longer first; file order breaks the remaining ties.
  const auto before = [](const Staged& a, const Staged& b) {
    return a.start != b.start ? a.start < b.start : a.end != b.end ? a.end > b.end : a.offset < b.offset;
  };
  if (!std::is_sorted(slices.begin(), slices.end(), before)) {  // a row written in start order needs no sort
    std::sort(slices.begin(), slices.end(), before);
  }
  // Depth: the number of open slices. A slice is closed only once a later one starts at or after its end, so a
  // depth's previous slice has always ended when the next one takes its place: each depth stays disjoint.
  std::vector<std::uint32_t> depth(slices.size());
  std::vector<std::int64_t> open;
  std::vector<std::uint32_t> perDepth;
  for (std::size_t i = 0; i < slices.size(); ++i) {
    while (!open.empty() && open.back() <= slices[i].start) {
      open.pop_back();
    }
    depth[i] = static_cast<std::uint32_t>(open.size());
    open.push_back(slices[i].end);
    if (perDepth.size() <= depth[i]) {
      perDepth.resize(depth[i] + 1, 0);
    }
    ++perDepth[depth[i]];
  }
  TimelineLane& lane = staged.lane;
  lane.depthBegin.assign(perDepth.size() + 1, 0);
  for (std::size_t d = 0; d < perDepth.size(); ++d) {
    lane.depthBegin[d + 1] = lane.depthBegin[d] + perDepth[d];
  }
  const std::size_t n = slices.size();
  lane.start.resize(n);
  lane.end.resize(n);
  lane.name.resize(n);
  lane.category.resize(n);
  lane.offset.resize(n);
  std::vector<std::uint32_t> next(lane.depthBegin.begin(), lane.depthBegin.end() - 1);
  for (std::size_t i = 0; i < n; ++i) {  // a stable counting sort by depth keeps each depth in start order
    const std::uint32_t at = next[depth[i]]++;
    const Staged& s = slices[i];
    lane.start[at] = s.start;
    lane.end[at] = s.end;
    lane.name[at] = s.name;
    lane.category[at] = s.category;
    lane.offset[at] = s.offset;
    if (s.facts != kNone) {
      staged.facts[s.facts].index = at;
    }
  }
  std::vector<Staged>().swap(slices);
  lane.facts = std::move(staged.facts);
  std::sort(lane.facts.begin(), lane.facts.end(),
            [](const SliceFacts& a, const SliceFacts& b) { return a.index < b.index; });
  for (std::uint32_t d = 0; d < lane.depthCount(); ++d) {
    lane.lod.push_back(buildSliceLod(lane, d));
  }
  std::sort(staged.instants.begin(), staged.instants.end(),
            [](const auto& a, const auto& b) { return a.ts != b.ts ? a.ts < b.ts : a.offset < b.offset; });
  for (const StagedLane::Instant& i : staged.instants) {
    lane.instantTs.push_back(i.ts);
    lane.instantName.push_back(i.name);
    lane.instantOffset.push_back(i.offset);
  }
  lane.kind = staged.gpu                                   ? LaneKind::GpuStream
              : (staged.collectiveSpans && !staged.cpuOps) ? LaneKind::Collectives
                                                           : LaneKind::Thread;
  if (const auto meta = m_threadMeta.find(lane.key); meta != m_threadMeta.end()) {
    lane.title = meta->second.name;
    lane.sortIndex = meta->second.sortIndex.value_or(lane.tid.value_or(0));
  } else {
    lane.sortIndex = lane.tid.value_or(0);
  }
  if (lane.title.empty()) {
    lane.title = (lane.kind == LaneKind::GpuStream ? "stream " : "thread ") + lane.key.substr(staged.pidKey.size() + 1);
  }
}

void TimelineBuilder::assignProcesses(TimelineData& data, const nlohmann::json& metadata) {
  // The rank rule of `fathom trace summary --rank`: mergedRankOf(pid) in a merged trace, else the file's rank.
  const bool merged = !mergedRanks(metadata).empty();
  const std::optional<int> rank = fileRank(metadata);
  for (TimelineProcess& p : data.processes) {
    if (merged) {
      p.rank = p.pid ? std::optional<int>(mergedRankOf(*p.pid)) : std::nullopt;
    } else {
      p.rank = rank;
    }
    if (const auto meta = m_processMeta.find(p.key); meta != m_processMeta.end()) {
      p.title = meta->second.name;
      p.labels = meta->second.labels;
      p.sortIndex = meta->second.sortIndex.value_or(p.pid.value_or(0));
    } else {
      p.sortIndex = p.pid.value_or(0);
    }
    if (p.title.empty()) {
      p.title = "process " + p.key;
    }
  }
  for (std::uint32_t id = 0; id < data.lanes.size(); ++id) {
    data.processes[data.lanes[id].process].lanes.push_back(id);
  }
  for (std::uint32_t id = 0; id < data.counters.size(); ++id) {
    data.processes[data.counters[id].process].counters.push_back(id);
  }
  for (TimelineProcess& p : data.processes) {
    std::sort(p.lanes.begin(), p.lanes.end(), [&](std::uint32_t a, std::uint32_t b) {
      const TimelineLane& x = data.lanes[a];
      const TimelineLane& y = data.lanes[b];
      return x.sortIndex != y.sortIndex ? x.sortIndex < y.sortIndex : x.key < y.key;
    });
    std::sort(p.counters.begin(), p.counters.end(), [&](std::uint32_t a, std::uint32_t b) {
      const TimelineCounter& x = data.counters[a];
      const TimelineCounter& y = data.counters[b];
      return x.name != y.name ? m_names[x.name] < m_names[y.name] : x.series < y.series;
    });
  }
  // Lanes and counters keep their ids; the process list is reordered, so remap what points at a process.
  std::vector<std::uint32_t> order(data.processes.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    const TimelineProcess& x = data.processes[a];
    const TimelineProcess& y = data.processes[b];
    return x.sortIndex != y.sortIndex ? x.sortIndex < y.sortIndex : x.key < y.key;
  });
  std::vector<std::uint32_t> newIndex(order.size());
  std::vector<TimelineProcess> sorted;
  sorted.reserve(order.size());
  for (std::uint32_t i = 0; i < order.size(); ++i) {
    newIndex[order[i]] = i;
    sorted.push_back(std::move(data.processes[order[i]]));
  }
  data.processes = std::move(sorted);
  for (TimelineLane& lane : data.lanes) {
    lane.process = newIndex[lane.process];
  }
  for (TimelineCounter& c : data.counters) {
    c.process = newIndex[c.process];
  }
}

void TimelineBuilder::linkFlows(TimelineData& data) {
  // Each key's points in file order. The points were appended in file order and the keys are dense from 0, so a
  // stable counting sort by key of their positions gives that in O(n) (a comparison sort of the 32-byte points was
  // a tenth of finish() on 10M events), with 4 bytes per point beside them.
  FATHOM_CHECK(m_flowPoints.size() < 0xFFFFFFFFull, StorageError, "more than 4,294,967,294 flow events");
  std::vector<std::uint32_t> keyBegin(m_flowKeys.size() + 1, 0);
  for (const FlowPoint& p : m_flowPoints) {
    ++keyBegin[p.key + 1];
  }
  std::partial_sum(keyBegin.begin(), keyBegin.end(), keyBegin.begin());
  std::vector<std::uint32_t> byKey(m_flowPoints.size());
  for (std::uint32_t i = 0; i < m_flowPoints.size(); ++i) {
    byKey[keyBegin[m_flowPoints[i].key]++] = i;
  }
  std::vector<std::uint32_t>().swap(keyBegin);
  auto bind = [&](const FlowPoint& p) -> std::optional<SliceRef> {
    const TimelineLane& lane = data.lanes[p.lane];
    const std::optional<std::uint32_t> slice = p.enclosing ? deepestSliceAt(lane, p.ts) : nextSliceAt(lane, p.ts);
    return slice ? std::optional<SliceRef>(SliceRef{p.lane, *slice}) : std::nullopt;
  };
  // Each key's points in file order: s starts a chain, t continues it, f ends it (one arrow per consecutive pair).
  std::optional<SliceRef> previous;
  for (std::size_t i = 0; i < byKey.size(); ++i) {
    const FlowPoint& p = m_flowPoints[byKey[i]];
    if (i > 0 && p.key != m_flowPoints[byKey[i - 1]].key) {
      previous.reset();
    }
    const std::optional<SliceRef> here = bind(p);
    if (p.phase != 's' && previous && here) {
      data.flows.push_back({*previous, *here, m_names.intern(m_flowStrings[m_flowKeys.name(p.key)])});
    }
    previous = p.phase == 'f' ? std::nullopt : here;
  }
  std::vector<FlowPoint>().swap(m_flowPoints);
  m_flowKeys.clear();
  std::sort(data.flows.begin(), data.flows.end(), [](const TimelineFlow& a, const TimelineFlow& b) {
    return a.from != b.from ? a.from < b.from : a.to < b.to;
  });
  data.flowsByTarget.resize(data.flows.size());
  std::iota(data.flowsByTarget.begin(), data.flowsByTarget.end(), 0u);
  std::sort(data.flowsByTarget.begin(), data.flowsByTarget.end(),
            [&](std::uint32_t a, std::uint32_t b) { return data.flows[a].to < data.flows[b].to; });
}

void TimelineBuilder::collectSteps(TimelineData& data) const {
  std::vector<std::optional<std::int64_t>> stepOf(m_names.size());  // per name: one string test, not one per slice
  for (std::uint32_t id = 0; id < m_names.size(); ++id) {
    stepOf[id] = profilerStepNumber(m_names[id]);
  }
  for (std::uint32_t l = 0; l < data.lanes.size(); ++l) {
    const TimelineLane& lane = data.lanes[l];
    for (std::uint32_t i = 0; i < lane.sliceCount(); ++i) {
      if (const std::optional<std::int64_t> step = stepOf[lane.name[i]]) {
        data.steps.push_back({*step, data.processes[lane.process].rank, {l, i}});
      }
    }
  }
  std::sort(data.steps.begin(), data.steps.end(), [&](const TimelineStep& a, const TimelineStep& b) {
    const std::int64_t sa = data.lanes[a.slice.lane].start[a.slice.index];
    const std::int64_t sb = data.lanes[b.slice.lane].start[b.slice.index];
    return a.rank != b.rank ? a.rank < b.rank : sa != sb ? sa < sb : a.slice < b.slice;
  });
}

}  // namespace fathom::trace::detail
