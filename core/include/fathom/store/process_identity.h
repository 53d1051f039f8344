// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fathom::store {

/// Names a process across time: host, pid and the kernel's start time of that pid (field 22 of /proc/<pid>/stat,
/// clock ticks since boot), so a recycled pid is not mistaken for the original process.
struct ProcessIdentity {
  std::string host;
  std::int64_t pid = 0;
  std::uint64_t startTime = 0;  ///< 0 when unknown (then only the pid is compared)

  /// This process.
  static ProcessIdentity current();
};

/// This machine's host name (gethostname).
std::string currentHostName();

/// This process's arguments as it was started (argv, from /proc/self/cmdline); empty when unreadable.
std::vector<std::string> currentArguments();

/// `words` as one line a POSIX shell reads back into the same words: plain words as they are, the others in single
/// quotes. What a run records as its command line.
std::string shellCommandLine(const std::vector<std::string>& words);

/// The start time of `pid` from /proc, or nothing when no such process exists.
std::optional<std::uint64_t> processStartTime(std::int64_t pid);

enum class Liveness { Alive, Gone, Unknown };

/// Alive when `who` runs on this host, exists, is not a zombie and started when recorded; Gone when it is on this
/// host and any of those fails; Unknown for another host (it cannot be checked from here).
Liveness liveness(const ProcessIdentity& who);

}  // namespace fathom::store
