// SPDX-License-Identifier: Apache-2.0
#include "fathom/trace/timeline_queries.h"

#include "fathom/common/error.h"
#include "slice_lod.h"
#include "trace_summarizer.h"

#include <algorithm>
#include <limits>
#include <map>
#include <regex>
#include <set>

namespace fathom::trace {
namespace {

using Iter = std::vector<std::int64_t>::const_iterator;

/// The first index in [lo, hi) whose start is >= t, searched outward from lo (galloping): cheap when it is near,
/// which is the common case when walking a frame column by column.
std::uint32_t gallop(const std::vector<std::int64_t>& start, std::uint32_t lo, std::uint32_t hi, std::int64_t t) {
  std::uint32_t step = 1;
  std::uint32_t bound = lo;
  while (bound < hi && start[bound] < t) {
    lo = bound + 1;
    bound = static_cast<std::uint32_t>(std::min<std::uint64_t>(std::uint64_t{bound} + step, hi));
    step *= 2;
  }
  const auto it = std::lower_bound(start.begin() + lo, start.begin() + bound, t);
  return static_cast<std::uint32_t>(it - start.begin());
}

void checkRange(TimeRange range) {
  FATHOM_CHECK(range.startNs < range.endNs, ConfigError, "the time range [", range.startNs, ", ", range.endNs,
               ") is empty");
}

/// Pixel columns of a range: column c covers the times t with floor((t - t0) * pixels / (t1 - t0)) == c, so it
/// starts at t0 + ceil(c * length / pixels) (exact integer arithmetic; the constructor checks it cannot overflow).
class Columns {
public:
  Columns(TimeRange range, std::uint32_t pixels) : m_range(range), m_pixels(pixels) {
    checkRange(range);
    FATHOM_CHECK(pixels >= 1, ConfigError, "drawing needs at least one pixel, got ", pixels);
    m_length = range.endNs - range.startNs;
    FATHOM_CHECK(m_length <= std::numeric_limits<std::int64_t>::max() / pixels, ConfigError, "the time range of ",
                 m_length, " ns is too long to draw ", pixels, " pixels wide");
  }
  /// The column of t (times before the range count in column 0).
  std::int64_t of(std::int64_t t) const {
    return t <= m_range.startNs ? 0 : std::min<std::int64_t>((t - m_range.startNs) * m_pixels / m_length, m_pixels - 1);
  }
  /// The first time of column c; the range's end for c == pixels.
  std::int64_t startOf(std::int64_t c) const {
    return c >= m_pixels ? m_range.endNs : m_range.startNs + (c * m_length + m_pixels - 1) / m_pixels;
  }

private:
  TimeRange m_range;
  std::int64_t m_pixels;
  std::int64_t m_length = 0;
};

char fold(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

bool containsFolded(std::string_view text, std::string_view pattern) {
  return std::search(text.begin(), text.end(), pattern.begin(), pattern.end(),
                     [](char a, char b) { return fold(a) == fold(b); }) != text.end();
}

}  // namespace

SliceWindow visibleSlices(const TimelineLane& lane, std::uint32_t depth, TimeRange range) {
  if (depth >= lane.depthCount()) {
    return {};
  }
  const Iter first = lane.end.begin() + lane.depthBegin[depth];
  const Iter last = lane.end.begin() + lane.depthBegin[depth + 1];
  // Ends are sorted within a depth. Slices ending exactly at range.startNs meet it only when zero-length (start ==
  // range.startNs); they sort after the longer ones ending there, since starts are sorted too.
  auto begin = static_cast<std::uint32_t>(std::lower_bound(first, last, range.startNs) - lane.end.begin());
  const std::uint32_t depthEnd = lane.depthBegin[depth + 1];
  while (begin < depthEnd && lane.end[begin] == range.startNs && lane.start[begin] < range.startNs) {
    ++begin;
  }
  const auto startsFrom = lane.start.begin() + begin;
  const auto end = static_cast<std::uint32_t>(std::lower_bound(startsFrom, lane.start.begin() + depthEnd, range.endNs) -
                                              lane.start.begin());
  return {begin, std::max(begin, end)};
}

std::optional<std::uint32_t> sliceAt(const TimelineLane& lane, std::uint32_t depth, std::int64_t t,
                                     std::int64_t toleranceNs) {
  if (depth >= lane.depthCount()) {
    return std::nullopt;
  }
  const std::uint32_t lo = lane.depthBegin[depth];
  const std::uint32_t hi = lane.depthBegin[depth + 1];
  // The last slice starting at or before t: the only one that can contain it (the depth is disjoint).
  const auto after = static_cast<std::uint32_t>(std::upper_bound(lane.start.begin() + lo, lane.start.begin() + hi, t) -
                                                lane.start.begin());
  if (after > lo && lane.end[after - 1] >= t) {
    return after - 1;
  }
  // Else the nearest within tolerance: the slice before (it ends before t) or after (it starts after t); ties to
  // the one before.
  std::optional<std::uint32_t> best;
  std::int64_t bestGap =
      std::min(std::max<std::int64_t>(toleranceNs, 0), std::numeric_limits<std::int64_t>::max() - 1) + 1;
  if (after > lo && t - lane.end[after - 1] < bestGap) {
    best = after - 1;
    bestGap = t - lane.end[after - 1];
  }
  if (after < hi && lane.start[after] - t < bestGap) {
    best = after;
  }
  return best;
}

std::optional<std::uint32_t> deepestSliceAt(const TimelineLane& lane, std::int64_t t) {
  for (std::uint32_t d = lane.depthCount(); d-- > 0;) {
    const std::uint32_t lo = lane.depthBegin[d];
    const std::uint32_t hi = lane.depthBegin[d + 1];
    const auto after = static_cast<std::uint32_t>(
        std::upper_bound(lane.start.begin() + lo, lane.start.begin() + hi, t) - lane.start.begin());
    if (after > lo && lane.end[after - 1] >= t) {
      return after - 1;
    }
  }
  return std::nullopt;
}

std::optional<std::uint32_t> nextSliceAt(const TimelineLane& lane, std::int64_t t) {
  std::optional<std::uint32_t> best;
  for (std::uint32_t d = 0; d < lane.depthCount(); ++d) {
    const std::uint32_t lo = lane.depthBegin[d];
    const std::uint32_t hi = lane.depthBegin[d + 1];
    const auto at = static_cast<std::uint32_t>(std::lower_bound(lane.start.begin() + lo, lane.start.begin() + hi, t) -
                                               lane.start.begin());
    if (at < hi && (!best || lane.start[at] < lane.start[*best])) {
      best = at;  // strictly earlier only: on a tie the shallower depth (the outermost slice) stays
    }
  }
  return best;
}

void mergeForPixels(const TimelineLane& lane, std::uint32_t depth, TimeRange range, std::uint32_t pixels,
                    std::vector<MergedSlice>& out) {
  out.clear();
  const Columns columns(range, pixels);
  const SliceWindow w = visibleSlices(lane, depth, range);
  std::uint32_t i = w.begin;
  while (i < w.end) {
    const std::int64_t c = columns.of(lane.start[i]);
    const std::uint32_t j = gallop(lane.start, i + 1, w.end, columns.startOf(c + 1));
    out.push_back({lane.start[i], lane.end[j - 1], j - i, j - i == 1 ? i : detail::longestSlice(lane, depth, i, j),
                   static_cast<std::uint32_t>(c)});
    i = j;
  }
}

void mergeCounterForPixels(const TimelineCounter& counter, TimeRange range, std::uint32_t pixels,
                           std::vector<CounterPixel>& out) {
  out.clear();
  const Columns columns(range, pixels);
  auto i = static_cast<std::uint32_t>(std::lower_bound(counter.ts.begin(), counter.ts.end(), range.startNs) -
                                      counter.ts.begin());
  const auto end = static_cast<std::uint32_t>(std::lower_bound(counter.ts.begin() + i, counter.ts.end(), range.endNs) -
                                              counter.ts.begin());
  while (i < end) {
    const std::int64_t c = columns.of(counter.ts[i]);
    const std::uint32_t j = gallop(counter.ts, i + 1, end, columns.startOf(c + 1));
    out.push_back({static_cast<std::uint32_t>(c), j - i, counter.value[detail::extremeSample(counter, i, j, false)],
                   counter.value[detail::extremeSample(counter, i, j, true)], counter.value[j - 1]});
    i = j;
  }
}

std::optional<double> counterValueAt(const TimelineCounter& counter, std::int64_t t) {
  const auto after = std::upper_bound(counter.ts.begin(), counter.ts.end(), t);
  if (after == counter.ts.begin()) {
    return std::nullopt;
  }
  return counter.value[static_cast<std::size_t>(after - counter.ts.begin()) - 1];
}

SearchResult searchSlices(const TimelineIndex& index, const SearchOptions& options) {
  const std::vector<std::string>& names = index.names();
  std::vector<char> matches(names.size(), 0);
  if (options.regex) {
    std::regex re;
    try {
      re = std::regex(options.pattern,
                      options.caseSensitive ? std::regex::ECMAScript : std::regex::ECMAScript | std::regex::icase);
    } catch (const std::regex_error& e) {
      throw ConfigError("invalid regular expression \"" + options.pattern + "\": " + e.what());
    }
    for (std::size_t id = 0; id < names.size(); ++id) {
      matches[id] = std::regex_search(names[id], re) ? 1 : 0;
    }
  } else {
    for (std::size_t id = 0; id < names.size(); ++id) {
      matches[id] = (options.caseSensitive ? names[id].find(options.pattern) != std::string::npos
                                           : containsFolded(names[id], options.pattern))
                        ? 1
                        : 0;
    }
  }
  std::vector<std::uint32_t> lanes = options.lanes;
  if (lanes.empty()) {
    for (std::uint32_t l = 0; l < index.lanes().size(); ++l) {
      lanes.push_back(l);
    }
  }
  SearchResult result;
  for (const std::uint32_t l : lanes) {
    const TimelineLane& lane = index.lane(l);
    for (std::uint32_t i = 0; i < lane.sliceCount(); ++i) {
      if (matches[lane.name[i]] != 0) {
        result.matches.push_back({l, i});
      }
    }
  }
  std::sort(result.matches.begin(), result.matches.end(), [&](const SliceRef& a, const SliceRef& b) {
    const std::int64_t sa = index.lane(a.lane).start[a.index];
    const std::int64_t sb = index.lane(b.lane).start[b.index];
    return sa != sb ? sa < sb : a < b;
  });
  result.total = result.matches.size();
  if (result.matches.size() > options.maxMatches) {
    result.matches.resize(options.maxMatches);
  }
  return result;
}

SliceDetails sliceDetails(const TimelineIndex& index, SliceRef slice, bool readArgs) {
  const TimelineLane& lane = index.lane(slice.lane);
  FATHOM_CHECK(slice.index < lane.sliceCount(), ConfigError, "no slice ", slice.index, " in lane ", slice.lane);
  SliceDetails d;
  const std::uint32_t i = slice.index;
  d.name = index.name(lane.name[i]);
  d.category = index.category(lane.category[i]);
  d.startNs = lane.start[i];
  d.durationNs = lane.duration(i);
  d.depth = lane.depthOf(i);
  std::int64_t children = 0;
  const SliceWindow inside =
      visibleSlices(lane, d.depth + 1, {lane.start[i], std::max(lane.end[i], lane.start[i] + 1)});
  for (std::uint32_t c = inside.begin; c < inside.end; ++c) {
    children += std::min(lane.end[c], lane.end[i]) - std::max(lane.start[c], lane.start[i]);
  }
  d.selfNs = std::max<std::int64_t>(d.durationNs - children, 0);
  for (const TimelineFlow& f : index.flowsFrom(slice)) {
    d.flowsOut.push_back(f.to);
  }
  for (const TimelineFlow& f : index.flowsTo(slice)) {
    d.flowsIn.push_back(f.from);
  }
  // Descendants: every deeper slice inside [start, end] (depths are disjoint, so each depth is one window).
  std::set<SliceRef> launched;
  for (std::uint32_t depth = d.depth; depth < lane.depthCount(); ++depth) {
    const SliceWindow w = depth == d.depth
                              ? SliceWindow{i, i + 1}
                              : visibleSlices(lane, depth, {lane.start[i], std::max(lane.end[i], lane.start[i] + 1)});
    for (std::uint32_t c = w.begin; c < w.end; ++c) {
      if (lane.start[c] >= lane.start[i] && lane.end[c] <= lane.end[i]) {
        for (const TimelineFlow& f : index.flowsFrom({slice.lane, c})) {
          launched.insert(f.to);
        }
      }
    }
  }
  d.launched.assign(launched.begin(), launched.end());
  if (readArgs) {
    d.eventJson = index.eventText(lane.offset[i]);
  }
  return d;
}

AreaAggregation aggregateArea(const TimelineIndex& index, TimeRange range, std::span<const std::uint32_t> lanes,
                              const AreaOptions& options) {
  checkRange(range);
  AreaAggregation area;
  area.range = range;
  std::vector<NameAggregate> byName(index.names().size());
  std::set<std::optional<int>> ranks;
  for (const std::uint32_t l : lanes) {
    FATHOM_CHECK(l < index.lanes().size(), ConfigError, "no lane ", l, " (the trace has ", index.lanes().size(), ")");
    const TimelineLane& lane = index.lane(l);
    ranks.insert(index.processes()[lane.process].rank);
    for (std::uint32_t depth = 0; depth < lane.depthCount(); ++depth) {
      const SliceWindow w = visibleSlices(lane, depth, range);
      for (std::uint32_t i = w.begin; i < w.end; ++i) {
        NameAggregate& a = byName[lane.name[i]];
        a.name = lane.name[i];
        ++a.count;
        a.totalNs += lane.duration(i);
        a.maxNs = std::max(a.maxNs, lane.duration(i));
      }
    }
  }
  for (const NameAggregate& a : byName) {
    if (a.count > 0) {
      area.byName.push_back(a);
    }
  }
  std::sort(area.byName.begin(), area.byName.end(), [&](const NameAggregate& a, const NameAggregate& b) {
    return a.totalNs != b.totalNs ? a.totalNs > b.totalNs : index.name(a.name) < index.name(b.name);
  });
  // Each rank's summary over the range, by the summary's own code, fed every slice of the rank that meets the range
  // (the summarizer clips them exactly as `fathom trace summary --from/--to` does).
  for (const std::optional<int>& rank : ranks) {
    detail::TraceSummarizer summarizer(detail::Interval{range.startNs, range.endNs});
    for (const TimelineLane& lane : index.lanes()) {
      if (index.processes()[lane.process].rank != rank) {
        continue;
      }
      for (std::uint32_t depth = 0; depth < lane.depthCount(); ++depth) {
        const SliceWindow w = visibleSlices(lane, depth, range);
        for (std::uint32_t i = w.begin; i < w.end; ++i) {
          detail::SummaryArgs args;
          if (const SliceFacts* f = lane.factsOf(i)) {
            args.correlation = f->hasCorrelation ? std::optional<std::int64_t>(f->correlation) : std::nullopt;
            args.bytes = f->hasBytes ? std::optional<std::int64_t>(f->bytes) : std::nullopt;
            args.collectiveName = index.name(f->collectiveName);
          }
          summarizer.addComplete(index.category(lane.category[i]), index.name(lane.name[i]), lane.start[i], lane.end[i],
                                 lane.key, args);
        }
      }
    }
    area.ranks.push_back({rank, summarizer.finish(options.top)});
    area.ranks.back().summary.rank = rank;
  }
  return area;
}

}  // namespace fathom::trace
