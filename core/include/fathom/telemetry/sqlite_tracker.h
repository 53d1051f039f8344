// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/common/log.h>
#include <fathom/parallel/collective_wavefront.h>
#include <fathom/store/ids.h>
#include <fathom/store/records.h>
#include <fathom/track/tracker.h>

#include <memory>
#include <string>
#include <string_view>

namespace fathom::store {
class Workspace;
}

namespace fathom::telemetry {

class TelemetrySender;

/// The built-in `sqlite` tracker: the run's metrics in the workspace (docs/trackers.md). Every process feeds it
/// (mainProcessOnly() is false), each with its own rank (RANK, 0 when unset).
///
/// Under `fathom launch` (FATHOM_TELEMETRY_ENDPOINT set) it sends through a TelemetrySender to the launcher's
/// collector, which writes the launcher's run. Without the launcher it opens TrackerOptions::workspace itself and
/// writes a run of its own, created at the first call (named TrackerOptions::runName, else the project name;
/// its configuration is the init configuration), marked succeeded by finish(); a process that dies before
/// finish() leaves it running until the next open marks it lost.
///
/// Numbers become metric points; strings become info events "key = value". The init configuration is stored as
/// the run's configuration (direct) or sent by rank 0 as an info event "hparams {...}" (launched).
class SqliteTracker : public track::Tracker {
public:
  /// ConfigError for malformed telemetry variables; CommError when the collector cannot be reached or refuses;
  /// StorageError when the workspace cannot be opened.
  explicit SqliteTracker(const track::TrackerOptions& options);
  ~SqliteTracker() override;

  std::string name() const override { return "sqlite"; }
  bool requiresLoggingDirectory() const override { return false; }
  bool mainProcessOnly() const override { return false; }

  /// True when sending to a launcher's collector, false when writing the workspace directly.
  bool launched() const { return m_sender != nullptr; }
  /// The run the points go to (the collector's, or the one this tracker created; 0 before the first call).
  store::RunId run() const { return m_run; }

  /// A log line of this rank at `time` (seconds since the Unix epoch), stored as an event of the run with `level`
  /// (launched: a Log frame to the collector; direct: one transaction). ConfigError after finish().
  void logLine(LogLevel level, std::string_view text, double time);
  /// One chunk of the trace `name` of this rank (chunks of a name are stored in the order given; the trace is
  /// their concatenation). ConfigError after finish().
  void traceChunk(std::string_view name, std::string_view bytes, double time);
  /// A file the run produced (a trace, a checkpoint), stored as an artifact of the run. ConfigError after finish().
  void artifact(const store::Artifact& artifact, double time);
  /// A device map this rank dispatched a model with (bigmodel::toJson(DispatchRecord)), stored with the run for the
  /// Studio's device-map view (docs/bigmodel.md, "In the workspace"). ConfigError after finish().
  void deviceMap(std::string_view recordJson, double time);
  /// The setup this process trains with, of a group of `worldSize` processes (the Accelerator reports it when it
  /// creates its trackers). Launched: rank 0 sends it to the collector, which replaces the strategy and precision
  /// the launcher recorded (a worker may choose its own strategy). Direct: the run this tracker creates records
  /// it as its layout (or is updated, when it exists already).
  void recordSetup(const store::RunSetup& setup, int worldSize);
  /// Launched: every heartbeat carries this rank's collective wavefront from now on (TelemetrySender::
  /// watchCollectives), the launcher's hang and straggler detection's input. Direct: nothing (no launcher watches).
  void watchCollectives(std::shared_ptr<const parallel::CollectiveWavefront> wavefront);

protected:
  void doStoreInitConfiguration(const nlohmann::json& config) override;
  void doLog(const track::LogValues& values, std::int64_t step, double wallTime) override;
  void doFinish() override;

private:
  void ensureRun(const std::string& configText);

  track::TrackerOptions m_options;
  int m_rank = 0;
  std::unique_ptr<TelemetrySender> m_sender;
  std::unique_ptr<store::Workspace> m_workspace;
  store::RunId m_run;
  store::RunLayout m_layout;  ///< direct: the layout of the run ensureRun() creates
};

/// Registers the `sqlite` tracker as a built-in (registerBuiltinTracker) once per process and returns its name.
/// Called explicitly (by Accelerator::initTrackers), never from a static initialiser the linker could drop.
std::string registerSqliteTracker();

}  // namespace fathom::telemetry
