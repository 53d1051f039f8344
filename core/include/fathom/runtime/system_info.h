// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <string>

namespace fathom::runtime {

/// Facts about the host, read from the kernel (uname, sysconf, /proc, /etc/os-release).
struct SystemInfo {
  /// Python-style platform string, e.g. "Linux-6.1.0-18-amd64-x86_64-with-glibc2.36".
  std::string platform;
  /// PRETTY_NAME from /etc/os-release, e.g. "Debian GNU/Linux 12 (bookworm)"; empty when unknown.
  std::string osName;
  std::string hostname;
  /// "model name" of the first CPU in /proc/cpuinfo; empty when unknown.
  std::string cpuModel;
  /// CPU cores this process may run on (sched_getaffinity), as torch and `nproc` count them.
  int cpuCores = 0;
  /// Physical memory in bytes (sysconf pages x page size).
  std::uint64_t ramBytes = 0;
};

SystemInfo readSystemInfo();

}  // namespace fathom::runtime
