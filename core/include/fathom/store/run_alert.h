// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/parallel/collective_wavefront.h>
#include <fathom/store/ids.h>

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fathom::store {

/// What the launcher's run monitor detected (docs/launch.md, "Hang and straggler detection").
enum class AlertKind {
  Hang,       ///< ranks disagree on the collective wavefront and none made progress for the hang timeout
  Straggler,  ///< a rank's own time per step stayed above the others' median by more than the threshold
};

/// "hang", "straggler": the spelling stored in the workspace and printed by the CLI.
std::string_view toString(AlertKind kind);
std::optional<AlertKind> parseAlertKind(std::string_view text);

/// How an alert ended.
enum class AlertEnd {
  Resolved,  ///< the condition cleared while the run went on: a rank made progress, the straggler caught up
  RunEnded,  ///< the run ended (finished, failed or was stopped) while the alert was still open
};

/// "resolved", "run_ended": the spelling stored in the workspace and printed by the CLI.
std::string_view toString(AlertEnd end);
std::optional<AlertEnd> parseAlertEnd(std::string_view text);

/// One rank as an alert saw it.
struct AlertRank {
  int rank = 0;
  /// Hang: the rank has not entered the collective the others wait in. Straggler: the slow rank.
  bool behind = false;
  std::int64_t step = 0;  ///< its step (as its heartbeats report it) when the alert was raised
  std::optional<parallel::CollectivePosition> entered;   ///< the last collective it entered
  std::optional<parallel::CollectivePosition> finished;  ///< the last collective it finished
  /// Its own seconds per step (outside collectives) over the straggler window; empty when not measured.
  std::optional<double> stepSeconds;

  bool operator==(const AlertRank&) const = default;
};

/// A typed run event of the run monitor: one per hang episode, one per straggling period of a rank.
struct RunAlert {
  AlertKind kind = AlertKind::Hang;
  double time = 0;  ///< when it was raised: seconds since the Unix epoch (the launcher's clock)
  /// Hang: seconds without progress of any rank when it was raised (>= the hang timeout). Straggler: 0.
  double stalledSeconds = 0;
  /// Hang: the collective the ranks ahead wait in (the highest sequence entered). Straggler: empty.
  std::optional<parallel::CollectivePosition> waitingIn;
  /// Straggler: the median of the other ranks' own seconds per step. Hang: empty.
  std::optional<double> medianStepSeconds;
  /// When the episode ended (a rank made progress; the straggler caught up; the run ended); empty while it lasts.
  std::optional<double> resolvedAt;
  /// How it ended; meaningful once resolvedAt is set.
  AlertEnd end = AlertEnd::Resolved;
  std::vector<AlertRank> ranks;  ///< every rank the monitor compared, ordered by rank

  /// The ranks marked behind, ascending.
  std::vector<int> behind() const;
  bool operator==(const RunAlert&) const = default;
};

/// A stored alert.
struct AlertRow {
  AlertId id;
  RunId run;
  RunAlert alert;
};

/// One line for people: "hang: rank 1 behind (rank 1 last entered all_reduce #11); rank 0 waits in all_reduce #12
/// (world, 2 ranks, 4 B) for 5.0 s" or "straggler: rank 1 takes 0.105 s per step, 3.10x the others' median 0.034 s".
std::string describeAlert(const RunAlert& alert);

/// The alert as JSON (docs/workspace.md, "Alerts"): {"id", "run_id", "kind", "time", "stalled_seconds",
/// "waiting_in", "median_step_seconds", "resolved_at", "ended" ("resolved"/"run_ended"), "behind": [ranks], "ranks":
/// [{"rank", "behind", "step", "entered", "finished", "step_seconds"}]}; a collective is {"sequence", "kind", "group",
/// "group_size", "bytes"}; absent values are null. `fathom launch --json`, `fathom runs watch --json` and `fathom runs
/// show --json` write it.
nlohmann::json alertToJson(const AlertRow& row);
/// A collective position as JSON (null when empty).
nlohmann::json positionToJson(const std::optional<parallel::CollectivePosition>& position);

}  // namespace fathom::store
