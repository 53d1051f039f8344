// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <vector>

namespace fathom::launch {

/// Stops a launcher's worker process groups when the launcher dies without doing it itself (SIGKILL, a crash, an
/// out-of-memory kill). PR_SET_PDEATHSIG reaches only a worker, never what the worker started; this reaches the
/// whole group.
///
/// The constructor forks a small guardian process that runs in a process group of its own (so a signal to the
/// launcher's group, SIGKILL from a terminal or a job runner included, does not reach it), with stdin and stdout
/// on /dev/null, the launcher's stderr, and no other descriptor of the launcher. It holds one end of a socket pair
/// whose other end only the launcher holds (close-on-exec: no worker inherits it). add() and remove() tell it which
/// process groups belong to the run. When its end reads end of file (every launcher process that held the
/// other end is gone, however it ended), the guardian sends SIGTERM to every group it knows, SIGKILL after
/// `gracePeriod` to those that still have a process, and exits. The destructor tells it to exit without
/// signalling anything, and reaps it.
///
/// The guardian never execs: after fork it makes only async-signal-safe calls, so it is safe to create from a
/// multi-threaded launcher. It holds at most `capacity` groups at a time (add() beyond that throws).
/// Not thread-safe: one thread (the one running LocalLauncher::run()) owns it.
///
/// Limit: a descendant that leaves its worker's process group (setsid(), setpgid()) is out of reach, as it is for
/// the launcher's own teardown; only a delegated cgroup could follow it.
class ProcessGuardian {
public:
  /// Forks the guardian. Throws Error when it cannot be started (no process is left then).
  ProcessGuardian(std::size_t capacity, std::chrono::milliseconds gracePeriod);
  /// Tells the guardian to exit without signalling anything, and waits for it.
  ~ProcessGuardian();
  ProcessGuardian(const ProcessGuardian&) = delete;
  ProcessGuardian& operator=(const ProcessGuardian&) = delete;

  /// The guardian's pid (also its process group id).
  pid_t pid() const { return m_pid; }
  /// Groups the guardian currently knows, in the order they were added.
  const std::vector<pid_t>& groups() const { return m_groups; }

  /// Adds a process group to stop if the launcher dies. Call it before the group's leader execs (WorkerProcess::
  /// Spec::beforeExec), so nothing the worker starts can escape a launcher killed meanwhile. Throws Error when
  /// `capacity` groups are already known or the guardian is gone.
  void add(pid_t group);
  /// Forgets a group (its processes are gone, so its id may be reused by an unrelated process). Returns false when
  /// the guardian is gone; an unknown group is ignored.
  bool remove(pid_t group);

private:
  bool send(int op, pid_t group);

  pid_t m_pid = -1;
  int m_write = -1;
  std::size_t m_capacity = 0;
  std::vector<pid_t> m_groups;
};

}  // namespace fathom::launch
