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
  /// True when --slurm was given or the configuration says `fathom.launcher: slurm`.
  bool given(const config::RunSpec& spec) const;
  /// True when a job is to be submitted rather than the allocation this runs in used: --slurm --nodes N, or
  /// `launcher: slurm` in the configuration outside an allocation (no SLURM_JOB_ID; num_machines nodes).
  bool submits(const config::RunSpec& spec) const;
  /// ConfigError for a SLURM flag without --slurm (or `launcher: slurm`), a submission flag when no job is
  /// submitted, or --slurm with --hosts / --hostfile. Called once the launch options are resolved.
  void checkUsage(const config::RunSpec& spec, bool sshGiven) const;
  /// Inside an allocation: the launcher for `options` (resolved as for one machine; numProcesses the total, a
  /// multiple of the allocation's nodes) over srun, one agent per node of SLURM_JOB_NODELIST; `jobId` gets the
  /// allocation's SLURM_JOB_ID (recorded with the run). The workers send their telemetry straight to this machine
  /// over TCP (--same_network ADDRESS, default this machine's address on the route to the first node: srun carries
  /// no tunnel); --rdzv_timeout and --remote_fathom apply as over ssh. Throws ConfigError outside an allocation or
  /// for bad flags.
  launch::MultiNodeLauncher makeLauncher(launch::LaunchOptions options, const config::RunSpec& spec,
                                         const MultiNodeFlags& multiNode, std::string& jobId) const;
  /// Submits a job (submits() is true): writes the sbatch script (kept in the run folder; printed and nothing else
  /// with --dry_run), submits it, prints the job id and, unless --detach, follows the job to its end; returns the
  /// exit code. The flags win over the configuration: --nodes over num_machines, --gpus_per_node over
  /// num_processes / num_machines (none with use_cpu), --partition / --time / --account over fathom.slurm_*. With
  /// `json`, stdout carries JSON lines only: "slurm_job" events (SUBMITTED, then each state), then the job's own
  /// `fathom launch --json` lines from its output file; its other lines go to stderr.
  int submit(const launch::LaunchOptions& options, const config::RunSpec& spec, bool json) const;

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
