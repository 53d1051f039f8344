// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/store/records.h>
#include <fathom/store/run_alert.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace fathom::telemetry {

/// The machine-readable channel of `fathom launch --json` (docs/launch.md, "Machine-readable output"): one JSON
/// object per line on the launcher's standard output, each with an "event" key. A program that drives the
/// launcher (the Studio) learns the run and its outcome from these lines, never from the launcher's messages for
/// people. Writer and reader both use this header, so the field names exist once.

/// The version of the line format, in every "run" line. Fields may be added; none is removed or changes meaning
/// without a new version.
inline constexpr int kLaunchEventVersion = 1;

/// "run": the launcher created the run in the workspace (the first line, before any worker starts).
struct RunCreated {
  std::int64_t runId = 0;
  std::string name;        ///< the run's name as recorded
  std::string workspace;   ///< the workspace file, absolute
  int worldSize = 0;       ///< processes over all machines
  std::vector<int> ranks;  ///< the global ranks this launcher runs
};

/// "rank_started": a worker process was spawned (again for each restart attempt).
struct RankStarted {
  int rank = 0;
  int localRank = 0;
  int attempt = 0;  ///< 0, then one per restart
  std::int64_t pid = 0;
};

/// "rank_ended": a worker process ended.
struct RankEnded {
  int rank = 0;
  int localRank = 0;
  int attempt = 0;
  std::int64_t pid = 0;
  int exitCode = 0;           ///< as a shell reports it: the exit code, or 128 + the signal
  std::optional<int> signal;  ///< the signal that killed it
};

/// "finished": the launch is over and the run's final status is recorded (the last line).
struct LaunchFinished {
  std::int64_t runId = 0;
  store::RunStatus status = store::RunStatus::Succeeded;  ///< "succeeded" or "failed", as the workspace has it
  int exitCode = 0;                                       ///< what `fathom launch` exits with
  int attempts = 1;                                       ///< 1 + restarts
  std::optional<int> failedRank;                          ///< the rank that brought the group down
  std::optional<int> interruptedBy;                       ///< the signal (SIGINT, SIGTERM, SIGHUP) that stopped it
};

/// "error": the launch stopped on an error (e.g. a workspace that cannot be opened, a program that cannot be
/// executed), before or after the run was created; the exit code follows as usual (2 for bad input, 1 otherwise).
struct LaunchError {
  std::string message;
};

/// "slurm_job": `fathom launch --slurm --nodes N --json` (or `launcher: slurm` outside an allocation) submitted a job
/// (state "SUBMITTED"), or squeue reported a new state of it while the launcher follows it. The job's own launch
/// writes the "run" line and those after it, which the follower passes on unchanged.
struct SlurmJobUpdate {
  std::string jobId;
  std::string state;  ///< "SUBMITTED", then SLURM's state names (PENDING, RUNNING, COMPLETED, ...)
};

using LaunchEvent = std::variant<RunCreated, RankStarted, RankEnded, LaunchFinished, LaunchError, SlurmJobUpdate>;

/// The event as one line of JSON, without the newline.
std::string toJsonLine(const LaunchEvent& event);
/// "alert" / "alert_resolved": the run monitor raised or resolved a hang or straggler alert (docs/launch.md, "Hang
/// and straggler detection"): the event key plus store::alertToJson()'s fields. Not a LaunchEvent alternative:
/// parseLaunchEvent() skips these lines, so readers that know only the lifecycle events are unaffected.
std::string alertJsonLine(const store::AlertRow& alert);

/// Reads one line written by toJsonLine(); nothing for a line that is not a launch event of a known kind (blank,
/// not JSON, another object).
std::optional<LaunchEvent> parseLaunchEvent(std::string_view line);

/// Whether `line` is a line of the event stream at all: a JSON object with a string "event" (a LaunchEvent, an
/// alert, or a kind a later version adds). How a reader of mixed output tells the stream from text for people.
bool isEventLine(std::string_view line);

}  // namespace fathom::telemetry
