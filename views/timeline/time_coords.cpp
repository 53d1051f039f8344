// SPDX-License-Identifier: Apache-2.0
#include "timeline/time_coords.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace fathom::views {

double timeToPixel(const trace::TimeRange& range, int pixels, std::int64_t t) {
  const double length = static_cast<double>(range.endNs - range.startNs);
  return static_cast<double>(t - range.startNs) * pixels / length;
}

std::int64_t pixelToTime(const trace::TimeRange& range, int pixels, double x) {
  const double length = static_cast<double>(range.endNs - range.startNs);
  return range.startNs + static_cast<std::int64_t>(std::floor(x * length / std::max(1, pixels)));
}

std::int64_t tickStep(const trace::TimeRange& range, int pixels, int minPixels) {
  const double minNs = static_cast<double>(range.endNs - range.startNs) * minPixels / std::max(1, pixels);
  for (std::int64_t decade = 1;; decade *= 10) {
    for (const std::int64_t m : {1, 2, 5})
      if (static_cast<double>(m * decade) >= minNs)
        return m * decade;
    if (decade > std::int64_t{1} << 58)
      return decade * 10;  // unreachable for int64 ranges
  }
}

QString formatTime(std::int64_t ns, std::int64_t step) {
  struct Unit {
    std::int64_t ns;
    const char* name;
  };
  static constexpr std::array<Unit, 4> kUnits{{{1, "ns"}, {1'000, "µs"}, {1'000'000, "ms"}, {1'000'000'000, "s"}}};
  Unit unit = kUnits[0];
  for (const Unit& u : kUnits)
    if (std::abs(ns) >= u.ns || step >= u.ns)
      unit = u;
  int decimals = 0;  // enough to tell two ticks apart
  for (std::int64_t d = unit.ns; d > step && d > 1 && decimals < 9; d /= 10)
    ++decimals;
  return QString::number(static_cast<double>(ns) / static_cast<double>(unit.ns), 'f', decimals) + QLatin1Char(' ') +
         QString::fromUtf8(unit.name);
}

QString formatDuration(std::int64_t ns) {
  return formatTime(ns, std::max<std::int64_t>(1, (ns < 0 ? -ns : ns) / 1000));
}

}  // namespace fathom::views
