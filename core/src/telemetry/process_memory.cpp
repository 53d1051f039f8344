// SPDX-License-Identifier: Apache-2.0
#include <fathom/telemetry/process_memory.h>

#include <fathom/common/error.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <string>

#include <sys/resource.h>
#include <unistd.h>

namespace fathom::telemetry {

ProcessMemory readProcessMemory() {
  // statm: size resident shared text lib data dt, in pages.
  std::ifstream statm("/proc/self/statm");
  std::int64_t sizePages = 0;
  std::int64_t residentPages = 0;
  statm >> sizePages >> residentPages;
  FATHOM_CHECK(static_cast<bool>(statm), StorageError, "cannot read the resident set size from /proc/self/statm");
  rusage usage{};
  FATHOM_CHECK(::getrusage(RUSAGE_SELF, &usage) == 0, StorageError, "getrusage failed: ", std::strerror(errno));
  ProcessMemory out;
  out.residentBytes = residentPages * static_cast<std::int64_t>(::sysconf(_SC_PAGESIZE));
  // ru_maxrss is in kilobytes on Linux. The kernel sums its RSS counters approximately (per-CPU caches), so the
  // two readings can disagree by a few pages; a peak is never below the current value.
  out.peakResidentBytes = std::max(static_cast<std::int64_t>(usage.ru_maxrss) * 1024, out.residentBytes);
  return out;
}

bool resetPeakResident() {
  std::ofstream clearRefs("/proc/self/clear_refs");
  clearRefs << "5";
  clearRefs.flush();
  return static_cast<bool>(clearRefs);
}

std::int64_t peakResidentSinceReset() {
  // /proc/self/status is "Key:\tvalue" lines; VmHWM's value is in kB ("VmHWM:\t  320728 kB").
  std::ifstream status("/proc/self/status");
  std::string key;
  while (status >> key) {
    if (key == "VmHWM:") {
      std::int64_t kilobytes = -1;
      status >> kilobytes;
      FATHOM_CHECK(kilobytes >= 0, StorageError, "cannot read VmHWM from /proc/self/status");
      return kilobytes * 1024;
    }
    status.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
  }
  throw StorageError("cannot read VmHWM from /proc/self/status");
}

}  // namespace fathom::telemetry
