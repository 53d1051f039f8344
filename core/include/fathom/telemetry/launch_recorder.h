// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/launch/launch_observer.h>
#include <fathom/launch/launch_options.h>
#include <fathom/telemetry/telemetry_collector.h>

#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace fathom::telemetry {

/// What the launcher's caller adds to a run's record beyond the launch options.
struct RunRecordOptions {
  /// The run's name (`fathom launch --run_name`); empty: "<program>-<run id>", where <program> is the subcommand
  /// of `fathom SUBCOMMAND` ("train-12") and the program's file name otherwise ("my_trainer-13").
  std::string name;
  /// The launcher's own arguments as it was started (`fathom launch --num_processes 2 ... PROGRAM ARGS`), recorded
  /// as the run's command line; empty: "fathom launch" followed by the worker command.
  std::vector<std::string> launcherArguments;
  /// The plan the run is launched with, as the `fathom plan --json` object (plan/prediction_json.h), stored with the
  /// run when it is created (store::NewRun::planJson); empty: none (a program the planner does not know).
  std::string planJson;
  /// A multi-node launch's hosts by machine rank, as it names them (`--hosts`); recorded as the run's layout.hosts.
  /// Empty: this machine's host name at the options' machine rank.
  std::vector<std::string> hosts;
  /// The SLURM job the launch runs in (`fathom launch --slurm`: the allocation's SLURM_JOB_ID); empty: none.
  std::string slurmJobId;
};

/// What `fathom launch` records of a run in the workspace (docs/workspace.md): the run row (name, the launcher's
/// command line, host, launcher pid, the launch configuration as JSON, and the run's layout as typed columns:
/// world size, machines, this machine's host, the strategy the launcher selected, the precision), a collector the
/// workers send their telemetry to (rank 0's report of its own setup corrects the strategy), each rank's host, pid
/// and exit code, and the final status. While the run lives the collector is the only writer of the workspace;
/// the final status is written after it stopped.
///
/// Use: construct (creates the run, starts the collector), pass as the LaunchObserver of LocalLauncher::run(),
/// then finish() with the launch's exit code. A recorder destroyed without finish() (an exception) stops the
/// collector and marks the run failed.
class LaunchRecorder : public launch::LaunchObserver {
public:
  /// Opens (creating when missing) the workspace at `workspace` and creates the run for `options` (validated).
  /// StorageError for a workspace that cannot be opened, CommError when the collector cannot listen, ConfigError
  /// for a run name that is blank or holds a line break.
  LaunchRecorder(const std::filesystem::path& workspace, const launch::LaunchOptions& options,
                 RunRecordOptions record = {}, CollectorOptions collector = {});
  ~LaunchRecorder() override;
  LaunchRecorder(const LaunchRecorder&) = delete;
  LaunchRecorder& operator=(const LaunchRecorder&) = delete;

  store::RunId run() const { return m_run; }
  /// The run's name as recorded.
  const std::string& runName() const { return m_name; }
  const TelemetryCollector& collector() const { return *m_collector; }

  std::vector<std::pair<std::string, std::string>> workerEnvironment() override;
  std::uint16_t telemetryPort() override;
  std::vector<std::pair<std::string, std::string>> remoteWorkerEnvironment(const std::string& endpoint) override;
  void workerStarted(const launch::WorkerEvent& worker) override;
  void workerEnded(const launch::WorkerEvent& worker, const launch::ExitStatus& status) override;

  /// Stops the collector (committing everything the workers sent) and records the final status: succeeded for
  /// exit code 0, failed otherwise. Idempotent; the collector's StorageError passes through.
  void finish(int exitCode);

private:
  store::RunId m_run;
  std::string m_name;
  std::string m_host;
  std::unique_ptr<TelemetryCollector> m_collector;
  bool m_finished = false;
};

}  // namespace fathom::telemetry
