// SPDX-License-Identifier: Apache-2.0
#pragma once

// What a timeline selects: one slice (a click), or an area (Shift+drag: a time range x a set of lanes), and what the
// view highlights for a selected slice (its flow arrows, the GPU work it launched). Plain values, shared by the view,
// its overlays and the panels.

#include <fathom/trace/timeline_index.h>
#include <fathom/trace/trace_summary.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fathom::views {

/// An area selection: the slices of `lanes` that meet `range` (trace::visibleSlices' rule), as aggregateArea takes it.
struct AreaSelection {
  trace::TimeRange range;
  std::vector<std::uint32_t> lanes;  ///< lane ids, ascending, no duplicates
  friend bool operator==(const AreaSelection& a, const AreaSelection& b) {
    return a.range.startNs == b.range.startNs && a.range.endNs == b.range.endNs && a.lanes == b.lanes;
  }
};

/// What a selected slice lights up on the timeline.
struct SliceHighlight {
  trace::SliceRef slice;
  /// Arrows to draw: the slice's flows in and out (at most kMaxArrows), then the flows leaving its descendants (a
  /// cpu_op's launches to their kernels) when there are at most kMaxDescendantArrows of them: a ProfilerStep's
  /// hundreds of launches would only cover the view in lines; its kernels are outlined instead.
  std::vector<trace::TimelineFlow> arrows;
  /// The GPU work it launched (SliceDetails::launched), drawn outlined.
  std::vector<trace::SliceRef> launched;
  static constexpr std::size_t kMaxArrows = 2000;
  static constexpr std::size_t kMaxDescendantArrows = 64;
};

/// The highlight of `slice`: O(its descendants' flows); computed once per selection, never per frame.
SliceHighlight highlightFor(const trace::TimelineIndex& index, trace::SliceRef slice);

}  // namespace fathom::views
