// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <sys/types.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fathom::launch {

/// How a process ended.
struct ExitStatus {
  bool signaled = false;  ///< killed by a signal rather than exiting
  int value = 0;          ///< exit code, or the signal number when `signaled`
  /// What a shell reports: the exit code, or 128 + signal.
  int shellCode() const { return signaled ? 128 + value : value; }
  bool success() const { return !signaled && value == 0; }
  /// "exit code 7" or "signal 9 (SIGKILL)".
  std::string describe() const;
};

/// "SIGKILL", "SIGTERM", ... ("signal 42" for one without a name).
std::string signalName(int signal);

/// One spawned worker. The child runs in a process group of its own (so a signal to the group reaches anything
/// it started), with stdin from /dev/null, stdout and stderr on non-blocking pipes read by the launcher, and
/// PR_SET_PDEATHSIG=SIGKILL, so it dies with the launcher even if the launcher is killed without cleaning up
/// (spawn from a thread that lives as long as the worker: the kernel ties this to the spawning thread). That reaches
/// the worker only, not what it started: LocalLauncher registers each group with a ProcessGuardian (Spec::
/// beforeExec) for that.
/// Not thread-safe. Destruction kills the group with SIGKILL if the worker still runs, and reaps it.
class WorkerProcess {
public:
  /// What to run: `program` is a path (see resolveProgram); `arguments` excludes argv[0]; `environment` holds
  /// "NAME=value" entries and is the child's whole environment.
  struct Spec {
    std::string program;
    std::vector<std::string> arguments;
    std::vector<std::string> environment;
    /// Called in the launcher with the child's pid (its process group) after fork and before the child may exec:
    /// the child waits for it to return, so whatever it registers (ProcessGuardian::add) covers everything the
    /// program will start. If it throws, the child is killed and reaped and the exception propagates.
    std::function<void(pid_t)> beforeExec;
  };

  /// Forks and execs. Returns once the child has exec'd: when exec fails (no such file, not executable) this
  /// throws ConfigError naming the program and the reason, and no process is left. A child whose launcher dies
  /// before it execs exits at once (status 127) without running the program.
  static std::unique_ptr<WorkerProcess> spawn(const Spec& spec);

  /// `name` itself when it contains '/', else the first executable `name` in the directories of `path` (a
  /// PATH-style list). Throws ConfigError when nothing is found.
  static std::string resolveProgram(const std::string& name, const std::string& path);

  ~WorkerProcess();
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  /// The worker's pid, which is also its process group id.
  pid_t pid() const { return m_pid; }
  /// Read ends of the child's stdout / stderr; -1 once closed.
  int stdoutFd() const { return m_stdout; }
  int stderrFd() const { return m_stderr; }
  /// Closes a read end (after EOF, or when giving up on output).
  void closeOutput(int fd);

  /// Reaps the child if it has ended (never blocks). Returns its status once it has ended.
  const std::optional<ExitStatus>& poll();
  /// How the worker ended, once poll() has seen it end.
  const std::optional<ExitStatus>& status() const { return m_status; }
  /// True until poll() has reaped the worker.
  bool running() const { return !m_status.has_value(); }

  /// Sends `signal` to the worker's process group (the worker and everything it started that stayed in the
  /// group). Returns false when no process of the group is left.
  bool signalGroup(int signal) const;
  /// True while any process of the group exists (the worker or a descendant that stayed in its group).
  bool groupAlive() const;

private:
  WorkerProcess(pid_t pid, int out, int err) : m_pid(pid), m_stdout(out), m_stderr(err) {}

  pid_t m_pid = -1;
  int m_stdout = -1;
  int m_stderr = -1;
  std::optional<ExitStatus> m_status;
};

}  // namespace fathom::launch
