// SPDX-License-Identifier: Apache-2.0
#include "fathom/trace/traces_timeline.h"

#include "fathom/common/error.h"

#include <chrono>
#include <utility>

namespace fathom::trace {
namespace {

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

std::optional<TimelineIndex> loadTracesTimeline(std::vector<TraceBytes> traces, const TimelineLoadOptions& options,
                                                TracesTimelineStats* stats) {
  FATHOM_CHECK(!traces.empty(), ConfigError, "loadTracesTimeline: no traces");
  TracesTimelineStats local;
  TracesTimelineStats& s = stats != nullptr ? *stats : local;
  s = {};
  s.inputs = traces.size();
  for (const TraceBytes& t : traces) {
    s.inputBytes += t.bytes.size();
  }
  TimelineLoadOptions load = options;
  load.reader.acceptTruncatedTail = true;
  std::string name;
  std::string text;
  if (traces.size() == 1) {
    name = std::move(traces.front().name);
    text = std::move(traces.front().bytes);
  } else {
    const auto start = std::chrono::steady_clock::now();
    TraceMergeOptions merge;
    merge.reader = load.reader;
    merge.windowsOfOneRank = true;
    merge.traceName = "merged";
    TraceMergeResult result;
    text = mergeTraceBytes(traces, merge, &result);
    name = "merge of " + std::to_string(result.inputs.size()) + " traces";
    s.skipped = result.skipped.size();
    s.truncated = result.truncatedInputs > 0 || s.skipped > 0;
    s.mergeSeconds = secondsSince(start);
    if (options.cancel != nullptr && options.cancel->load(std::memory_order_relaxed)) {
      return std::nullopt;
    }
  }
  s.indexedBytes = text.size();
  const auto start = std::chrono::steady_clock::now();
  std::optional<TimelineIndex> index = TimelineIndex::loadBytes(std::move(name), std::move(text), load);
  s.loadSeconds = secondsSince(start);
  if (index) {
    s.truncated = s.truncated || index->data().truncatedTail;  // a merge's text is whole: its inputs tell
  }
  return index;
}

}  // namespace fathom::trace
