// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/launch/launch_options.h>

#include <cstdint>
#include <optional>

namespace fathom::launch {

/// The most worker processes one `fathom launch` runs on one machine (numProcesses / numMachines). Far above any
/// accelerator count; a larger value is almost always a typo, and each worker costs the launcher descriptors and
/// a pid of the user's process budget.
inline constexpr int kMaxLocalProcesses = 1024;

/// Descriptors the launcher itself may hold besides its workers' (workspace, telemetry listener, signal and
/// guardian channels, and the transient pipes of one spawn).
inline constexpr int kLauncherDescriptors = 64;

/// Descriptors the launcher holds per running worker with `options`: the stdout and stderr pipes, one telemetry
/// connection, and the two log files with --log_dir.
int descriptorsPerWorker(const LaunchOptions& options);

/// What this process may start and open, as the kernel will enforce it.
struct ProcessLimits {
  /// RLIMIT_NPROC's soft limit (`ulimit -u`) for this user; std::nullopt when it does not apply (unlimited, or the
  /// launcher runs as root, whom the kernel does not hold to it).
  std::optional<std::uint64_t> maxUserProcesses;
  /// Processes (kernel tasks, threads included) this user runs now; counted only when maxUserProcesses is set.
  std::uint64_t userProcesses = 0;
  /// RLIMIT_NOFILE's soft limit (`ulimit -n`); std::nullopt when unlimited.
  std::optional<std::uint64_t> maxOpenFiles;
  /// Descriptors this process has open now.
  std::uint64_t openFiles = 0;

  /// The limits of the calling process (reads getrlimit() and /proc).
  static ProcessLimits current();
};

/// The front door for the number of processes: throws ConfigError, before anything is started, when this machine
/// cannot run `options`' local workers: more than kMaxLocalProcesses, more than RLIMIT_NPROC leaves this user
/// (one more for the launcher's guardian), or more than RLIMIT_NOFILE leaves descriptors for
/// (descriptorsPerWorker() each, plus kLauncherDescriptors). The message names the value, the limit and how to
/// raise it. Expects validate(options) to have passed.
void checkProcessLimits(const LaunchOptions& options, const ProcessLimits& limits = ProcessLimits::current());

}  // namespace fathom::launch
