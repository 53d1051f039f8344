// SPDX-License-Identifier: Apache-2.0
// Building and querying BlockTable (timeline_index.h): "the best element of [i, j)" for a fixed order, in O(1) for
// any run that spans two blocks or more. The timeline's level-of-detail summaries (the longest slice of a run, a
// counter's extremes) are made of it.
#pragma once

#include "fathom/trace/timeline_index.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

namespace fathom::trace::detail {

/// Builds the table of elements [base, base + count). `better(a, b)` must be a strict order on element indices with
/// ties broken (e.g. by index), so that every query has one answer.
template <typename Better> BlockTable buildBlockTable(std::uint32_t base, std::uint32_t count, Better better) {
  constexpr std::uint32_t B = BlockTable::kBlock;
  auto pick = [&](std::uint32_t a, std::uint32_t b) { return better(b, a) ? b : a; };
  BlockTable table;
  table.prefix.resize(count);
  table.suffix.resize(count);
  const std::uint32_t blocks = count / B;  // full blocks
  std::vector<std::uint32_t> level(blocks);
  for (std::uint32_t start = 0; start < count; start += B) {
    const std::uint32_t end = std::min(start + B, count);
    std::uint32_t best = base + start;
    for (std::uint32_t k = start; k < end; ++k) {
      best = pick(best, base + k);
      table.prefix[k] = static_cast<std::uint8_t>(best - base - start);
    }
    if (end - start == B) {
      level[start / B] = best;
    }
    best = base + end - 1;
    for (std::uint32_t k = end; k-- > start;) {
      best = pick(base + k, best);  // on a tie the earlier (k) wins, as in the prefix
      table.suffix[k] = static_cast<std::uint8_t>(best - base - start);
    }
  }
  if (blocks == 0) {
    return table;
  }
  table.levels.push_back(std::move(level));
  for (std::uint32_t width = 2; width <= blocks; width *= 2) {
    const std::vector<std::uint32_t>& prev = table.levels.back();
    std::vector<std::uint32_t> next(blocks - width + 1);
    for (std::uint32_t b = 0; b < next.size(); ++b) {
      next[b] = pick(prev[b], prev[b + width / 2]);
    }
    table.levels.push_back(std::move(next));
  }
  return table;
}

/// The best element of [i, j) (base <= i < j <= base + count) under the table built with the same `base`/`better`.
template <typename Better>
std::uint32_t queryBlockTable(const BlockTable& table, std::uint32_t base, std::uint32_t i, std::uint32_t j,
                              Better better) {
  constexpr std::uint32_t B = BlockTable::kBlock;
  auto pick = [&](std::uint32_t a, std::uint32_t b) { return better(b, a) ? b : a; };
  const std::uint32_t li = i - base;
  const std::uint32_t lj = j - 1 - base;  // the last element, inclusive
  const std::uint32_t bi = li / B;
  const std::uint32_t bj = lj / B;
  if (bi == bj) {
    if (li % B == 0) {
      return base + bi * B + table.prefix[lj];  // from the block's start
    }
    if (lj + 1 == std::min((bi + 1) * B, static_cast<std::uint32_t>(table.prefix.size()))) {
      return base + bi * B + table.suffix[li];  // to the block's end
    }
    std::uint32_t best = i;  // inside one block: at most B elements
    for (std::uint32_t k = i + 1; k < j; ++k) {
      best = pick(best, k);
    }
    return best;
  }
  std::uint32_t best = pick(base + bi * B + table.suffix[li], base + bj * B + table.prefix[lj]);
  if (bj > bi + 1) {  // full blocks bi+1 .. bj-1 between: two overlapping runs of 2^k blocks cover them
    const std::uint32_t first = bi + 1;
    const std::uint32_t n = bj - first;
    const int k = std::bit_width(n) - 1;
    best = pick(best, pick(table.levels[k][first], table.levels[k][bj - (1u << k)]));
  }
  return best;
}

}  // namespace fathom::trace::detail
