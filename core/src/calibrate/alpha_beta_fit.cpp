// SPDX-License-Identifier: Apache-2.0
#include <fathom/calibrate/alpha_beta_fit.h>

#include <fathom/common/error.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace fathom::calibrate {

plan::CollectiveFit fitAlphaBeta(plan::CollectiveKind kind, int ranks, std::vector<plan::CollectivePoint> points) {
  FATHOM_CHECK(ranks >= 2, ConfigError, "an alpha-beta fit needs a group of at least 2 ranks, got ", ranks);
  std::set<std::int64_t> sizes;
  for (const auto& p : points) {
    FATHOM_CHECK(p.bytes > 0 && p.seconds > 0 && std::isfinite(p.seconds), ConfigError,
                 "an alpha-beta fit needs positive sizes and times, got ", p.bytes, " bytes in ", p.seconds, " s");
    sizes.insert(p.bytes);
  }
  FATHOM_CHECK(sizes.size() >= 2, ConfigError, "an alpha-beta fit of ", plan::toString(kind),
               " needs at least two message sizes, got ", sizes.size());
  std::sort(points.begin(), points.end(), [](const auto& a, const auto& b) { return a.bytes < b.bytes; });

  // Weighted least squares, weight 1/t_i^2 (the relative error): the normal equations of
  // min sum w_i (a + b x_i - t_i)^2 in (a, b).
  const double f = plan::busBandwidthFactor(kind, ranks);
  double s0 = 0, s1 = 0, s2 = 0, t0 = 0, t1 = 0;
  for (const auto& p : points) {
    const double x = f * static_cast<double>(p.bytes);
    const double w = 1.0 / (p.seconds * p.seconds);
    s0 += w;
    s1 += w * x;
    s2 += w * x * x;
    t0 += w * p.seconds;
    t1 += w * x * p.seconds;
  }
  const double det = s0 * s2 - s1 * s1;
  double a = det > 0 ? (t0 * s2 - s1 * t1) / det : 0.0;
  double b = det > 0 ? (s0 * t1 - s1 * t0) / det : 0.0;
  if (a < 0 || b <= 0) {
    // A negative latency means nothing physical (the sizes' times grew faster than linearly, e.g. a cache effect);
    // a non-positive slope means the times did not grow with size at all (noise over a narrow range). Either way:
    // the best pure-bandwidth line through the origin, whose slope is positive as every point is.
    a = 0.0;
    b = t1 / s2;
  }
  plan::CollectiveFit fit;
  fit.kind = kind;
  fit.ranks = ranks;
  fit.alpha = a;
  fit.beta = 1.0 / b;
  fit.points = std::move(points);
  return fit;
}

double maxRelativeError(const plan::CollectiveFit& fit) {
  double worst = 0.0;
  for (const auto& p : fit.points) {
    worst = std::max(worst, std::abs(fit.predictSeconds(static_cast<double>(p.bytes)) - p.seconds) / p.seconds);
  }
  return worst;
}

}  // namespace fathom::calibrate
