// SPDX-License-Identifier: Apache-2.0
#include "slice_lod.h"

#include "block_sparse_table.h"

namespace fathom::trace::detail {
namespace {

/// Longer first; ties to the lower index, so every query has one answer whatever the order of scans.
struct Longer {
  const TimelineLane& lane;
  bool operator()(std::uint32_t a, std::uint32_t b) const {
    const std::int64_t da = lane.duration(a);
    const std::int64_t db = lane.duration(b);
    return da > db || (da == db && a < b);
  }
};

/// The larger (or smaller) value first; ties to the lower index.
struct Extreme {
  const TimelineCounter& counter;
  bool largest;
  bool operator()(std::uint32_t a, std::uint32_t b) const {
    const double va = counter.value[a];
    const double vb = counter.value[b];
    return (largest ? va > vb : va < vb) || (va == vb && a < b);
  }
};

}  // namespace

SliceLod buildSliceLod(const TimelineLane& lane, std::uint32_t depth) {
  const std::uint32_t base = lane.depthBegin[depth];
  return buildBlockTable(base, lane.depthBegin[depth + 1] - base, Longer{lane});
}

std::uint32_t longestSlice(const TimelineLane& lane, std::uint32_t depth, std::uint32_t i, std::uint32_t j) {
  return queryBlockTable(lane.lod[depth], lane.depthBegin[depth], i, j, Longer{lane});
}

void buildCounterLod(TimelineCounter& counter) {
  const auto n = static_cast<std::uint32_t>(counter.value.size());
  counter.maxLod = buildBlockTable(0, n, Extreme{counter, true});
  counter.minLod = buildBlockTable(0, n, Extreme{counter, false});
}

std::uint32_t extremeSample(const TimelineCounter& counter, std::uint32_t i, std::uint32_t j, bool largest) {
  return queryBlockTable(largest ? counter.maxLod : counter.minLod, 0, i, j, Extreme{counter, largest});
}

}  // namespace fathom::trace::detail
