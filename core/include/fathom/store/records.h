// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/common/log.h>
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

/// What createRun needs. The launcher defaults to the calling process.
struct NewRun {
  std::string name;
  std::string commandLine;
  std::string configFormat;  ///< "yaml", "json" or empty
  std::string configText;    ///< the effective configuration, as the run saw it
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

/// What one telemetry commit writes: everything in one transaction (Workspace::append).
struct IngestBatch {
  std::vector<RankInfo> ranks;  ///< upserted first
  std::vector<MetricPoint> metrics;
  std::vector<EventRecord> events;
  std::vector<Heartbeat> heartbeats;  ///< the newest per rank wins
  std::vector<TraceChunk> traces;
  std::vector<Artifact> artifacts;

  bool empty() const {
    return ranks.empty() && metrics.empty() && events.empty() && heartbeats.empty() && traces.empty() &&
           artifacts.empty();
  }
};

/// A saved planner invocation: its input and its prediction, both JSON text.
struct PlanRecord {
  PlanId id;
  double createdAt = 0;
  std::string inputJson;
  std::string predictionJson;
};

}  // namespace fathom::store
