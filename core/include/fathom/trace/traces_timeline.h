// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "fathom/trace/timeline_index.h"
#include "fathom/trace/trace_merge.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace fathom::trace {

/// What loadTracesTimeline did, for a live view's status line and for measuring.
struct TracesTimelineStats {
  std::size_t inputs = 0;          ///< traces given
  std::size_t skipped = 0;         ///< left out: their header had not arrived yet
  std::uint64_t inputBytes = 0;    ///< their bytes, as stored
  std::uint64_t indexedBytes = 0;  ///< the text indexed (the merged trace's when several were merged)
  bool truncated = false;          ///< some input was a prefix (still being written)
  double mergeSeconds = 0;         ///< 0 for a single trace (it is indexed as it is)
  double loadSeconds = 0;
};

/// The timeline of traces held in memory (a run's traces stored in the workspace, store::Workspace::traceData), each
/// possibly a prefix of a trace still being written:
/// - one trace is indexed as it is (TimelineIndex::loadBytes);
/// - several (the ranks of a window; the windows of a run) are first merged by mergeTraceBytes with
///   `windowsOfOneRank`, the merge `fathom trace merge` does, so the ranks' clocks are aligned by the merged trace's
///   offsets (baseTimeNanoseconds) and the timeline is the one of the merged file.
/// Prefixes are accepted everywhere (TraceReaderOptions::acceptTruncatedTail): every complete event is indexed, and
/// the result grows as the traces do. Returns nullopt when cancelled (options.cancel, options.onProgress; progress
/// covers the load, not the merge); throws as TimelineIndex::load and mergeTraces do.
std::optional<TimelineIndex> loadTracesTimeline(std::vector<TraceBytes> traces, const TimelineLoadOptions& options = {},
                                                TracesTimelineStats* stats = nullptr);

}  // namespace fathom::trace
