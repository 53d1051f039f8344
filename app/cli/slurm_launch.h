// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "multi_node_flags.h"

#include <fathom/config/run_spec.h>
#include <fathom/launch/launch_options.h>
#include <fathom/launch/multi_node_launcher.h>

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
  /// True when --slurm --nodes N was given: submit a job rather than use the allocation this runs in.
  bool submits() const;
  /// ConfigError for a SLURM flag without --slurm, a submission flag without --nodes, or --slurm with --hosts /
  /// --hostfile, or --json with --nodes. Called before the launch options are resolved.
  void checkUsage(bool sshGiven, bool json) const;
  /// Inside an allocation: the launcher for `options` (resolved as for one machine; numProcesses the total, a
  /// multiple of the allocation's nodes) over srun, one agent per node of SLURM_JOB_NODELIST. The workers send
  /// their telemetry straight to this machine over TCP (--same_network ADDRESS, default this machine's address on
  /// the route to the first node: srun carries no tunnel); --rdzv_timeout and --remote_fathom apply as over ssh.
  /// Throws ConfigError outside an allocation or for bad flags.
  launch::MultiNodeLauncher makeLauncher(launch::LaunchOptions options, const config::RunSpec& spec,
                                         const MultiNodeFlags& multiNode) const;
  /// With --nodes: writes the sbatch script (kept in the run folder; printed and nothing else with --dry_run),
  /// submits it, prints the job id and, unless --detach, follows the job to its end; returns the exit code.
  int submit(const launch::LaunchOptions& options) const;

private:
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
