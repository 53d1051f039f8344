// SPDX-License-Identifier: Apache-2.0
#include "intervals.h"

#include <algorithm>
#include <iterator>

namespace fathom::trace::detail {

IntervalUnion unite(std::vector<Interval> intervals) {
  std::sort(intervals.begin(), intervals.end(), [](const Interval& a, const Interval& b) { return a.start < b.start; });
  // Merged in place: `kept` intervals of the union so far sit at the front (no second vector for millions of ops).
  std::size_t kept = 0;
  for (const Interval& i : intervals) {
    if (i.end <= i.start) {
      continue;  // empty: adds no time
    }
    if (kept > 0 && i.start <= intervals[kept - 1].end) {
      intervals[kept - 1].end = std::max(intervals[kept - 1].end, i.end);
    } else {
      intervals[kept++] = i;
    }
  }
  intervals.resize(kept);
  intervals.shrink_to_fit();
  return intervals;
}

IntervalUnion unite(const IntervalUnion& a, const IntervalUnion& b) {
  std::vector<Interval> all;
  all.reserve(a.size() + b.size());
  std::merge(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(all),
             [](const Interval& x, const Interval& y) { return x.start < y.start; });
  return unite(std::move(all));
}

IntervalUnion intersect(const IntervalUnion& a, const IntervalUnion& b) {
  IntervalUnion out;
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < a.size() && j < b.size()) {
    const std::int64_t start = std::max(a[i].start, b[j].start);
    const std::int64_t end = std::min(a[i].end, b[j].end);
    if (start < end) {
      out.push_back({start, end});
    }
    // Advance whichever ends first; the other may still meet the next one.
    (a[i].end < b[j].end ? i : j) += 1;
  }
  return out;
}

std::int64_t measure(const IntervalUnion& u, std::int64_t lo, std::int64_t hi) {
  // Ends are sorted too (the intervals are disjoint): skip those that end at or before lo.
  auto it = std::upper_bound(u.begin(), u.end(), lo, [](std::int64_t t, const Interval& i) { return t < i.end; });
  std::int64_t total = 0;
  for (; it != u.end() && it->start < hi; ++it) {
    total += std::min(it->end, hi) - std::max(it->start, lo);
  }
  return total;
}

}  // namespace fathom::trace::detail
