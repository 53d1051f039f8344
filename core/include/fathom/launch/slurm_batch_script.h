// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace fathom::launch {

/// What `fathom launch --slurm --nodes N ...` asks of sbatch, and what the job runs.
struct SlurmBatchOptions {
  int nodes = 0;          ///< --nodes: required, >= 1
  int gpusPerNode = 0;    ///< --gpus_per_node: #SBATCH --gpus-per-node; 0 = the job asks for no GPU
  int cpusPerNode = 0;    ///< --cpus_per_node: #SBATCH --cpus-per-task (one task per node); 0 = the cluster's default
  std::string partition;  ///< --partition; empty = the cluster's default partition
  std::string time;       ///< --time, in SLURM's forms (MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS); empty =
                          ///< the partition's default
  std::string account;    ///< --account; empty = the user's default account
  std::string jobName = "fathom";  ///< --job_name
  /// The run folder (absolute): the script and the job's output file (slurm-JOBID.out) go there. It must be on a
  /// file system the nodes share with the submitting machine.
  std::filesystem::path runDirectory;
  /// Where the job runs (absolute; the submitting shell's directory): relative paths in the command mean the same.
  std::filesystem::path workingDirectory;
  /// The command the job runs on its first node: `FATHOM launch --slurm FLAGS PROGRAM ARGS...`, whole argv.
  std::vector<std::string> command;
};

/// An sbatch script for a multi-node `fathom launch`. The #SBATCH lines carry the allocation (one task per node:
/// the launcher starts one `fathom agent` per node itself, with srun); the body cds to the working directory and
/// execs the command, every word quoted with shellQuote (so arguments with spaces, quotes, `$`, backticks, `;`,
/// newlines reach the program unchanged and the batch shell runs nothing of them). sbatch reads #SBATCH values word
/// by word without a shell, so those values are checked instead of quoted: names of letters, digits, `.`, `_`, `-`
/// (and `,` between partitions), a run folder without whitespace, quotes, `\`, `%` (sbatch's pattern character)
/// or `#`.
class SlurmBatchScript {
public:
  /// Validates the options (ConfigError naming the flag and the value).
  explicit SlurmBatchScript(SlurmBatchOptions options);

  /// The script: `#!/bin/bash`, the #SBATCH lines, the body. The same options give the same text.
  std::string text() const;

  /// Where the script is kept: RUN/job.sbatch.
  std::filesystem::path scriptFile() const;
  /// The job's output file (stdout and stderr of the batch script): RUN/slurm-JOBID.out.
  std::filesystem::path outputFile(const std::string& jobId) const;

  const SlurmBatchOptions& options() const { return m_options; }

private:
  SlurmBatchOptions m_options;
};

}  // namespace fathom::launch
