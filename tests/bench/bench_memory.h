// SPDX-License-Identifier: Apache-2.0
// Resident-set measurements for the benchmarks (Linux /proc): how far one operation raises memory.
#pragma once

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include <malloc.h>

namespace fathom::bench {

/// A field of /proc/self/status in KiB: VmHWM (peak resident set) or VmRSS (resident set now).
inline long statusKiB(const char* field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(field, 0) == 0) {
      return std::atol(line.c_str() + std::strlen(field));
    }
  }
  return -1;
}

/// Measures how far one operation raises the resident set above where it started: resets the peak (writing 5 to
/// /proc/self/clear_refs sets VmHWM to VmRSS, Linux >= 4.0) and reads it back after.
class PeakGrowth {
public:
  PeakGrowth() {
    malloc_trim(0);  // hand freed memory back first, so the operation's buffers are counted, not reused pages
    std::ofstream("/proc/self/clear_refs") << "5";
    m_start = statusKiB("VmRSS:");
  }
  /// Peak growth so far.
  long kib() const { return statusKiB("VmHWM:") - m_start; }
  /// Growth of the resident set now (after giving freed memory back).
  long nowKiB() const {
    malloc_trim(0);
    return statusKiB("VmRSS:") - m_start;
  }

private:
  long m_start = 0;
};

}  // namespace fathom::bench
