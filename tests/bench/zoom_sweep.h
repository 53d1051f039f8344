// SPDX-License-Identifier: Apache-2.0
// The timeline benchmarks' automated sweep (issue 19), shared so that bench_timeline_index (the bare queries) and
// bench_timeline_paint (the view) time the same frames: fit -> zoom in by 1.25x a frame around the trace's middle to
// a 20 µs window (kernels are µs long) -> 300 frames of panning by 10 % of the window (a held A/D key) -> zoom back
// out to the whole trace.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace fathom::bench {

/// Calls draw(startNs, endNs) for each frame of the sweep over [lo, hi].
template <class Draw> void zoomPanSweep(std::int64_t lo, std::int64_t hi, Draw&& draw) {
  const std::int64_t centre = lo + (hi - lo) / 2;
  double width = static_cast<double>(hi - lo);
  draw(lo, hi);
  while (width > 20'000.0) {
    width /= 1.25;
    const auto half = static_cast<std::int64_t>(width / 2);
    draw(centre - half, centre + half + 1);
  }
  auto w = static_cast<std::int64_t>(width);
  std::int64_t a = centre - w / 2;
  for (int i = 0; i < 300; ++i) {
    a += w / 10;
    draw(a, a + w + 1);
  }
  while (width < static_cast<double>(hi - lo)) {
    width *= 1.25;
    const auto half = static_cast<std::int64_t>(width / 2);
    draw(std::max(lo, a - half), std::min(hi, a + half + 1));
  }
  draw(lo, hi);
}

/// The p-th percentile (0..1) of `v`, 0 when empty.
inline double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[std::min(v.size() - 1, static_cast<std::size_t>(p * static_cast<double>(v.size())))];
}

}  // namespace fathom::bench
