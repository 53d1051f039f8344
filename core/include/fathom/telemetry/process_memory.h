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

/// Starts a new peak: the kernel's high-water mark of this process's resident set (VmHWM) becomes its current size
/// (writing 5 to /proc/self/clear_refs). False where the kernel refuses (an old kernel, a restricted /proc).
bool resetPeakResident();

/// The kernel's high-water mark of this process's resident set since it started or since resetPeakResident()
/// (/proc/self/status, VmHWM), in bytes. StorageError when it cannot be read.
std::int64_t peakResidentSinceReset();

}  // namespace fathom::telemetry
