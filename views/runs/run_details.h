// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "runs/runs_model.h"

#include <fathom/store/records.h>

#include <map>
#include <utility>
#include <vector>

namespace fathom::views {

/// Everything the run page shows of one run, read from the workspace in one go (off the GUI thread).
struct RunDetails {
  RunRow row;  ///< the run and what the browser derives from it
  std::vector<store::RankInfo> ranks;
  std::vector<store::MetricSummary> metrics;
  std::vector<store::EventRow> events;  ///< the last kEventLimit log lines, oldest first
  std::vector<store::ArtifactRow> artifacts;
  /// The loss of each rank by step: (step, value) pairs ordered by step.
  std::map<int, std::vector<std::pair<std::int64_t, double>>> loss;

  static constexpr std::size_t kEventLimit = 500;
};

}  // namespace fathom::views
