// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>

namespace fathom::telemetry {

/// The host memory this process occupies, as the kernel reports it.
struct ProcessMemory {
  std::int64_t residentBytes = 0;  ///< resident set size now: /proc/self/statm's second field × the page size
  /// The largest resident set size so far: getrusage(RUSAGE_SELF).ru_maxrss, and never below residentBytes.
  std::int64_t peakResidentBytes = 0;
};

/// Reads this process's resident set size (current and peak). StorageError when /proc/self/statm cannot be read or
/// parsed, or getrusage fails.
ProcessMemory readProcessMemory();

}  // namespace fathom::telemetry
