// SPDX-License-Identifier: Apache-2.0
#include <fathom/launch/process_limits.h>

#include <fathom/common/error.h>
#include <fathom/launch/worker_environment.h>

#include <dirent.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <string>

namespace fathom::launch {
namespace {

std::optional<std::uint64_t> softLimit(int resource) {
  rlimit limit{};
  if (getrlimit(resource, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) {
    return std::nullopt;
  }
  return static_cast<std::uint64_t>(limit.rlim_cur);
}

/// Entries of a /proc directory, "." and ".." excepted; 0 when it cannot be read.
std::uint64_t countEntries(const std::string& path) {
  DIR* dir = opendir(path.c_str());
  if (dir == nullptr) {
    return 0;
  }
  std::uint64_t n = 0;
  while (const dirent* entry = readdir(dir)) {
    n += entry->d_name[0] != '.' ? 1 : 0;
  }
  closedir(dir);
  return n;
}

bool allDigits(const char* name) {
  if (*name == '\0') {
    return false;
  }
  for (; *name != '\0'; ++name) {
    if (std::isdigit(static_cast<unsigned char>(*name)) == 0) {
      return false;
    }
  }
  return true;
}

/// Kernel tasks of processes whose /proc entry belongs to `uid`: what RLIMIT_NPROC counts against the user.
std::uint64_t tasksOfUser(uid_t uid) {
  DIR* proc = opendir("/proc");
  if (proc == nullptr) {
    return 0;
  }
  std::uint64_t tasks = 0;
  while (const dirent* entry = readdir(proc)) {
    if (!allDigits(entry->d_name)) {
      continue;
    }
    const std::string dir = std::string("/proc/") + entry->d_name;
    struct stat st {};
    if (stat(dir.c_str(), &st) == 0 && st.st_uid == uid) {
      tasks += std::max<std::uint64_t>(countEntries(dir + "/task"), 1);
    }
  }
  closedir(proc);
  return tasks;
}

}  // namespace

int descriptorsPerWorker(const LaunchOptions& options) {
  return 3 + (options.logDir.empty() ? 0 : 2);
}

ProcessLimits ProcessLimits::current() {
  ProcessLimits out;
  if (geteuid() != 0) {
    out.maxUserProcesses = softLimit(RLIMIT_NPROC);
    if (out.maxUserProcesses) {
      out.userProcesses = tasksOfUser(getuid());
    }
  }
  out.maxOpenFiles = softLimit(RLIMIT_NOFILE);
  // The directory stream's own descriptor is among the entries: not one the launcher holds afterwards.
  const std::uint64_t open = countEntries("/proc/self/fd");
  out.openFiles = open > 0 ? open - 1 : 0;
  return out;
}

void checkProcessLimits(const LaunchOptions& options, const ProcessLimits& limits) {
  const int local = localWorldSize(options);
  const auto value = [&] {
    return options.numMachines > 1 ? detail::concat("--num_processes ", options.numProcesses, " over ",
                                                    options.numMachines, " machines (", local, " on this one)")
                                   : detail::concat("--num_processes ", options.numProcesses);
  };
  FATHOM_CHECK(local <= kMaxLocalProcesses, ConfigError, value(), " is more than the ", kMaxLocalProcesses,
               " processes `fathom launch` runs on one machine (docs/launch.md, \"Limits\")");
  if (limits.maxUserProcesses) {
    const std::uint64_t max = *limits.maxUserProcesses;
    const std::uint64_t left = max > limits.userProcesses ? max - limits.userProcesses : 0;
    // One more process than workers: the launcher's guardian.
    FATHOM_CHECK(static_cast<std::uint64_t>(local) + 1 <= left, ConfigError, value(), " needs ", local + 1,
                 " processes (the workers and the launcher's guardian), but RLIMIT_NPROC (`ulimit -u`) is ", max,
                 " and this user already runs ", limits.userProcesses, ", which leaves ", left,
                 ": raise the limit or run fewer processes");
  }
  if (limits.maxOpenFiles) {
    const std::uint64_t max = *limits.maxOpenFiles;
    const std::uint64_t perWorker = static_cast<std::uint64_t>(descriptorsPerWorker(options));
    const std::uint64_t needed = static_cast<std::uint64_t>(local) * perWorker + kLauncherDescriptors;
    FATHOM_CHECK(limits.openFiles + needed <= max, ConfigError, value(), " needs about ", needed, " file descriptors (",
                 perWorker, " per worker", options.logDir.empty() ? "" : " with --log_dir", " and ",
                 kLauncherDescriptors, " for the launcher), but RLIMIT_NOFILE (`ulimit -n`) is ", max, " and ",
                 limits.openFiles, " are open: raise the limit or run fewer processes");
  }
}

}  // namespace fathom::launch
