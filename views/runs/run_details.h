// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "runs/runs_model.h"

#include <fathom/store/records.h>

#include <vector>

namespace fathom::views {

/// The facts of one run the run page's header shows, read from the workspace in one go (off the GUI thread). The
/// page's tables and plots come from a RunFeed (RunDelta), which reads the run incrementally.
struct RunDetails {
  RunRow row;  ///< the run and what the browser derives from it
  std::vector<store::RankInfo> ranks;
  std::vector<store::MetricSummary> metrics;
  std::vector<store::ArtifactRow> artifacts;
  /// The state of the run's SLURM job (row.info.slurmJobId) when it was read, as squeue (else sacct) names it:
  /// "RUNNING", "COMPLETED", ...; empty for a run outside SLURM, or when SLURM could not say (no squeue here, the
  /// job long gone).
  std::string slurmState;

  /// How many of the last log lines a page reads when it opens.
  static constexpr std::size_t kEventLimit = 500;
};

}  // namespace fathom::views
