// SPDX-License-Identifier: Apache-2.0
#include <fathom/runtime/system_info.h>

#include <gnu/libc-version.h>
#include <sched.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>
#include <string_view>
#include <thread>

namespace fathom::runtime {
namespace {

std::string trimQuotes(std::string value) {
  if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front()) {
    return value.substr(1, value.size() - 2);
  }
  return value;
}

std::string osPrettyName() {
  std::ifstream in("/etc/os-release");
  std::string line;
  constexpr std::string_view key = "PRETTY_NAME=";
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) == 0) {
      return trimQuotes(line.substr(key.size()));
    }
  }
  return {};
}

std::string cpuModelName() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      if (auto colon = line.find(':'); colon != std::string::npos) {
        auto start = line.find_first_not_of(" \t", colon + 1);
        return start == std::string::npos ? std::string{} : line.substr(start);
      }
    }
  }
  return {};
}

int usableCores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    return CPU_COUNT(&set);
  }
  return static_cast<int>(std::thread::hardware_concurrency());
}

}  // namespace

SystemInfo readSystemInfo() {
  SystemInfo info;
  utsname uts{};
  if (uname(&uts) == 0) {
    info.platform =
        std::string(uts.sysname) + "-" + uts.release + "-" + uts.machine + "-with-glibc" + gnu_get_libc_version();
    info.hostname = uts.nodename;
  }
  info.osName = osPrettyName();
  info.cpuModel = cpuModelName();
  info.cpuCores = usableCores();
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long pageSize = sysconf(_SC_PAGESIZE);
  if (pages > 0 && pageSize > 0) {
    info.ramBytes = static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(pageSize);
  }
  return info;
}

}  // namespace fathom::runtime
