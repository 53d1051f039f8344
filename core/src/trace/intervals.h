// SPDX-License-Identifier: Apache-2.0
// Interval arithmetic for the trace summary: unions of busy time and their measure inside a window.
#pragma once

#include <cstdint>
#include <vector>

namespace fathom::trace::detail {

/// [start, end) in nanoseconds.
struct Interval {
  std::int64_t start = 0;
  std::int64_t end = 0;
};

/// A union of intervals: sorted by start, disjoint and non-touching (abutting intervals are merged), none empty.
using IntervalUnion = std::vector<Interval>;

/// The union of `intervals` (taken by value: it is sorted in place).
IntervalUnion unite(std::vector<Interval> intervals);
/// The union of two unions.
IntervalUnion unite(const IntervalUnion& a, const IntervalUnion& b);
/// The intersection of two unions.
IntervalUnion intersect(const IntervalUnion& a, const IntervalUnion& b);
/// The total length of `u` inside [lo, hi).
std::int64_t measure(const IntervalUnion& u, std::int64_t lo, std::int64_t hi);

}  // namespace fathom::trace::detail
