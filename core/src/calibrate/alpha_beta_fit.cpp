// SPDX-License-Identifier: Apache-2.0
#include <fathom/calibrate/alpha_beta_fit.h>

#include <fathom/common/error.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace fathom::calibrate {

namespace {

/// t = a + b·x over x = f·S.
struct Line {
  double a = 0.0;
  double b = 0.0;
};

/// The least-squares line through points [begin, end) on the relative error (weights 1/t²): the normal equations of
/// min Σ w_i (a + b·x_i − t_i)². When the best latency would be negative (the times grew faster than linearly, e.g. a
/// cache effect) or the slope not positive (noise over a narrow range): the best line through the origin, whose
/// slope is positive as every point is.
Line weightedLine(const std::vector<plan::CollectivePoint>& points, std::size_t begin, std::size_t end, double f) {
  double s0 = 0, s1 = 0, s2 = 0, t0 = 0, t1 = 0;
  for (std::size_t i = begin; i < end; ++i) {
    const double x = f * static_cast<double>(points[i].bytes);
    const double t = points[i].seconds;
    const double w = 1.0 / (t * t);
    s0 += w;
    s1 += w * x;
    s2 += w * x * x;
    t0 += w * t;
    t1 += w * x * t;
  }
  const double det = s0 * s2 - s1 * s1;
  Line line{det > 0 ? (t0 * s2 - s1 * t1) / det : 0.0, det > 0 ? (s0 * t1 - s1 * t0) / det : 0.0};
  if (line.a < 0 || line.b <= 0) {
    line = {0.0, t1 / s2};
  }
  return line;
}

double largestError(const Line& line, const std::vector<plan::CollectivePoint>& points, std::size_t begin,
                    std::size_t end, double f) {
  double worst = 0.0;
  for (std::size_t i = begin; i < end; ++i) {
    const double t = points[i].seconds;
    worst = std::max(worst, std::abs(line.a + line.b * f * static_cast<double>(points[i].bytes) - t) / t);
  }
  return worst;
}

// Piecewise fits: at most three segments of at least three sizes each (two points would fit any line exactly and
// predict nothing between them), tried only when one line misses some size by more than 10 %, and kept only when
// they cut the largest error by a third.
constexpr std::size_t kMaxSegments = 3;
constexpr std::size_t kMinPointsPerSegment = 3;
constexpr double kSegmentThreshold = 0.10;
constexpr double kSegmentGain = 2.0 / 3.0;

/// The split of the points into consecutive runs (the start index of each) with the smallest largest error.
std::vector<std::size_t> bestSplit(const std::vector<plan::CollectivePoint>& points, double f, double* error) {
  const std::size_t n = points.size();
  std::vector<std::size_t> best{0};
  double bestError = largestError(weightedLine(points, 0, n, f), points, 0, n, f);
  auto runError = [&](std::size_t b, std::size_t e) {
    return largestError(weightedLine(points, b, e, f), points, b, e, f);
  };
  for (std::size_t i = kMinPointsPerSegment; i + kMinPointsPerSegment <= n; ++i) {
    const double two = std::max(runError(0, i), runError(i, n));
    if (two < bestError) {
      bestError = two;
      best = {0, i};
    }
    if (kMaxSegments < 3) {
      continue;
    }
    for (std::size_t j = i + kMinPointsPerSegment; j + kMinPointsPerSegment <= n; ++j) {
      const double three = std::max({runError(0, i), runError(i, j), runError(j, n)});
      if (three < bestError) {
        bestError = three;
        best = {0, i, j};
      }
    }
  }
  *error = bestError;
  return best;
}

}  // namespace

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

  const double f = plan::busBandwidthFactor(kind, ranks);
  const Line whole = weightedLine(points, 0, points.size(), f);
  plan::CollectiveFit fit;
  fit.kind = kind;
  fit.ranks = ranks;
  fit.alpha = whole.a;
  fit.beta = 1.0 / whole.b;
  const double wholeError = largestError(whole, points, 0, points.size(), f);
  if (wholeError > kSegmentThreshold && points.size() >= 2 * kMinPointsPerSegment) {
    double splitError = wholeError;
    const std::vector<std::size_t> starts = bestSplit(points, f, &splitError);
    if (starts.size() > 1 && splitError < kSegmentGain * wholeError) {
      for (std::size_t s = 0; s < starts.size(); ++s) {
        const std::size_t end = s + 1 < starts.size() ? starts[s + 1] : points.size();
        const Line line = weightedLine(points, starts[s], end, f);
        // A segment starts halfway (geometrically) between the last size of the one before and its own first.
        const std::int64_t from =
            s == 0 ? points.front().bytes
                   : static_cast<std::int64_t>(std::llround(std::sqrt(static_cast<double>(points[starts[s] - 1].bytes) *
                                                                      static_cast<double>(points[starts[s]].bytes))));
        fit.segments.push_back({from, line.a, 1.0 / line.b});
      }
    }
  }
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

std::vector<FitCheck> checkFits(const plan::HardwareCalibration& profile, const plan::HardwareCalibration& measured) {
  std::vector<FitCheck> out;
  for (const plan::CollectiveFit& now : measured.collectives) {
    const plan::CollectiveFit* fit = profile.collective(now.kind, now.ranks);
    if (fit == nullptr) {
      continue;
    }
    for (const plan::CollectivePoint& p : now.points) {
      out.push_back({now.kind, now.ranks, p.bytes, fit->predictSeconds(static_cast<double>(p.bytes)), p.seconds});
    }
  }
  return out;
}

}  // namespace fathom::calibrate
