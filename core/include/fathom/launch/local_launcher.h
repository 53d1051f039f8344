// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/launch/launch_observer.h>
#include <fathom/launch/launch_options.h>
#include <fathom/launch/worker_process.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fathom::launch {

/// The rank that brought a group down.
struct RankFailure {
  int rank = 0;       ///< global rank
  int localRank = 0;  ///< index on this machine
  int pid = 0;
  ExitStatus status;                   ///< how it ended
  std::vector<std::string> lastLines;  ///< its last output lines, oldest first
};

/// What a launch came to.
struct LaunchResult {
  /// What `fathom launch` exits with: 0; the failed rank's exit code (128 + signal when it was killed); or
  /// 128 + the signal that stopped the launcher.
  int exitCode = 0;
  /// Attempts made: 1 + restarts.
  int attempts = 0;
  /// The first failure of the last attempt, if it failed.
  std::optional<RankFailure> failure;
  /// SIGINT / SIGTERM / SIGHUP that stopped the launcher, if one did.
  std::optional<int> interruptedBy;
  /// The rendezvous port of the last attempt.
  std::uint16_t masterPort = 0;
  /// From noticing the failure (or the signal) to the last worker gone, in the last attempt; zero on success.
  std::chrono::milliseconds teardown{0};
};

/// Runs one machine's share of a group (`fathom launch` on a single node): spawns numProcesses / numMachines
/// workers with torchrun's and Accelerate's variables (workerVariables()), forwards their output line by line
/// with a "[rankN]: " prefix, and watches them with poll(). When a worker exits non-zero or is killed, every
/// other worker's process group gets SIGTERM, then SIGKILL after terminateGracePeriod; the failure is reported
/// with rank, exit code or signal, and the last lines; with maxRestarts the whole group starts again. SIGINT,
/// SIGTERM and SIGHUP to the launcher are forwarded to every worker group (a second one escalates to SIGKILL)
/// and end the launch without restart. Nothing of the group survives run(), on any path; and should this process
/// die without finishing run() (SIGKILL, a crash), the ProcessGuardian that run() starts stops every worker's
/// process group, grandchildren included.
///
/// run() installs process-wide handlers for SIGINT, SIGTERM, SIGHUP and SIGCHLD and ignores SIGPIPE while it
/// runs, restoring the previous dispositions when it returns: at most one LocalLauncher may run per process,
/// and nothing else in the process may wait for child processes meanwhile.
class LocalLauncher {
public:
  /// Validates `options` (ConfigError on a bad value), checks that this machine can run its processes
  /// (checkProcessLimits: ConfigError naming the value and the limit) and resolves PROGRAM in PATH.
  explicit LocalLauncher(LaunchOptions options);

  /// Runs the group to completion; blocks. Throws ConfigError when PROGRAM cannot be executed, Error when a worker
  /// cannot be forked (both messages start with the rank that could not be started, and the workers already started
  /// are stopped first), StorageError when a log file cannot be opened, CommError when no free port can be found;
  /// no worker is left behind either way.
  /// `observer` (optional) adds worker variables and hears of every worker's start and end.
  LaunchResult run(LaunchObserver* observer = nullptr);

  /// The validated options.
  const LaunchOptions& options() const { return m_options; }

  /// Asks the run() in progress in this process to stop its group as SIGTERM to the launcher would (SIGTERM to every
  /// worker's process group, SIGKILL after the grace period, no restart; the result's interruptedBy is SIGTERM), but
  /// with a note that the launcher itself asked. Thread-safe and async-signal-safe (one write to run()'s self-pipe);
  /// false when no run() is in progress. `fathom launch --hang_action abort` calls it from the telemetry collector.
  static bool requestStop();

private:
  LaunchOptions m_options;
  std::string m_program;
};

}  // namespace fathom::launch
