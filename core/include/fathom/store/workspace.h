// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/store/ids.h>
#include <fathom/store/process_identity.h>
#include <fathom/store/records.h>
#include <fathom/store/run_alert.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fathom::store {

/// The run store: one SQLite file (WAL, foreign keys, a versioned schema) that the CLI, the trainers and the Studio
/// share. Every write is one transaction, so a reader or a crash never sees half of a batch. Every failure is a
/// StorageError naming the file. Not thread-safe: one Workspace per thread (several processes may open the same
/// file). docs/workspace.md describes the schema.
class Workspace {
public:
  /// The schema this build writes; files from older builds are migrated on open, newer ones refused.
  static constexpr int kSchemaVersion = 12;
  /// `PRAGMA application_id` of every workspace: "FTHM".
  static constexpr std::int32_t kApplicationId = 0x4654484D;

  struct Options {
    bool create = true;     ///< create the file when missing (otherwise a missing file is a StorageError)
    bool reconcile = true;  ///< run reconcile() after opening (not with readOnly)
    /// Open for reading only: nothing is written (no migration, no reconcile(), no journal-mode change), so a
    /// workspace in a read-only folder, or a read-only file, can be read; the writing methods throw StorageError. In
    /// a folder where SQLite cannot create the -shm file, a workspace without a write-ahead log is opened immutable
    /// (nobody can be writing it from there); one with a write-ahead log but no -shm file is refused with the reason,
    /// as reading it without the log would return old data.
    bool readOnly = false;
  };

  /// Opens (or creates) the workspace at `path`, migrating an older schema.
  explicit Workspace(std::filesystem::path path);
  Workspace(std::filesystem::path path, Options options);
  ~Workspace();
  Workspace(Workspace&&) noexcept;
  Workspace& operator=(Workspace&&) noexcept;
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;

  /// `./fathom.sqlite`.
  static std::filesystem::path defaultPath();
  /// Why this process could not write the workspace at `path`, or std::nullopt: its folder is missing, or not
  /// writable while SQLite still has to create a file there (the workspace, its -wal or -shm journal), or one of those
  /// files exists but is not writable. Readers open the workspace readOnly then (the CLI's `fathom runs ...`); a
  /// writer's constructor throws StorageError with this reason instead of SQLite's "unable to open database file".
  static std::optional<std::string> whyNotWritable(const std::filesystem::path& path);
  /// How a reader opens the existing workspace at `path` (the CLI's `fathom runs ...`, the Studio's browser, live
  /// feeds and timelines): never created, no reconcile(), and readOnly when this process cannot write it
  /// (whyNotWritable), so a workspace in a read-only folder is read instead of failing with "unable to open database
  /// file". A writable one is opened normally, so an older schema is migrated before it is read.
  static Options readerOptions(const std::filesystem::path& path);

  const std::filesystem::path& path() const;
  /// `PRAGMA user_version` of the open file (kSchemaVersion after opening).
  int schemaVersion() const;

  // --- writing -------------------------------------------------------------------------------------------------

  /// A new run in status "running", launched by `launcher` (by default this process), with its layout (one
  /// transaction).
  RunId createRun(const NewRun& run, const ProcessIdentity& launcher = ProcessIdentity::current());
  /// Sets the final status (not Running), the exit code and the end time.
  void finishRun(RunId run, RunStatus status, std::optional<int> exitCode);
  /// Records (or replaces) one rank of a run.
  void upsertRank(RunId run, const RankInfo& rank);
  /// Appends points in one transaction (all or nothing).
  void appendMetrics(RunId run, std::span<const MetricPoint> points);
  void appendEvents(RunId run, std::span<const EventRecord> events);
  /// Writes everything in `batch` in one transaction (all or nothing): the telemetry collector's commit. A setup
  /// in it replaces the run's strategy and precision.
  void append(RunId run, const IngestBatch& batch);
  ArtifactId addArtifact(RunId run, const Artifact& artifact);
  /// Stores a device map a process of `run` dispatched a model with (a process writing its own run; under the
  /// launcher, the collector stores them through append()).
  DeviceMapId addDeviceMap(RunId run, const RunDeviceMap& map);
  PlanId savePlan(std::string_view inputJson, std::string_view predictionJson);
  /// Stores an alert of the run monitor with its ranks (one transaction); the launcher's collector writes them.
  AlertId addAlert(RunId run, const RunAlert& alert);
  /// Marks `alert` ended at `time` (seconds since the Unix epoch), as `how` says; an alert already ended keeps its
  /// time and how it ended.
  void resolveAlert(AlertId alert, double time, AlertEnd how = AlertEnd::Resolved);
  /// Stores (or replaces) the plan of `run`: `predictionJson` is the `fathom plan --json` object, `source` says where
  /// it came from ("launch", "computed"). ConfigError when the run is missing.
  void setRunPlan(RunId run, std::string_view source, std::string_view predictionJson);
  /// Stores a hardware profile fitted to a run (its run must exist: ConfigError otherwise).
  HardwareFitId addHardwareFit(const HardwareFit& fit);
  /// Deletes a run and everything it owns. Throws ConfigError when the run is missing, or still running without
  /// `force`.
  void deleteRun(RunId run, bool force = false);

  /// Marks every "running" run of this host whose launcher process is gone (or was replaced by a recycled pid) as
  /// "lost", with the current time as its end. Returns the ids it changed. Runs on other hosts are left alone.
  std::vector<RunId> reconcile();

  // --- reading -------------------------------------------------------------------------------------------------

  /// Every run, oldest first.
  std::vector<RunInfo> listRuns() const;
  std::optional<RunInfo> run(RunId id) const;
  /// A run by id ("12") or by name (the newest run of that name). Throws ConfigError when none matches.
  RunInfo resolveRun(std::string_view idOrName) const;
  std::vector<RankInfo> ranks(RunId run) const;
  /// The metric keys of a run, sorted.
  std::vector<std::string> metricKeys(RunId run) const;
  /// One key's points ordered by rank then step; only `rank`'s when given.
  std::vector<MetricRow> metricSeries(RunId run, std::string_view key, std::optional<int> rank = {}) const;
  /// last/min/max/count per (key, rank), ordered by key then rank.
  std::vector<MetricSummary> metricSummaries(RunId run) const;
  /// Calls `visit` for every metric of a run in id order, without loading them all.
  void forEachMetric(RunId run, const std::function<void(const MetricRow&)>& visit) const;
  /// Metrics with id > `after` (of every run), in id order, at most `limit`: the Studio's incremental read.
  std::vector<MetricRow> metricsSince(MetricId after, std::size_t limit = 100'000) const;
  std::vector<EventRow> eventsSince(EventId after, std::size_t limit = 100'000) const;
  /// The same for one run: its metrics with id > `after`, in id order, at most `limit` (a live run page's
  /// incremental read: it costs the new rows, not the run's history).
  std::vector<MetricRow> metricsSince(RunId run, MetricId after, std::size_t limit = 100'000) const;
  std::vector<EventRow> eventsSince(RunId run, EventId after, std::size_t limit = 100'000) const;
  /// The last `limit` events (log lines) of a run, oldest first (the index (run_id, id) serves it).
  std::vector<EventRow> lastEvents(RunId run, std::size_t limit) const;
  std::vector<ArtifactRow> artifacts(RunId run) const;
  /// The device maps of `run` with id > `after` (all by default) in the order they were stored (none for runs that
  /// dispatched no model).
  std::vector<RunDeviceMapRow> deviceMaps(RunId run, DeviceMapId after = DeviceMapId{}) const;
  /// The alerts of `run` with id > `after` (all by default), in id order: the Studio's and `fathom runs watch`'s
  /// incremental read. An alert resolved later keeps its id; re-read it to see its resolution.
  std::vector<AlertRow> alerts(RunId run, AlertId after = AlertId{}) const;
  /// The latest heartbeat of each rank that sent one, by rank.
  std::vector<Heartbeat> heartbeats(RunId run) const;
  /// The traces of a run, by name then rank.
  std::vector<TraceSummary> traces(RunId run) const;
  /// One trace's bytes: the chunks of (name, rank) concatenated in arrival order; empty when there are none.
  std::string traceData(RunId run, std::string_view name, int rank) const;
  std::vector<PlanRecord> plans() const;
  /// The fits of `host`'s `device` ("cpu", "cuda") that refine the calibration measured at `baseMeasuredAt` (a fit of
  /// an older calibration no longer applies), newest first; none for an older file opened read-only, which has no
  /// fits. A plan picks among them by the processes and threads each was fitted at (cli::chooseHardware).
  std::vector<HardwareFitRow> hardwareFitsOf(std::string_view host, std::string_view device,
                                             std::string_view baseMeasuredAt) const;
  /// The fits made from `run`, oldest first.
  std::vector<HardwareFitRow> hardwareFits(RunId run) const;
  /// The stored plan of `run`; std::nullopt when it has none (runs launched before schema 7, or not planned).
  std::optional<RunPlan> runPlan(RunId run) const;

private:
  /// The rest of a readOnly open: identity and version checks, nothing written.
  void openForReading();

  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace fathom::store
