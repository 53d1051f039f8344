// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/plan/hardware_calibration.h>

#include <vector>

namespace fathom::calibrate {

/// Fits t(S) = alpha + f·S / beta (plan::CollectiveFit, f = plan::busBandwidthFactor(kind, ranks)) to `points` by
/// least squares on the relative error, sum((alpha + b·x_i - t_i) / t_i)^2 with x_i = f·S_i: every size counts alike,
/// so the small messages fix alpha and the large ones beta (an unweighted fit lets the 64 MiB points decide alpha too
/// and may make it negative). When the best alpha would be negative it is 0 and beta is refitted alone. When that one
/// line misses a size by more than 10 % and at least six sizes were measured, the sizes are also split into up to
/// three consecutive ranges of at least three sizes each, one line per range (CollectiveFit::segments), the split with
/// the smallest largest error, kept when it cuts that error by a third. The points are kept in the result, sorted by
/// size. ConfigError when fewer than two distinct sizes are given, a point is not positive, or `ranks` < 2; pure
/// arithmetic otherwise.
plan::CollectiveFit fitAlphaBeta(plan::CollectiveKind kind, int ranks, std::vector<plan::CollectivePoint> points);

/// The largest relative error |predicted - measured| / measured of `fit` over its own points.
double maxRelativeError(const plan::CollectiveFit& fit);

/// One measured collective time next to what a profile's fit predicts for it.
struct FitCheck {
  plan::CollectiveKind kind = plan::CollectiveKind::AllReduce;
  int ranks = 2;
  std::int64_t bytes = 0;
  double predicted = 0.0;  ///< seconds, the profile's fit of the kind at the rank count (CollectiveFit::predictSeconds)
  double measured = 0.0;   ///< seconds, the other calibration's point
  /// predicted / measured - 1.
  double error() const { return predicted / measured - 1.0; }
};

/// Every point of `measured`'s collectives whose kind and rank count `profile` has a fit for, predicted by that fit:
/// how well a profile holds against a later, independent measurement (`fathom calibrate --check PROFILE`). In the
/// order of `measured`'s fits and points.
std::vector<FitCheck> checkFits(const plan::HardwareCalibration& profile, const plan::HardwareCalibration& measured);

}  // namespace fathom::calibrate
