// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/launch/worker_process.h>

#include <chrono>
#include <string>
#include <vector>

namespace fathom::launch {

/// What a short-lived helper program printed and how it ended: SLURM's client commands (sbatch, squeue, sacct,
/// scancel, scontrol, sinfo), whose machine formats (`--parsable`, `-h -o`, `-n -P`) the callers read.
struct CommandOutput {
  ExitStatus status;
  std::string out;  ///< its whole stdout
  std::string err;  ///< its whole stderr
  bool timedOut = false;

  /// Ended by itself with exit code 0.
  bool ok() const { return !timedOut && status.success(); }
  /// `out` split at newlines, without empty lines and without a trailing '\r'.
  std::vector<std::string> lines() const;
  /// The last non-empty line of stderr (the program's own error message), or how it ended when it printed none.
  std::string errorLine() const;

  /// Runs `argv` (argv[0] looked up in PATH when it has no '/') with this process's environment and stdin from
  /// /dev/null, reads both streams to their end and reaps it. A program still running after `timeout` is killed
  /// (SIGKILL to its process group) and reported with timedOut. Throws ConfigError when argv[0] cannot be found or
  /// run, naming it. Blocks the calling thread; uses WorkerProcess, so the child dies with this process.
  static CommandOutput run(const std::vector<std::string>& argv,
                           std::chrono::milliseconds timeout = std::chrono::seconds(30));
};

}  // namespace fathom::launch
