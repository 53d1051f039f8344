// SPDX-License-Identifier: Apache-2.0
#pragma once

// What a timeline view asks a TimelineIndex for each frame and each click: the visible window of a lane's depth,
// one merged rectangle per pixel column, the slice under the cursor, search matches, a slice's details and the
// aggregation of an area. All are const and thread-safe on an immutable index; a frame costs
// O(min(visible slices, pixels) x log n) per lane and depth (docs/traces.md, "Timeline index").

#include "fathom/trace/timeline_index.h"
#include "fathom/trace/trace_summary.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace fathom::trace {

/// Slice indices [begin, end) of one depth of a lane.
struct SliceWindow {
  std::uint32_t begin = 0;
  std::uint32_t end = 0;
  std::uint32_t size() const { return end - begin; }
};

/// The slices of `depth` that meet `range`: start < range.endNs and end > range.startNs, or zero-length with
/// range.startNs <= start < range.endNs (the summary's clip rule). Two binary searches.
SliceWindow visibleSlices(const TimelineLane& lane, std::uint32_t depth, TimeRange range);

/// The slice of `depth` that contains `t` (start <= t <= end), or else the nearest one within `toleranceNs` (a pixel
/// or two of slack for the mouse). When several contain `t` (touching slices), the later one.
std::optional<std::uint32_t> sliceAt(const TimelineLane& lane, std::uint32_t depth, std::int64_t t,
                                     std::int64_t toleranceNs = 0);
/// The deepest slice that contains `t` (where a flow's s/t, or f with "bp":"e", binds).
std::optional<std::uint32_t> deepestSliceAt(const TimelineLane& lane, std::int64_t t);
/// The first slice (any depth) that starts at or after `t`, the outermost on ties (where a plain flow end binds).
std::optional<std::uint32_t> nextSliceAt(const TimelineLane& lane, std::int64_t t);

/// One rectangle of a frame: the slices of one depth whose starts fall in one pixel column, merged.
struct MergedSlice {
  std::int64_t startNs = 0;   ///< the first slice's start
  std::int64_t endNs = 0;     ///< the last slice's end (the largest end: ends are sorted within a depth)
  std::uint32_t count = 0;    ///< slices merged (1: a slice drawn as itself)
  std::uint32_t longest = 0;  ///< the longest of them (ties: the earliest): its name labels and colours the rectangle
  std::uint32_t column = 0;   ///< the pixel column of the first slice's start
};

/// Per-pixel merging of one depth over `range` drawn `pixels` wide: column c covers the times t with
/// floor((t - range.startNs) * pixels / (range.endNs - range.startNs)) == c (a slice starting before the range counts
/// in column 0). The visible slices are grouped by the column of their start; each group is one MergedSlice. So there
/// is at most one rectangle per column, never more than the visible slices, and the result is exact: it equals the
/// brute-force grouping (tst_timeline_index checks it on random traces). Cost: one galloping search per rectangle and
/// a longest-slice query on the depth's SliceLod. `out` is cleared first (reuse it across frames: no allocation).
/// Throws ConfigError for an empty range, pixels == 0, or a range so long that (length x pixels) overflows int64.
void mergeForPixels(const TimelineLane& lane, std::uint32_t depth, TimeRange range, std::uint32_t pixels,
                    std::vector<MergedSlice>& out);

/// One pixel column of a counter series: its samples' extremes (peak-preserving, as heaptrack reduces its charts)
/// and the last value, which holds until the next sample.
struct CounterPixel {
  std::uint32_t column = 0;
  std::uint32_t count = 0;  ///< samples in the column
  double min = 0;
  double max = 0;
  double last = 0;
};

/// The counter's samples with range.startNs <= ts < range.endNs, grouped by pixel column (the columns of
/// mergeForPixels), one CounterPixel per column that has samples; O(columns x log n) with the counter's LOD tables.
/// `out` is cleared first. Same errors as mergeForPixels.
void mergeCounterForPixels(const TimelineCounter& counter, TimeRange range, std::uint32_t pixels,
                           std::vector<CounterPixel>& out);
/// The counter's value at `t`: the last sample at or before it; nullopt before the first.
std::optional<double> counterValueAt(const TimelineCounter& counter, std::int64_t t);

struct SearchOptions {
  std::string pattern;                 ///< a substring, or an ECMAScript regex when `regex`
  bool regex = false;                  ///< std::regex_search on the name
  bool caseSensitive = false;          ///< ASCII case folding otherwise
  std::vector<std::uint32_t> lanes;    ///< the lanes to search; empty: all
  std::size_t maxMatches = 1'000'000;  ///< the first ones in time order are kept; SearchResult::total counts all
};

struct SearchResult {
  std::vector<SliceRef> matches;  ///< by start, then lane, then index: "next" is the following element
  std::size_t total = 0;          ///< matches found, also beyond maxMatches
};

/// Slices whose name matches. Each distinct name is tested once, then the lanes' name arrays are scanned, so a
/// search costs one regex per distinct name plus O(slices). Throws ConfigError for an invalid regex (naming it).
SearchResult searchSlices(const TimelineIndex& index, const SearchOptions& options);

/// What a details panel shows for one slice.
struct SliceDetails {
  std::string name;
  std::string category;
  std::int64_t startNs = 0;
  std::int64_t durationNs = 0;
  std::int64_t selfNs = 0;  ///< duration minus the time of its direct children (the next depth, clipped to it)
  std::uint32_t depth = 0;
  std::vector<SliceRef> flowsOut;  ///< its flows' targets (a launch: its kernel)
  std::vector<SliceRef> flowsIn;   ///< its flows' sources (a kernel: its launch)
  /// The GPU work launched from inside it: targets of flows leaving it or any of its descendants (a cpu_op: its
  /// kernels).
  std::vector<SliceRef> launched;
  std::optional<std::string> eventJson;  ///< the event's JSON text, args included, re-read from the source
};

/// The details of `slice`; `readArgs` re-reads the event's text (a seek, or a scan for gzip: see eventText()).
SliceDetails sliceDetails(const TimelineIndex& index, SliceRef slice, bool readArgs = true);

/// One name's slices in an area (Perfetto's area aggregation).
struct NameAggregate {
  NameId name = kNoName;
  std::uint64_t count = 0;
  std::int64_t totalNs = 0;  ///< sum of the slices' full durations
  std::int64_t maxNs = 0;
  double meanNs() const { return count > 0 ? static_cast<double>(totalNs) / static_cast<double>(count) : 0.0; }
};

/// The summary of one rank over the area's range.
struct RankSummary {
  std::optional<int> rank;
  TraceSummary summary;
};

struct AreaOptions {
  std::size_t top = 10;  ///< rows of each rank's summary tables (TraceSummaryOptions::top)
};

/// What an area selection shows.
struct AreaAggregation {
  TimeRange range;
  std::vector<NameAggregate> byName;  ///< slices of the selected lanes that meet the range, by total time
  /// Per rank of the selected lanes: `fathom trace summary` of that rank over the range (TraceSummaryOptions::range),
  /// computed by the summary's own code from the index: steps, the per-step breakdown (compute, communication,
  /// exposed communication = communication - overlap, data loading, idle), ops, kernels and collectives are equal to
  /// the CLI's. Memory peaks are left out (the index keeps counters, not the instants' args), as are `file` and
  /// `events`.
  std::vector<RankSummary> ranks;
};

/// Aggregates the slices of `lanes` that meet `range` (visibleSlices' rule). Throws ConfigError for an empty range
/// or an unknown lane.
AreaAggregation aggregateArea(const TimelineIndex& index, TimeRange range, std::span<const std::uint32_t> lanes,
                              const AreaOptions& options = {});

}  // namespace fathom::trace
