// SPDX-License-Identifier: Apache-2.0
// Fault injection for the tests of durable writes (docs/errors.md, "Writes"): a child process with a file size limit
// (RLIMIT_FSIZE: the disk is "full" after N bytes), processes that obey file permissions even when the tests run as
// root (a read-only folder), and SIGKILL at random moments of a writer.
#pragma once

#include <QProcess>

#include <algorithm>

#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace fathom::test {

/// In a child (async-signal-safe calls only): drop the capabilities that let root ignore file permissions, so a
/// folder without write permission is read-only for this process and the programs it executes, as for any user.
/// Dropped from the effective and permitted sets (this process) and the bounding set (after exec). A no-op for an
/// unprivileged user.
inline void obeyFilePermissions() {
  constexpr int kDropped[] = {CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER};
  for (const int cap : kDropped) {
    ::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
  }
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2]{};
  if (::syscall(SYS_capget, &header, data) == 0) {
    for (const int cap : kDropped) {
      data[cap / 32].effective &= ~(1U << (cap % 32));
      data[cap / 32].permitted &= ~(1U << (cap % 32));
    }
    ::syscall(SYS_capset, &header, data);
  }
}

/// In a child before exec: files may grow to at most `bytes` (a write past it fails, or raises SIGXFSZ in a program
/// that does not ignore it; the signal's disposition is left as the program sets it).
inline void limitFileSize(std::uint64_t bytes) {
  const rlimit limit{bytes, bytes};
  ::setrlimit(RLIMIT_FSIZE, &limit);
}

/// A QProcess whose child obeys file permissions and, when `fileSizeLimit` > 0, has that file size limit.
inline void applyFaults(QProcess& process, std::uint64_t fileSizeLimit, bool readOnlyAware = true) {
  process.setChildProcessModifier([fileSizeLimit, readOnlyAware] {
    if (readOnlyAware) {
      obeyFilePermissions();
    }
    if (fileSizeLimit > 0) {
      limitFileSize(fileSizeLimit);
    }
  });
}

/// A folder that is read-only while the object lives (mode 0555), writable again after.
class ReadOnlyFolder {
public:
  explicit ReadOnlyFolder(std::filesystem::path dir) : m_dir(std::move(dir)) { ::chmod(m_dir.c_str(), 0555); }
  ~ReadOnlyFolder() { ::chmod(m_dir.c_str(), 0755); }
  ReadOnlyFolder(const ReadOnlyFolder&) = delete;
  ReadOnlyFolder& operator=(const ReadOnlyFolder&) = delete;

private:
  std::filesystem::path m_dir;
};

/// What a forked child reported: its wait status and the text it wrote to its pipe.
struct ChildOutcome {
  int status = 0;
  std::string text;
  bool exitedWith(int code) const { return WIFEXITED(status) && WEXITSTATUS(status) == code; }
};

/// Runs `body` in a forked child of this (single-threaded) test process with a file size limit (0: none) and SIGXFSZ
/// ignored, as Fathom's programs run. `body` returns the text to report; the child exits 0, or 3 after an exception
/// it did not catch.
inline ChildOutcome runInChild(std::uint64_t fileSizeLimit, const std::function<std::string()>& body) {
  int fds[2];
  if (::pipe(fds) != 0) {
    return {-1, "pipe failed"};
  }
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    std::signal(SIGXFSZ, SIG_IGN);
    if (fileSizeLimit > 0) {
      limitFileSize(fileSizeLimit);
    }
    int code = 0;
    std::string text;
    try {
      text = body();
    } catch (...) {
      code = 3;
    }
    for (std::size_t done = 0; done < text.size();) {
      const ssize_t n = ::write(fds[1], text.data() + done, text.size() - done);
      if (n <= 0) {
        break;
      }
      done += static_cast<std::size_t>(n);
    }
    ::_exit(code);
  }
  ::close(fds[1]);
  ChildOutcome outcome;
  char buffer[4096];
  for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) > 0;) {
    outcome.text.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  ::waitpid(pid, &outcome.status, 0);
  return outcome;
}

/// The names in `dir`, sorted.
inline std::vector<std::string> namesIn(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

/// Kill moments spread over [0, `maxMs`) ms, deterministic per `seed` (a failing run can be repeated).
inline std::vector<std::chrono::microseconds> killMoments(int count, int maxMs, unsigned seed) {
  std::vector<std::chrono::microseconds> moments;
  std::uint64_t state = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  for (int i = 0; i < count; ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    moments.emplace_back(static_cast<std::int64_t>((state >> 33) % (static_cast<std::uint64_t>(maxMs) * 1000)));
  }
  return moments;
}

}  // namespace fathom::test
