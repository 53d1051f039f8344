// SPDX-License-Identifier: Apache-2.0
// A sparse table over blocks: "the best element of [i, j)" for a fixed order `better`, in O(1) table reads plus at
// most two partial blocks scanned, for about 4 * log2(n / B) / B bytes per element (B = 64: ~1 byte). The
// level-of-detail summaries of the timeline (the longest slice of a run, a counter's extremes) are made of it.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

namespace fathom::trace::detail {

inline constexpr std::uint32_t kBlockSize = 64;

/// levels[0][b]: the best of block b (elements base + b*B .. base + (b+1)*B - 1, full blocks only); levels[k][b]:
/// the best of blocks b .. b + 2^k - 1. `better(a, b)` must be a strict order on element indices with ties broken
/// (e.g. by index), so that every query has one answer.
template <typename Better>
std::vector<std::vector<std::uint32_t>> buildBlockTable(std::uint32_t base, std::uint32_t count, Better better) {
  std::vector<std::vector<std::uint32_t>> levels;
  const std::uint32_t blocks = count / kBlockSize;
  if (blocks == 0) {
    return levels;
  }
  auto pick = [&](std::uint32_t a, std::uint32_t b) { return better(b, a) ? b : a; };
  std::vector<std::uint32_t> level(blocks);
  for (std::uint32_t b = 0; b < blocks; ++b) {
    std::uint32_t best = base + b * kBlockSize;
    for (std::uint32_t k = best + 1; k < base + (b + 1) * kBlockSize; ++k) {
      best = pick(best, k);
    }
    level[b] = best;
  }
  levels.push_back(std::move(level));
  for (std::uint32_t width = 2; width <= blocks; width *= 2) {
    const std::vector<std::uint32_t>& prev = levels.back();
    std::vector<std::uint32_t> next(blocks - width + 1);
    for (std::uint32_t b = 0; b < next.size(); ++b) {
      next[b] = pick(prev[b], prev[b + width / 2]);
    }
    levels.push_back(std::move(next));
  }
  return levels;
}

/// The best element of [i, j) (base <= i < j <= base + count) under the table built with the same `base`/`better`.
template <typename Better>
std::uint32_t queryBlockTable(const std::vector<std::vector<std::uint32_t>>& levels, std::uint32_t base,
                              std::uint32_t i, std::uint32_t j, Better better) {
  auto pick = [&](std::uint32_t a, std::uint32_t b) { return better(b, a) ? b : a; };
  auto scan = [&](std::uint32_t lo, std::uint32_t hi) {
    std::uint32_t best = lo;
    for (std::uint32_t k = lo + 1; k < hi; ++k) {
      best = pick(best, k);
    }
    return best;
  };
  const std::uint32_t firstFull = (i - base + kBlockSize - 1) / kBlockSize;  // the first block starting at or after i
  const std::uint32_t fullBlocks = levels.empty() ? 0 : static_cast<std::uint32_t>(levels[0].size());
  const std::uint32_t lastFull = std::min((j - base) / kBlockSize, fullBlocks);  // one past the last block inside
  if (lastFull <= firstFull) {
    return scan(i, j);  // no full block inside: at most 2 * B elements
  }
  const std::uint32_t n = lastFull - firstFull;
  const int k = std::bit_width(n) - 1;  // 2^k <= n: two overlapping runs of 2^k blocks cover them all
  std::uint32_t best = pick(levels[k][firstFull], levels[k][lastFull - (1u << k)]);
  const std::uint32_t headEnd = base + firstFull * kBlockSize;
  const std::uint32_t tailBegin = base + lastFull * kBlockSize;
  if (i < headEnd) {
    best = pick(scan(i, headEnd), best);
  }
  if (tailBegin < j) {
    best = pick(best, scan(tailBegin, j));
  }
  return best;
}

}  // namespace fathom::trace::detail
