// SPDX-License-Identifier: Apache-2.0
#include "slice_lod.h"

#include <algorithm>
#include <bit>

namespace fathom::trace::detail {
namespace {

/// The longer of two slices; ties to the lower index, so every query has one answer whatever the order of scans.
std::uint32_t longer(const TimelineLane& lane, std::uint32_t a, std::uint32_t b) {
  const std::int64_t da = lane.duration(a);
  const std::int64_t db = lane.duration(b);
  return da > db || (da == db && a < b) ? a : b;
}

std::uint32_t scan(const TimelineLane& lane, std::uint32_t i, std::uint32_t j) {
  std::uint32_t best = i;
  for (std::uint32_t k = i + 1; k < j; ++k) {
    best = longer(lane, best, k);
  }
  return best;
}

}  // namespace

SliceLod buildSliceLod(const TimelineLane& lane, std::uint32_t depth) {
  SliceLod lod;
  const std::uint32_t base = lane.depthBegin[depth];
  const std::uint32_t count = lane.depthBegin[depth + 1] - base;
  const std::uint32_t blocks = count / SliceLod::kBlock;  // full blocks only: a partial tail is always scanned
  if (blocks == 0) {
    return lod;
  }
  std::vector<std::uint32_t> level(blocks);
  for (std::uint32_t b = 0; b < blocks; ++b) {
    level[b] = scan(lane, base + b * SliceLod::kBlock, base + (b + 1) * SliceLod::kBlock);
  }
  lod.levels.push_back(std::move(level));
  for (std::uint32_t width = 2; width <= blocks; width *= 2) {
    const std::vector<std::uint32_t>& prev = lod.levels.back();
    std::vector<std::uint32_t> next(blocks - width + 1);
    for (std::uint32_t b = 0; b < next.size(); ++b) {
      next[b] = longer(lane, prev[b], prev[b + width / 2]);
    }
    lod.levels.push_back(std::move(next));
  }
  return lod;
}

std::uint32_t longestSlice(const TimelineLane& lane, std::uint32_t depth, std::uint32_t i, std::uint32_t j) {
  const std::uint32_t base = lane.depthBegin[depth];
  const SliceLod& lod = lane.lod[depth];
  constexpr std::uint32_t B = SliceLod::kBlock;
  const std::uint32_t firstFull = (i - base + B - 1) / B;  // the first block that starts at or after i
  const std::uint32_t endFull = (j - base) / B;            // one past the last block that ends at or before j
  const std::uint32_t fullBlocks = lod.levels.empty() ? 0 : static_cast<std::uint32_t>(lod.levels[0].size());
  if (endFull <= firstFull || firstFull >= fullBlocks) {
    return scan(lane, i, j);  // less than one full block: at most 2 * B slices
  }
  const std::uint32_t lastFull = std::min(endFull, fullBlocks);  // blocks [firstFull, lastFull) are in the table
  const std::uint32_t n = lastFull - firstFull;
  const int k = std::bit_width(n) - 1;  // 2^k <= n < 2^(k+1): two overlapping runs of 2^k blocks cover them all
  std::uint32_t best = longer(lane, lod.levels[k][firstFull], lod.levels[k][lastFull - (1u << k)]);
  const std::uint32_t headEnd = base + firstFull * B;
  const std::uint32_t tailBegin = base + lastFull * B;
  if (i < headEnd) {
    best = longer(lane, scan(lane, i, headEnd), best);
  }
  if (tailBegin < j) {
    best = longer(lane, best, scan(lane, tailBegin, j));
  }
  return best;
}

}  // namespace fathom::trace::detail
