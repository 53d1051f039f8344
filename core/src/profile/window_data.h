// SPDX-License-Identifier: Apache-2.0
// One recorded window, and how it becomes trace events. Private to core/profile.
#pragma once

#include "profile/capture_session.h"

#include <fathom/profile/memory_timeline.h>
#include <fathom/profile/profiler.h>
#include <fathom/trace/trace_event.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace fathom::profile {

/// Everything a window recorded (TraceWindow's data).
struct WindowData {
  int index = 0;
  std::int64_t firstStep = 0;
  std::int64_t lastStep = 0;
  std::filesystem::path traceFile;
  WindowStats stats;
  detail::CollectedCapture capture;
  /// Every thread's allocator events merged by time, with the OS thread id of each.
  std::vector<AllocatorEvent> memoryEvents;
  std::vector<std::uint64_t> memoryEventTids;
  std::optional<MemoryTimeline> memory;
  trace::TraceHeader header;
  std::uint32_t pid = 0;
  std::uint64_t mainTid = 0;  ///< the thread that created the profiler (named "main")
  std::string processName;
  std::string gpuStatus;
  /// Appends the GPU rows (kernels, copies, runtime calls, ac2g flows, their metadata); empty without GPU tracing.
  std::function<void(const std::function<void(const trace::TraceEvent&)>&)> emitGpu;
};

namespace detail {

/// The synthetic thread ids of the collective lanes: collectives overlap compute (asynchronous) and each other, so
/// they get rows of their own, one per concurrently running collective. Above Linux's largest pid (2^22), so they
/// never collide with a real thread id.
inline constexpr std::uint64_t kCollectiveLaneTid = 1ull << 30;

/// Merges every thread's allocator events by time and builds the window's memory timeline (profileMemory).
void buildWindowMemory(WindowData& window);

/// Calls `emit` for every event of the window, metadata rows first. Events are not sorted (the format does not
/// need it); each event's views stay valid until `emit` returns.
void emitWindowEvents(const WindowData& window, const std::function<void(const trace::TraceEvent&)>& emit);

}  // namespace detail
}  // namespace fathom::profile
