// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/launch/slurm_client.h>

#include <chrono>
#include <filesystem>
#include <iosfwd>
#include <string>

namespace fathom::cli {

struct SlurmFollowOptions {
  /// How often squeue is asked and the output file read.
  std::chrono::milliseconds pollInterval{500};
  /// After scancel (SIGINT / SIGTERM), how long to wait for the job to end before giving up on it.
  std::chrono::seconds cancelWait{60};
  /// No state lines on stderr (--quiet).
  bool quiet = false;
  /// `fathom launch --json`: `out` carries JSON lines only: a "slurm_job" event (telemetry::SlurmJobUpdate) at each
  /// state change, and the lines of the output file that are event lines (the job's own `fathom launch --json`);
  /// the file's other lines go to stderr.
  bool json = false;
};

/// Follows a submitted job to its end: its state from squeue (SlurmClient::queueState; a state change is a line on
/// stderr), its output file copied to `out` as it grows, and at the end sacct's record when the cluster keeps
/// accounting, else squeue's. SIGINT or SIGTERM meanwhile cancels the job (scancel) and waits for it to end. Returns
/// the job's exit code (SlurmJobState::exitCode()), or 128 + the signal when it was cancelled that way. Installs
/// its signal handlers while it runs (restored after). Throws Error when SLURM loses track of the job.
int followSlurmJob(const launch::SlurmClient& client, const std::string& jobId, const std::filesystem::path& outputFile,
                   std::ostream& out, const SlurmFollowOptions& options = {});

}  // namespace fathom::cli
