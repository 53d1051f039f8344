// SPDX-License-Identifier: Apache-2.0
// A recorded window as trace events (docs/profiler.md, "What a trace holds"): metadata rows, the CPU spans of
// every thread, the collectives on their lanes, the allocator's [memory] instants and the memory counters.
#include "profile/window_data.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <numeric>
#include <string>

namespace fathom::profile::detail {

namespace {

using Emit = std::function<void(const trace::TraceEvent&)>;

void metadata(const Emit& emit, std::string_view name, std::uint32_t pid, std::uint64_t tid,
              const trace::TraceArg& arg) {
  trace::TraceEvent e;
  e.phase = trace::TracePhase::Metadata;
  e.category = trace::TraceCategory::Trace;
  e.name = name;
  e.pid = pid;
  e.tid = tid;
  e.args = std::span<const trace::TraceArg>(&arg, 1);
  emit(e);
}

/// Lane of every collective (in thread order, event order), assigned greedily by start time: a lane is free again
/// once its last collective ended. Returns the lane per collective and the number of lanes.
struct Lanes {
  std::vector<std::vector<std::uint32_t>> byThread;  ///< [thread][event index] -> lane (only for collectives)
  std::uint32_t count = 0;
};

Lanes assignLanes(const CollectedCapture& capture) {
  struct Item {
    std::int64_t start, end;
    std::size_t thread, event;
  };
  std::vector<Item> items;
  Lanes lanes;
  lanes.byThread.resize(capture.threads.size());
  for (std::size_t t = 0; t < capture.threads.size(); ++t) {
    const auto& events = capture.threads[t]->events;
    lanes.byThread[t].assign(events.size(), 0);
    for (std::size_t i = 0; i < events.size(); ++i) {
      if (events[i].kind == CpuEventKind::Collective)
        items.push_back({events[i].startNs, events[i].endNs, t, i});
    }
  }
  std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.start < b.start; });
  std::vector<std::int64_t> laneEnd;
  for (const Item& item : items) {
    std::uint32_t lane = 0;
    // Strictly after: abutting slices on one row could overlap by a nanosecond once a reader truncates µs.
    while (lane < laneEnd.size() && laneEnd[lane] >= item.start)
      ++lane;
    if (lane == laneEnd.size())
      laneEnd.push_back(item.end);
    else
      laneEnd[lane] = item.end;
    lanes.byThread[item.thread][item.event] = lane;
  }
  lanes.count = static_cast<std::uint32_t>(laneEnd.size());
  return lanes;
}

/// In/Out msg nelems as c10d's record_param_comms reports them, from the whole-buffer element count.
std::pair<std::int64_t, std::int64_t> messageElements(const CollectiveRecord& c) {
  const std::int64_t world = std::max(1, c.groupSize);
  if (c.requested == "all_gather")
    return {c.elements / world, c.elements};
  if (c.requested == "reduce_scatter")
    return {c.elements, c.elements / world};
  return {c.elements, c.elements};
}

void emitThread(const WindowData& window, const ThreadCapture& thread, const std::vector<std::uint32_t>& lanes,
                const Emit& emit) {
  InternedNames& names = InternedNames::instance();
  std::array<trace::TraceArg, 16> args;
  std::string flopsText;
  for (std::size_t i = 0; i < thread.events.size(); ++i) {
    const CpuEvent& ev = thread.events[i];
    trace::TraceEvent e;
    e.name = names.name(ev.nameId);
    e.startNs = ev.startNs;
    e.durationNs = std::max<std::int64_t>(0, ev.endNs - ev.startNs);
    e.pid = window.pid;
    e.tid = thread.osTid;
    std::size_t n = 0;
    switch (ev.kind) {
    case CpuEventKind::Op: {
      e.category = trace::TraceCategory::CpuOp;
      args[n++] = trace::TraceArg::integer("External id", static_cast<std::int64_t>(ev.externalId));
      if (ev.sequenceNr >= 0)
        args[n++] = trace::TraceArg::integer("Sequence number", ev.sequenceNr);
      if (ev.extra > 0 && ev.extra <= thread.extras.size()) {
        const OpExtras& x = thread.extras[ev.extra - 1];
        if (!x.inputDims.empty())
          args[n++] = trace::TraceArg::json("Input Dims", x.inputDims);
        if (!x.inputTypes.empty())
          args[n++] = trace::TraceArg::json("Input type", x.inputTypes);
        if (!x.callStack.empty())
          args[n++] = trace::TraceArg::string("Call stack", x.callStack);
        if (!x.moduleHierarchy.empty())
          args[n++] = trace::TraceArg::string("Module Hierarchy", x.moduleHierarchy);
        if (x.flops >= 0)
          args[n++] = trace::TraceArg::integer("flops", static_cast<std::int64_t>(x.flops));
      }
      break;
    }
    case CpuEventKind::Annotation:
    case CpuEventKind::Step: e.category = trace::TraceCategory::UserAnnotation; break;
    case CpuEventKind::Collective: {
      e.category = trace::TraceCategory::UserAnnotation;
      e.tid = kCollectiveLaneTid + lanes[i];
      if (ev.extra == 0 || ev.extra > thread.collectives.size())
        break;
      const CollectiveRecord& c = thread.collectives[ev.extra - 1];
      const auto [in, out] = messageElements(c);
      args[n++] = trace::TraceArg::string("Collective name", c.requested);
      args[n++] = trace::TraceArg::string("kind", c.kind);
      args[n++] = trace::TraceArg::integer("bytes", c.bytes);
      args[n++] = trace::TraceArg::integer("In msg nelems", in);
      args[n++] = trace::TraceArg::integer("Out msg nelems", out);
      args[n++] = trace::TraceArg::integer("Group size", c.groupSize);
      args[n++] = trace::TraceArg::integer("Rank", c.rank);
      args[n++] = trace::TraceArg::string("dtype", c.dtype);
      args[n++] = trace::TraceArg::string("backend", c.backend);
      if (!c.op.empty())
        args[n++] = trace::TraceArg::string("op", c.op);
      if (!c.label.empty())
        args[n++] = trace::TraceArg::string("label", c.label);
      args[n++] = trace::TraceArg::integer("sequence", static_cast<std::int64_t>(c.sequence));
      args[n++] = trace::TraceArg::integer("step", c.step);
      if (ev.externalId != 0)
        args[n++] = trace::TraceArg::integer("External id", static_cast<std::int64_t>(ev.externalId));
      break;
    }
    }
    e.args = std::span<const trace::TraceArg>(args.data(), n);
    emit(e);
  }
}

void emitMemory(const WindowData& window, const Emit& emit) {
  if (!window.memory)
    return;
  const MemoryTimeline& timeline = *window.memory;
  std::array<trace::TraceArg, 7> args;
  for (std::size_t i = 0; i < window.memoryEvents.size(); ++i) {
    const AllocatorEvent& a = window.memoryEvents[i];
    trace::TraceEvent e;
    e.phase = trace::TracePhase::Instant;
    e.category = trace::TraceCategory::CpuInstantEvent;
    e.scope = 't';
    e.name = "[memory]";
    e.startNs = a.ns;
    e.pid = window.pid;
    e.tid = window.memoryEventTids[i];
    args[0] = trace::TraceArg::integer("Total Reserved", a.totalReserved);
    args[1] = trace::TraceArg::integer("Total Allocated", a.totalAllocated);
    args[2] = trace::TraceArg::integer("Bytes", a.bytes);
    args[3] = trace::TraceArg::integer("Addr", static_cast<std::int64_t>(a.ptr));
    args[4] = trace::TraceArg::integer("Device Id", a.device.index);
    args[5] = trace::TraceArg::integer("Device Type", a.device.type);
    args[6] = trace::TraceArg::string("Category", toString(timeline.eventCategories[i]));
    e.args = args;
    emit(e);
  }
  std::array<trace::TraceArg, kProfiledMemoryCategories.size()> series;
  for (const DeviceMemorySeries& device : timeline.devices) {
    // One counter track per device: "Memory" for the CPU, "Memory (cuda:0)" for a GPU. Each category the timeline
    // sorts allocations into is a series, named by its key (common/memory_category.h).
    const std::string name = device.device.type == 0 ? "Memory" : "Memory (" + device.device.name() + ")";
    for (const MemorySeriesPoint& point : device.points) {
      for (std::size_t c = 0; c < series.size(); ++c)
        series[c] =
            trace::TraceArg::integer(toString(kProfiledMemoryCategories[c]), point.bytes[kProfiledMemoryCategories[c]]);
      trace::TraceEvent e;
      e.phase = trace::TracePhase::Counter;
      e.category = trace::TraceCategory::Memory;
      e.name = name;
      e.startNs = point.ns;
      e.pid = window.pid;
      e.tid = 0;
      e.args = series;
      emit(e);
    }
  }
}

}  // namespace

void buildWindowMemory(WindowData& window) {
  std::vector<std::pair<const AllocatorEvent*, std::uint64_t>> all;
  for (const auto& thread : window.capture.threads) {
    for (const AllocatorEvent& event : thread->memory)
      all.emplace_back(&event, thread->osTid);
  }
  // Stable: within one thread events are already in order, and equal timestamps keep that order.
  std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first->ns < b.first->ns; });
  MemoryTimelineInput input;
  input.startNs = window.capture.startNs;
  input.endNs = window.capture.endNs;
  // The capture's memory inputs are read only here: move them, and free each thread's events once merged.
  input.baseline = std::move(window.capture.baseline);
  input.phases = std::move(window.capture.phases);
  input.classifications = std::move(window.capture.classifications);
  input.events.reserve(all.size());
  window.memoryEventTids.reserve(all.size());
  for (const auto& [event, tid] : all) {
    input.events.push_back(*event);
    window.memoryEventTids.push_back(tid);
  }
  all.clear();
  for (const auto& thread : window.capture.threads)
    std::vector<AllocatorEvent>().swap(thread->memory);
  window.memory = buildMemoryTimeline(input);
  window.memoryEvents = std::move(input.events);
  window.stats.memoryEvents = static_cast<std::int64_t>(window.memoryEvents.size());
}

void emitWindowEvents(const WindowData& window, const Emit& emit) {
  const CollectedCapture& capture = window.capture;
  const Lanes lanes = assignLanes(capture);

  // Rows: the process, its threads, the collective lanes.
  metadata(emit, "process_name", window.pid, 0, trace::TraceArg::string("name", window.processName));
  metadata(emit, "process_labels", window.pid, 0, trace::TraceArg::string("labels", "CPU"));
  metadata(emit, "process_sort_index", window.pid, 0, trace::TraceArg::integer("sort_index", 0));
  std::string label;
  for (const auto& thread : capture.threads) {
    const bool main = thread->osTid == window.mainTid;
    label = main ? "main thread" : (thread->threadName.empty() ? "thread" : thread->threadName);
    label += " (" + std::to_string(thread->osTid) + ")";
    metadata(emit, "thread_name", window.pid, thread->osTid, trace::TraceArg::string("name", label));
    metadata(
        emit, "thread_sort_index", window.pid, thread->osTid,
        trace::TraceArg::integer("sort_index", main ? 0 : static_cast<std::int64_t>(thread->osTid % 1'000'000) + 1));
  }
  for (std::uint32_t lane = 0; lane < lanes.count; ++lane) {
    label = "collectives (" + window.header.distributed.backend + ") #" + std::to_string(lane);
    metadata(emit, "thread_name", window.pid, kCollectiveLaneTid + lane, trace::TraceArg::string("name", label));
    metadata(emit, "thread_sort_index", window.pid, kCollectiveLaneTid + lane,
             trace::TraceArg::integer("sort_index", 2'000'000 + lane));
  }

  for (std::size_t t = 0; t < capture.threads.size(); ++t)
    emitThread(window, *capture.threads[t], lanes.byThread[t], emit);
  emitMemory(window, emit);
  if (window.emitGpu)
    window.emitGpu(emit);
}

}  // namespace fathom::profile::detail
