// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/store/run_comparison.h>

#include <vector>

namespace fathom::views {

/// What the comparison page shows, read off the GUI thread: core's comparison (summaries and the configuration
/// diff) and every metric point of the runs, for the overlaid plots.
struct RunComparisonData {
  store::RunComparison comparison;
  std::vector<store::MetricRow> metrics;
};

}  // namespace fathom::views
