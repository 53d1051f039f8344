// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/plan/hardware_calibration.h>

#include <vector>

namespace fathom::calibrate {

/// Fits t(S) = alpha + f·S / beta (plan::CollectiveFit, f = plan::busBandwidthFactor(kind, ranks)) to `points` by
/// least squares on the relative error, sum((alpha + b·x_i - t_i) / t_i)^2 with x_i = f·S_i: every size counts alike,
/// so the small messages fix alpha and the large ones beta (an unweighted fit lets the 64 MiB points decide alpha too
/// and may make it negative). When the best alpha would be negative it is 0 and beta is refitted alone. The points
/// are kept in the result, sorted by size. ConfigError when fewer than two distinct sizes are given, a point is not
/// positive, or `ranks` < 2; CommError-free: pure arithmetic.
plan::CollectiveFit fitAlphaBeta(plan::CollectiveKind kind, int ranks, std::vector<plan::CollectivePoint> points);

/// The largest relative error |predicted - measured| / measured of `fit` over its own points.
double maxRelativeError(const plan::CollectiveFit& fit);

}  // namespace fathom::calibrate
