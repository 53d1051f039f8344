// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/launch/launch_options.h>

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace fathom::cli {

/// `fathom launch --slurm` (docs/launch.md, "Multi-node under SLURM"). Inside an allocation (salloc, an sbatch
/// script): one `fathom agent` per node of the allocation through srun (launch::SrunTransport), the processes split
/// evenly over the nodes. With --nodes N: writes an sbatch script whose body runs `fathom launch --slurm` with the
/// same launch flags inside the new allocation, keeps it in the run folder, submits it (or prints it, --dry_run) and
/// follows the job to its end unless --detach.
class SlurmLaunchFlags {
public:
  void addTo(CLI::App& cmd);
  /// True when --slurm was given.
  bool given() const;
  /// ConfigError for a SLURM flag without --slurm, a submission flag without --nodes, or --slurm with --hosts /
  /// --hostfile or --json. Called before the launch options are resolved.
  void checkUsage(bool sshGiven, bool json) const;
  /// Runs `options` (options.command is PROGRAM ARGS) as described above; returns the exit code.
  int run(launch::LaunchOptions options) const;

private:
  int runInAllocation(launch::LaunchOptions options) const;
  int submit(const launch::LaunchOptions& options) const;
  /// `FATHOM launch` and this command's own flags but the submission ones, then PROGRAM ARGS: what the job runs.
  std::vector<std::string> jobCommand(const launch::LaunchOptions& options) const;

  CLI::App* m_cmd = nullptr;
  bool m_slurm = false;
  int m_nodes = 0;
  int m_gpusPerNode = 0;
  int m_cpusPerNode = 0;
  std::string m_partition;
  std::string m_time;
  std::string m_account;
  std::string m_jobName = "fathom";
  bool m_dryRun = false;
  bool m_detach = false;
};

}  // namespace fathom::cli
