// SPDX-License-Identifier: Apache-2.0
#include "slice_timeline.h"

#include <algorithm>
#include <limits>

namespace fathom::trace::detail {

void SliceTimeline::addSlice(std::int64_t pid, std::int64_t tid, const Slice& slice) {
  m_rows[{pid, tid}].slices.push_back(slice);
}

void SliceTimeline::addBindingPoint(std::int64_t pid, std::int64_t tid, std::int64_t ts, std::uint64_t event) {
  m_rows[{pid, tid}].points.push_back({ts, event});
}

void SliceTimeline::sortSlices(NsConversion c) {
  for (auto& [key, r] : m_rows) {
    // Start ascending; on equal starts the longer slice first (it is the parent); then file order.
    std::sort(r.slices.begin(), r.slices.end(), [c](const Slice& a, const Slice& b) {
      if (a.startIn(c) != b.startIn(c)) {
        return a.startIn(c) < b.startIn(c);
      }
      return a.endIn(c) != b.endIn(c) ? a.endIn(c) > b.endIn(c) : a.event < b.event;
    });
  }
}

void SliceTimeline::forEachOverlap(NsConversion c,
                                   const std::function<void(const RowKey&, const Slice&, const Slice&)>& report) {
  sortSlices(c);
  std::vector<const Slice*> open;  // the chain of slices enclosing the current start, innermost last
  for (const auto& [key, r] : m_rows) {
    open.clear();
    for (const Slice& s : r.slices) {
      while (!open.empty() && open.back()->endIn(c) <= s.startIn(c)) {
        open.pop_back();  // ended before s starts (abutting is fine)
      }
      if (!open.empty() && s.endIn(c) > open.back()->endIn(c)) {
        report(key, s, *open.back());  // starts inside the innermost open slice, ends after it
        continue;                      // Perfetto moves it off the row; keep checking the rest
      }
      open.push_back(&s);
    }
  }
}

void SliceTimeline::forEachUnboundPoint(const std::function<void(const RowKey&, const Point&)>& report) {
  sortSlices(NsConversion::Rounded);
  std::vector<std::int64_t> maxEnd;  // maxEnd[i] = the latest end among slices[0..i]
  for (const auto& [key, r] : m_rows) {
    if (r.points.empty()) {
      continue;
    }
    maxEnd.resize(r.slices.size());
    std::int64_t latest = std::numeric_limits<std::int64_t>::min();
    for (std::size_t i = 0; i < r.slices.size(); ++i) {
      latest = std::max(latest, r.slices[i].end);
      maxEnd[i] = latest;
    }
    for (const Point& p : r.points) {
      // The slices starting at or before p; p is inside one of them iff the latest of their ends reaches p.
      const auto after = std::upper_bound(r.slices.begin(), r.slices.end(), p.ts,
                                          [](std::int64_t ts, const Slice& s) { return ts < s.start; });
      const auto count = static_cast<std::size_t>(after - r.slices.begin());
      if (count == 0 || maxEnd[count - 1] < p.ts) {
        report(key, p);
      }
    }
  }
}

}  // namespace fathom::trace::detail
