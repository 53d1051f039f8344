// SPDX-License-Identifier: Apache-2.0
// The level-of-detail summary of a lane's depth (SliceLod, timeline_index.h): built once at load, it answers
// "the longest slice of [i, j)" in O(1) plus at most two partial blocks, which is what per-pixel merging needs.
#pragma once

#include "fathom/trace/timeline_index.h"

#include <cstdint>

namespace fathom::trace::detail {

/// Builds lane.lod[depth] from the lane's start/end arrays (the depth's slices must be in place).
SliceLod buildSliceLod(const TimelineLane& lane, std::uint32_t depth);

/// The index of the longest slice among [i, j) of `depth` (i < j, both within the depth): the largest duration,
/// ties to the lower index.
std::uint32_t longestSlice(const TimelineLane& lane, std::uint32_t depth, std::uint32_t i, std::uint32_t j);

/// Builds counter.maxLod and counter.minLod (its samples must be sorted).
void buildCounterLod(TimelineCounter& counter);
/// The sample with the largest (`largest`) or smallest value among samples [i, j) (i < j); ties: the earlier.
std::uint32_t extremeSample(const TimelineCounter& counter, std::uint32_t i, std::uint32_t j, bool largest);

}  // namespace fathom::trace::detail
