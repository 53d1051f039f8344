// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/launch/slurm_job_state.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace fathom::launch {

/// SLURM's client commands, as SlurmClient runs them (names are looked up in PATH; tests may point them elsewhere).
struct SlurmClientOptions {
  std::string sbatch = "sbatch";
  std::string squeue = "squeue";
  std::string sacct = "sacct";
  std::string scancel = "scancel";
  std::string scontrol = "scontrol";
  std::string sinfo = "sinfo";
  /// How long one command may take before it is killed and counts as failed (slurmctld busy or unreachable).
  std::chrono::milliseconds timeout{30'000};
};

/// Asks SLURM through its client commands, always in their machine formats: `scontrol show hostnames` (one name a
/// line), `sinfo -h -N -o`, `sbatch --parsable` (ID or ID;CLUSTER), `squeue -h -O field:|` and `sacct -n -P`
/// (fields separated by '|'). Never reads output meant for people. Every method blocks until its command ends;
/// a command that cannot be found throws ConfigError naming it, one that fails throws Error with its message
/// unless the method says otherwise. The commands talk to the cluster named by SLURM_CONF (or /etc/slurm).
class SlurmClient {
public:
  explicit SlurmClient(SlurmClientOptions options = {});

  /// `nodeList` ("gpu[01-03],big7") expanded by `scontrol show hostnames`, in SLURM's order.
  std::vector<std::string> hostnames(const std::string& nodeList) const;

  /// The address the node is reached at (its NodeAddr, `sinfo -h -N -n NODE -o %o`); the name itself when sinfo
  /// cannot say.
  std::string nodeAddress(const std::string& node) const;

  /// Submits `script` with `sbatch --parsable` and returns the job id (without the ";cluster" suffix).
  std::string submit(const std::filesystem::path& script) const;

  /// The job as slurmctld still holds it (`squeue -h -t all -j ID -O State:|,exit_code:|`); std::nullopt when it
  /// no longer knows the job (purged after MinJobAge, or never existed: squeue then fails with "Invalid job id").
  std::optional<SlurmJobState> queueState(const std::string& jobId) const;

  /// The job's accounting record (`sacct -n -P -X -j ID -o State,ExitCode`); std::nullopt when the cluster keeps
  /// no accounting (no slurmdbd: sacct fails) or has no record of it yet.
  std::optional<SlurmJobState> accountingState(const std::string& jobId) const;

  /// `scancel ID`: SIGTERM to every process of the job, SIGKILL after the cluster's KillWait. Throws Error when
  /// scancel fails.
  void cancel(const std::string& jobId) const;

  const SlurmClientOptions& options() const { return m_options; }

private:
  SlurmClientOptions m_options;
};

}  // namespace fathom::launch
