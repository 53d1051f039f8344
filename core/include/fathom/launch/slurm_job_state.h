// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/launch/worker_process.h>

#include <optional>
#include <string>
#include <string_view>

namespace fathom::launch {

/// A SLURM job's state as squeue or sacct report it, and what `fathom launch --slurm` exits with for it.
struct SlurmJobState {
  /// SLURM's state name, upper case: PENDING, CONFIGURING, RUNNING, COMPLETING, COMPLETED, FAILED, CANCELLED,
  /// TIMEOUT, OUT_OF_MEMORY, NODE_FAIL, ... (sacct's "CANCELLED by 0" is kept as "CANCELLED").
  std::string state;
  /// How the batch script ended, once SLURM knows (an exit code, or the signal that ended it).
  std::optional<ExitStatus> exit;

  /// True once the job will not run any more (any state but PENDING, CONFIGURING, RUNNING, COMPLETING, SUSPENDED,
  /// REQUEUED, RESIZING, SIGNALING, STAGE_OUT, STOPPED, RESV_DEL_HOLD, REQUEUE_FED, REQUEUE_HOLD).
  bool ended() const;

  /// What `fathom launch` exits with for an ended job, as a shell reports a process: COMPLETED and FAILED give the
  /// script's exit code (128 + signal when a signal ended it; FAILED with code 0 gives 1), CANCELLED 128 + the
  /// signal (143, SIGTERM, when SLURM names none), TIMEOUT 124 (as timeout(1)), OUT_OF_MEMORY 137 (the OOM
  /// killer's SIGKILL), any other end (NODE_FAIL, BOOT_FAIL, PREEMPTED, DEADLINE, ...) its exit code or 1.
  int exitCode() const;

  /// One line of `squeue -h -O State:|,exit_code:|`: "FAILED|768|" (exit_code is the wait status: code << 8, or
  /// the signal). std::nullopt when the line is not in that form.
  static std::optional<SlurmJobState> fromSqueue(std::string_view line);

  /// The first line of `sacct -n -P -X -o State,ExitCode`: "FAILED|3:0" (ExitCode is "code:signal").
  /// std::nullopt when it is not in that form.
  static std::optional<SlurmJobState> fromSacct(std::string_view text);
};

}  // namespace fathom::launch
