// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/common/log.h>
#include <fathom/parallel/collective_wavefront.h>
#include <fathom/plan/training_plan.h>
#include <fathom/store/ids.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fathom::store {

enum class RunStatus { Running, Succeeded, Failed, Lost };

/// "running", "succeeded", "failed", "lost": the spelling stored in the workspace and printed by the CLI.
std::string_view toString(RunStatus status);
std::optional<RunStatus> parseRunStatus(std::string_view text);

enum class ArtifactKind { Checkpoint, Trace, Export };

/// "checkpoint", "trace", "export".
std::string_view toString(ArtifactKind kind);
std::optional<ArtifactKind> parseArtifactKind(std::string_view text);

/// The data-parallel strategy a run trains with, in the planner's vocabulary (plan and actual use the same names).
struct RunStrategy {
  plan::Strategy strategy = plan::Strategy::Ddp;
  plan::FsdpSharding fsdpSharding = plan::FsdpSharding::FullShard;  ///< meaningful for Strategy::Fsdp only

  bool operator==(const RunStrategy& other) const {
    return strategy == other.strategy && (strategy != plan::Strategy::Fsdp || fsdpSharding == other.fsdpSharding);
  }
};

/// DeepSpeed's ZeRO stage as a strategy: Zero1-Zero3 for stages 1-3; stage 0 (no partitioning) is plain DDP.
RunStrategy zeroStageStrategy(int stage);

/// "ddp", "fsdp/full_shard", "zero2": the strategy as one label (plan::strategyLabel), as `fathom runs` prints it.
std::string strategyLabel(const RunStrategy& strategy);

/// What rank 0 of a run reports of the setup it trains with (its Accelerator's options). It replaces what the
/// launcher recorded, which knows only what the launcher selected: `fathom train --strategy zero2` decides in the
/// worker.
struct RunSetup {
  RunStrategy strategy;
  std::string mixedPrecision;  ///< Accelerate's spelling: "no", "fp16", "bf16", "fp8"
};

/// The shape of a run as typed columns of its row, recorded when the run is created (the launcher's selection, or
/// the process's own setup for a run written without a launcher) and corrected by rank 0's RunSetup, so no reader
/// re-derives it from configuration text or a command line. Runs of schema versions before 4 had these derived
/// once, when the workspace was migrated (docs/workspace.md).
struct RunLayout {
  int worldSize = 0;                    ///< processes over all machines; 0 = unknown
  int numMachines = 0;                  ///< machines in the run; 0 = unknown
  std::optional<RunStrategy> strategy;  ///< empty = unknown
  std::string mixedPrecision;           ///< "no", "fp16", "bf16", "fp8"; empty = unknown
  /// The machines by machine rank, as far as the creator of the record knows them (each machine's launcher
  /// records its own); "" for a machine it does not know.
  std::vector<std::string> hosts;

  bool operator==(const RunLayout& other) const = default;
};

/// What createRun needs. The launcher defaults to the calling process.
struct NewRun {
  std::string name;
  std::string commandLine;
  std::string configFormat;  ///< "yaml", "json" or empty
  std::string configText;    ///< the effective configuration, as the run saw it
  /// The run specification it was launched with (config::RunSpec as Accelerate YAML, every key written): what
  /// `fathom launch --config_file` of that text would run again. Empty when the run was not made from one.
  std::string runSpec;
  RunLayout layout;  ///< the run's shape, as far as its creator knows it
  /// The SLURM job the run ran in (SLURM_JOB_ID of `fathom launch --slurm`); empty outside SLURM.
  std::string slurmJobId;
  /// The plan it was launched with: the `fathom plan --json` object (plan/prediction_json.h), stored as a run plan
  /// of source "launch" in the same transaction; empty when the launcher could not plan the program.
  std::string planJson;
  /// Appends "-<run id>" to `name` in the same transaction: `fathom launch`'s default names ("train-12"), unique in
  /// the workspace.
  bool numberName = false;
};

/// One row of `runs`. Times are seconds since the Unix epoch.
struct RunInfo {
  RunId id;
  std::string name;
  RunStatus status = RunStatus::Running;
  double createdAt = 0;
  std::optional<double> startedAt;
  std::optional<double> endedAt;
  std::optional<int> exitCode;
  std::string commandLine;
  std::string host;
  std::int64_t launcherPid = 0;
  std::uint64_t launcherStartTime = 0;
  std::string configFormat;
  std::string configText;
  std::string runSpec;     ///< see NewRun::runSpec ('' for runs of schema 5 and older)
  std::string slurmJobId;  ///< see NewRun::slurmJobId ('' for runs of schema 9 and older)
  RunLayout layout;
};

/// One process of a run.
struct RankInfo {
  int rank = 0;
  std::string host;
  std::int64_t pid = 0;
  std::string device;  ///< "cuda:0", "cpu", ...
  std::optional<int> exitCode;
};

/// A scalar as a rank logs it.
struct MetricPoint {
  int rank = 0;
  std::int64_t step = 0;
  double wallTime = 0;  ///< seconds since the Unix epoch
  std::string key;
  double value = 0;  ///< NaN is stored as NULL and read back as NaN
};

/// A stored metric: the point plus where it lives.
struct MetricRow {
  MetricId id;
  RunId run;
  MetricPoint point;
};

/// Per (key, rank) summary of a run's metrics.
struct MetricSummary {
  std::string key;
  int rank = 0;
  std::int64_t count = 0;
  std::int64_t lastStep = 0;
  double last = 0;
  double min = 0;
  double max = 0;
};

/// A log line or event of one rank.
struct EventRecord {
  int rank = 0;
  double time = 0;
  LogLevel level = LogLevel::Info;
  std::string text;
};

struct EventRow {
  EventId id;
  RunId run;
  EventRecord event;
};

/// A file a run produced.
struct Artifact {
  ArtifactKind kind = ArtifactKind::Checkpoint;
  std::string path;
  std::int64_t bytes = 0;
};

struct ArtifactRow {
  ArtifactId id;
  RunId run;
  Artifact artifact;
  double createdAt = 0;
};

/// The latest sign of life of one rank (the telemetry collector keeps one row per rank, the newest).
struct Heartbeat {
  int rank = 0;
  double time = 0;        ///< seconds since the Unix epoch, as the rank's clock read it
  std::int64_t step = 0;  ///< the rank's step at that time
  /// The last collective the rank entered and the last it finished (its collective wavefront, docs/launch.md "Hang
  /// and straggler detection"); empty before its first call, for a rank without a process group, and for rows of
  /// schema 6 and older.
  std::optional<parallel::CollectivePosition> entered;
  std::optional<parallel::CollectivePosition> finished;

  bool operator==(const Heartbeat&) const = default;
};

/// A piece of a named trace (opaque bytes, e.g. a Chrome trace or a profiler dump) sent by one rank. A trace is
/// the concatenation of its chunks of one (name, rank) in id order.
struct TraceChunk {
  int rank = 0;
  std::string name;
  double time = 0;
  std::string data;
};

/// Totals of one stored trace, per (name, rank).
struct TraceSummary {
  std::string name;
  int rank = 0;
  std::int64_t chunks = 0;
  std::int64_t bytes = 0;
};

/// A device map a process of the run dispatched a model with (bigmodel::DispatchedModel), as that process recorded
/// it (telemetry::SqliteTracker::deviceMap; schema 11). The record is bigmodel::DispatchRecord's JSON (the model's
/// module tree, the map, the limits it was planned with): the store keeps it whole and never reads it.
struct RunDeviceMap {
  int rank = 0;
  double createdAt = 0;    ///< seconds since the Unix epoch, as the recording process's clock read it
  std::string recordJson;  ///< bigmodel::toJson(DispatchRecord)
};

/// A stored RunDeviceMap with its row id (ids grow in the order the maps were stored).
struct RunDeviceMapRow {
  DeviceMapId id;
  RunDeviceMap map;
};

/// A hardware profile fitted to a profiled run (`fathom plan --calibrate_from RUN`, schema 12): the calibrated
/// profile with its run_fit section as plan::formatHardwareYaml writes it, kept whole; the store reads only the
/// columns that find it (docs/workspace.md, "Hardware fits").
struct HardwareFit {
  RunId run;                   ///< the run it was fitted to
  double createdAt = 0;        ///< seconds since the Unix epoch
  std::string host;            ///< the calibration's host
  std::string device;          ///< the calibration's device: "cpu" or "cuda"
  std::string baseMeasuredAt;  ///< measured_at of the calibration it refines
  std::string profileYaml;     ///< the fitted profile
};

/// A stored HardwareFit with its row id (ids grow in the order the fits were stored).
struct HardwareFitRow {
  HardwareFitId id;
  HardwareFit fit;
};

/// What one telemetry commit writes: everything in one transaction (Workspace::append).
struct IngestBatch {
  std::vector<RankInfo> ranks;  ///< upserted first
  std::vector<MetricPoint> metrics;
  std::vector<EventRecord> events;
  std::vector<Heartbeat> heartbeats;  ///< the newest per rank wins
  std::vector<TraceChunk> traces;
  std::vector<Artifact> artifacts;
  std::optional<RunSetup> setup;  ///< rank 0's report of its setup: replaces the run's strategy and precision
  std::vector<RunDeviceMap> deviceMaps;

  bool empty() const {
    return ranks.empty() && metrics.empty() && events.empty() && heartbeats.empty() && traces.empty() &&
           artifacts.empty() && !setup && deviceMaps.empty();
  }
};

/// A saved planner invocation: its input and its prediction, both JSON text.
/// A run's stored plan (table run_plans, schema 7): what the planner predicted for the run.
struct RunPlan {
  double createdAt = 0;
  std::string source;          ///< "launch" (made when the run was launched) or "computed" (made later)
  std::string predictionJson;  ///< the `fathom plan --json` object (plan::PredictionReport)
};

struct PlanRecord {
  PlanId id;
  double createdAt = 0;
  std::string inputJson;
  std::string predictionJson;
};

}  // namespace fathom::store
