// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/store/records.h>

#include <optional>
#include <string>
#include <vector>

namespace fathom::store {

class Workspace;

/// One configuration key whose value is not the same in every compared run.
struct ConfigDifference {
  std::string key;  ///< the key path, "num_processes", "mixed_precision", "fsdp_config.fsdp_version"
  /// The value in each run, in the order of the runs, as a user would type it; empty when the run does not set it.
  std::vector<std::optional<std::string>> values;
};

/// The peak memory of one rank of a run, as its samples recorded it.
struct RankPeakMemory {
  int rank = 0;
  std::optional<double> deviceBytes;  ///< the highest memory/peak_allocated_bytes (else memory/allocated_bytes)
  std::optional<double> hostBytes;    ///< the highest memory/peak_rss_bytes (else memory/rss_bytes)
};

/// What the comparison's summary table shows of one run.
struct RunSummary {
  RunInfo info;
  int worldSize = 0;                       ///< the recorded world size, else the ranks recorded; 0 = unknown
  std::string strategy;                    ///< strategyLabel() of the layout; empty = unknown
  std::optional<double> stepsPerSecond;    ///< the mean of rank 0's steps_per_second samples
  std::optional<double> finalLoss;         ///< rank 0's final_loss, else its last loss
  std::optional<std::int64_t> lastStep;    ///< the highest step any rank logged
  std::vector<RankPeakMemory> peakMemory;  ///< by rank
  /// Why the run's configuration could not be read (then it takes part in the diff as a run that sets nothing).
  std::string configError;
};

/// Two or more runs side by side: what `fathom runs compare` prints and the Studio's comparison page shows.
struct RunComparison {
  std::vector<RunSummary> runs;                     ///< in the order asked for
  std::vector<ConfigDifference> configDifferences;  ///< only the keys whose values differ, by key
};

/// The configuration a run recorded, as key path -> value text: its run specification (Accelerate YAML) when it
/// has one, else its configuration text when that is YAML or JSON. Throws ConfigError when the text does not parse.
/// Empty for a run that recorded neither.
std::vector<std::pair<std::string, std::string>> runConfigValues(const RunInfo& run);

/// The keys whose values differ between `configs` (each sorted by key, as runConfigValues returns them): a key set
/// in some runs and not in others differs too. Sorted by key.
std::vector<ConfigDifference>
diffConfigValues(const std::vector<std::vector<std::pair<std::string, std::string>>>& configs);

/// The summary of one run from its row, its ranks and its metric summaries (no further reads but steps_per_second).
RunSummary summarizeRun(const Workspace& workspace, const RunInfo& run);

/// Reads `runs` (at least one; each must exist) and compares them. Throws ConfigError naming a missing run.
RunComparison compareRuns(const Workspace& workspace, const std::vector<RunId>& runs);

}  // namespace fathom::store
