// SPDX-License-Identifier: Apache-2.0
#pragma once

// Time <-> pixel arithmetic of the timeline, free functions over a visible range (Qt Creator's
// timelinecoordinates.h). Pixel columns match trace::mergeForPixels: column c covers the times t with
// floor((t - range.startNs) * pixels / length) == c.

#include <fathom/trace/trace_summary.h>

#include <QString>

#include <cstdint>

namespace fathom::views {

/// The x of time `t` (may lie outside [0, pixels]); the range must not be empty.
double timeToPixel(const trace::TimeRange& range, int pixels, std::int64_t t);
/// The time at x (the start of the pixel column when x is an integer).
std::int64_t pixelToTime(const trace::TimeRange& range, int pixels, double x);
/// The ruler's tick step: the smallest 1, 2 or 5 x 10^k ns that is at least `minPixels` wide.
std::int64_t tickStep(const trace::TimeRange& range, int pixels, int minPixels);
/// `ns` in the unit that suits `step` (ns, µs, ms, s) with as many decimals as the step needs: a tick's label.
QString formatTime(std::int64_t ns, std::int64_t step);
/// A duration with about four significant digits in the unit that suits it ("25.65 ms", "2.324 µs"): the panels'.
QString formatDuration(std::int64_t ns);

}  // namespace fathom::views
