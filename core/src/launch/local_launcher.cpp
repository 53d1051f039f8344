// SPDX-License-Identifier: Apache-2.0
#include <fathom/launch/local_launcher.h>

#include "rank_output.h"
#include <fathom/common/error.h>
#include <fathom/common/terminal_text.h>
#include <fathom/launch/process_guardian.h>
#include <fathom/launch/process_limits.h>
#include <fathom/launch/worker_environment.h>
#include <fathom/runtime/free_port.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <set>

extern char** environ;

namespace fathom::launch {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::duration_cast;
using std::chrono::milliseconds;

/// How long output pipes may stay open after every worker has been reaped (a descendant that left the worker's
/// process group may still hold them) before the launcher stops reading.
constexpr milliseconds kDrainAfterExit{2000};

// ---- signals ------------------------------------------------------------------------------------------------

struct SignalMessage {
  int signal = 0;
  pid_t pid = 0;  ///< for SIGCHLD: the child that changed state; kRequestedStop: LocalLauncher::requestStop()
};

/// SignalMessage::pid of a stop the launcher asked for itself (no process has this pid).
constexpr pid_t kRequestedStop = -1;

std::atomic<int> g_signalPipe{-1};

void onSignal(int signal, siginfo_t* info, void*) {
  const int saved = errno;
  const SignalMessage message{signal, info != nullptr ? info->si_pid : 0};
  if (const int fd = g_signalPipe.load(); fd >= 0) {
    [[maybe_unused]] const auto n = ::write(fd, &message, sizeof(message));
  }
  errno = saved;
}

/// Routes SIGINT, SIGTERM, SIGHUP and SIGCHLD into a self-pipe the poll() loop watches, ignores SIGPIPE, and
/// restores the previous dispositions on destruction.
class SignalScope {
public:
  SignalScope() {
    int fds[2];
    FATHOM_CHECK(pipe2(fds, O_CLOEXEC | O_NONBLOCK) == 0, Error,
                 "cannot create the launcher's signal pipe: ", std::strerror(errno));
    m_read = fds[0];
    m_write = fds[1];
    g_signalPipe = m_write;
    struct sigaction action {};
    action.sa_sigaction = onSignal;
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&action.sa_mask);
    for (std::size_t i = 0; i < kForwarded.size(); ++i) {
      sigaction(kForwarded[i], &action, &m_previous[i]);
    }
    action.sa_flags |= SA_NOCLDSTOP;
    sigaction(SIGCHLD, &action, &m_previousChild);
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &ignore, &m_previousPipe);
  }
  ~SignalScope() {
    for (std::size_t i = 0; i < kForwarded.size(); ++i) {
      sigaction(kForwarded[i], &m_previous[i], nullptr);
    }
    sigaction(SIGCHLD, &m_previousChild, nullptr);
    sigaction(SIGPIPE, &m_previousPipe, nullptr);
    g_signalPipe = -1;
    ::close(m_read);
    ::close(m_write);
  }
  SignalScope(const SignalScope&) = delete;
  SignalScope& operator=(const SignalScope&) = delete;

  int fd() const { return m_read; }

  std::vector<SignalMessage> drain() const {
    std::vector<SignalMessage> out;
    SignalMessage message;
    while (::read(m_read, &message, sizeof(message)) == static_cast<ssize_t>(sizeof(message))) {
      out.push_back(message);
    }
    return out;
  }

private:
  static constexpr std::array kForwarded{SIGINT, SIGTERM, SIGHUP};
  int m_read = -1;
  int m_write = -1;
  std::array<struct sigaction, kForwarded.size()> m_previous{};
  struct sigaction m_previousChild {};
  struct sigaction m_previousPipe {};
};

// ---- helpers ------------------------------------------------------------------------------------------------

std::optional<std::string> launcherVariable(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? std::optional<std::string>(value) : std::nullopt;
}

/// The launcher's environment with `vars` replacing any variable of the same name.
std::vector<std::string> childEnvironment(const std::vector<std::pair<std::string, std::string>>& vars) {
  std::set<std::string, std::less<>> names;
  for (const auto& [name, value] : vars) {
    names.insert(name);
  }
  std::vector<std::string> out;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    if (names.find(text.substr(0, text.find('='))) == names.end()) {
      out.emplace_back(text);
    }
  }
  for (const auto& [name, value] : vars) {
    out.push_back(name + "=" + value);
  }
  return out;
}

bool isLoopback(const std::string& addr) {
  return addr.empty() || addr == "localhost" || addr.rfind("127.", 0) == 0 || addr == "::1";
}

void note(const LaunchOptions& o, const std::string& text, bool evenIfQuiet = false) {
  if (!o.quiet || evenIfQuiet) {
    writeAll(STDERR_FILENO, "fathom launch: " + text + "\n");
  }
}

struct Worker {
  int rank = 0;
  int localRank = 0;
  std::unique_ptr<RankOutput> output;
  std::unique_ptr<WorkerProcess> process;  // declared last: destroyed (killed and reaped) first
};

/// Reads what `fd` holds now into the worker's output (at most 1 MiB, so one chatty rank cannot starve the
/// loop); closes it at end of stream.
void pump(Worker& w, int fd, Stream stream) {
  std::array<char, 65536> buffer;
  for (int chunk = 0; chunk < 16; ++chunk) {
    const ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n > 0) {
      w.output->append(stream, std::string_view(buffer.data(), static_cast<std::size_t>(n)));
      continue;
    }
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      return;
    }
    w.output->finish(stream);
    w.process->closeOutput(fd);
    return;
  }
}

RankOutput::Options outputOptions(const LaunchOptions& o, int attempt, int rank) {
  RankOutput::Options out;
  out.rank = rank;
  out.tailLines = static_cast<std::size_t>(o.tailLines);
  if (o.workerStdoutToStderr) {
    out.stdoutFd = STDERR_FILENO;
  }
  if (!o.logDir.empty()) {
    const auto tee = static_cast<int>(o.tee.value_or(TeeStreams::Both));
    const auto dir = o.logDir / ("attempt_" + std::to_string(attempt)) / ("rank_" + std::to_string(rank));
    if ((tee & static_cast<int>(TeeStreams::Stdout)) != 0) {
      out.stdoutLog = dir / "stdout.log";
    }
    if ((tee & static_cast<int>(TeeStreams::Stderr)) != 0) {
      out.stderrLog = dir / "stderr.log";
    }
  }
  return out;
}

/// Stops the first `count` workers after a spawn failed: SIGTERM to their process groups, SIGKILL to what is left
/// after the grace period; reaps them.
void stopSpawned(std::vector<Worker>& workers, std::size_t count, const LaunchOptions& o) {
  for (std::size_t i = 0; i < count; ++i) {
    workers[i].process->signalGroup(SIGTERM);
  }
  const auto deadline = Clock::now() + o.terminateGracePeriod;
  for (;;) {
    bool any = false;
    for (std::size_t i = 0; i < count; ++i) {
      workers[i].process->poll();
      any = any || workers[i].process->groupAlive();
    }
    if (!any) {
      return;
    }
    if (Clock::now() >= deadline) {
      break;
    }
    ::poll(nullptr, 0, 20);
  }
  for (std::size_t i = 0; i < count; ++i) {
    workers[i].process->signalGroup(SIGKILL);
  }
  // ~WorkerProcess reaps each leader.
}

/// One attempt: spawn every local worker, pump output, watch, stop the group on the first failure or signal.
/// Every worker's process group is known to `guardian` from before its program runs until the group is gone.
LaunchResult runGroup(const LaunchOptions& o, const std::string& program, int attempt, std::uint16_t port,
                      const SignalScope& signals, ProcessGuardian& guardian, LaunchObserver* observer) {
  LaunchResult result;
  result.masterPort = port;
  const int local = localWorldSize(o);
  const auto ompThreads = launcherVariable("OMP_NUM_THREADS");
  if (attempt == 0 && !o.numCpuThreadsPerProcess && !ompThreads && local > 1) {
    note(o, "OMP_NUM_THREADS is not set: setting it to 1 for each process so " + std::to_string(local) +
                " processes do not overload the machine; tune it with --num_cpu_threads_per_process");
  }

  const auto observerVars =
      observer != nullptr ? observer->workerEnvironment() : std::vector<std::pair<std::string, std::string>>{};
  std::vector<Worker> workers(static_cast<std::size_t>(local));
  for (int lr = 0; lr < local; ++lr) {
    Worker& w = workers[static_cast<std::size_t>(lr)];
    w.localRank = lr;
    w.rank = o.machineRank * local + lr;
    w.output = std::make_unique<RankOutput>(outputOptions(o, attempt, w.rank));
    auto vars = workerVariables(o, {.localRank = lr, .masterPort = port, .restartCount = attempt}, ompThreads);
    const std::size_t ownVars = vars.size();  // --debug prints these, not the observer's (they hold a token)
    vars.insert(vars.end(), observerVars.begin(), observerVars.end());
    WorkerProcess::Spec spec{program,
                             {o.command.begin() + 1, o.command.end()},
                             childEnvironment(vars),
                             [&guardian](pid_t group) { guardian.add(group); }};
    try {
      w.process = WorkerProcess::spawn(spec);
    } catch (const Error& e) {
      // Nothing of a half-started group may run on: stop the workers already started, then say who failed.
      stopSpawned(workers, static_cast<std::size_t>(lr), o);
      const std::string text =
          detail::concat("rank ", w.rank, " (local rank ", lr, ") could not be started: ", e.what(), "; stopped the ",
                         lr, " process(es) already started");
      if (dynamic_cast<const ConfigError*>(&e) != nullptr) {
        throw ConfigError(text);
      }
      throw Error(text);
    }
    vars.resize(ownVars);
    if (observer != nullptr) {
      observer->workerStarted({w.rank, w.localRank, attempt, w.process->pid()});
    }
    if (o.debug) {
      std::string text = "rank " + std::to_string(w.rank) + ": pid " + std::to_string(w.process->pid()) + ",";
      for (const auto& [name, value] : vars) {
        text += " " + name + "=" + value;
      }
      note(o, text);
    }
  }

  std::optional<std::size_t> failed;
  std::optional<Clock::time_point> stopStarted;
  std::optional<Clock::time_point> killAt;
  std::optional<Clock::time_point> allReapedAt;
  bool killed = false;
  const auto stopAll = [&](int signal) {
    if (o.debug) {
      note(o, "sending " + signalName(signal) + " to every worker's process group");
    }
    for (auto& w : workers) {
      w.process->signalGroup(signal);
    }
    stopStarted = stopStarted.value_or(Clock::now());
    if (signal == SIGKILL) {
      killed = true;
    } else if (!killAt) {
      killAt = Clock::now() + o.terminateGracePeriod;
    }
  };
  const auto reap = [&](std::size_t i) {
    Worker& w = workers[i];
    if (!w.process->running() || !w.process->poll()) {
      return;
    }
    const ExitStatus& status = *w.process->status();
    if (observer != nullptr) {
      observer->workerEnded({w.rank, w.localRank, attempt, w.process->pid()}, status);
    }
    if (o.debug) {
      note(o, "rank " + std::to_string(w.rank) + " (pid " + std::to_string(w.process->pid()) + ") ended with " +
                  status.describe());
    }
    if (!w.process->groupAlive()) {
      guardian.remove(w.process->pid());  // its id may now be reused by an unrelated process
    }
    if (!status.success() && !failed && !stopStarted) {
      failed = i;
      stopAll(SIGTERM);
    }
  };

  std::vector<pollfd> fds;
  std::vector<std::pair<std::size_t, Stream>> owners;
  for (;;) {
    fds.assign(1, pollfd{signals.fd(), POLLIN, 0});
    owners.assign(1, {0, Stream::Stdout});
    for (std::size_t i = 0; i < workers.size(); ++i) {
      if (workers[i].process->stdoutFd() >= 0) {
        fds.push_back({workers[i].process->stdoutFd(), POLLIN, 0});
        owners.emplace_back(i, Stream::Stdout);
      }
      if (workers[i].process->stderrFd() >= 0) {
        fds.push_back({workers[i].process->stderrFd(), POLLIN, 0});
        owners.emplace_back(i, Stream::Stderr);
      }
    }
    milliseconds timeout = o.monitorInterval;
    if (killAt && !killed) {
      timeout =
          std::clamp(duration_cast<milliseconds>(*killAt - Clock::now()) + milliseconds(1), milliseconds(0), timeout);
    }
    if (allReapedAt) {
      timeout = std::min(timeout, milliseconds(50));
    }
    ::poll(fds.data(), fds.size(), static_cast<int>(timeout.count()));

    std::vector<pid_t> exitOrder;
    for (const SignalMessage& m : signals.drain()) {
      if (m.signal == SIGCHLD) {
        exitOrder.push_back(m.pid);
      } else if (!result.interruptedBy) {
        result.interruptedBy = m.signal;
        note(o,
             (m.pid == kRequestedStop ? std::string("stopping the group as asked")
                                      : "received " + signalName(m.signal)) +
                 ": stopping all " + std::to_string(local) + " processes",
             true);
        stopAll(m.signal);
      } else if (!killed) {
        note(o, "received " + signalName(m.signal) + " again: killing all processes", true);
        stopAll(SIGKILL);
      }
    }
    for (std::size_t k = 1; k < fds.size(); ++k) {
      if ((fds[k].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL)) != 0) {
        pump(workers[owners[k].first], fds[k].fd, owners[k].second);
      }
    }
    // The kernel's order of SIGCHLDs says which rank failed first when several end in one wake-up.
    for (pid_t pid : exitOrder) {
      for (std::size_t i = 0; i < workers.size(); ++i) {
        if (workers[i].process->pid() == pid) {
          reap(i);
        }
      }
    }
    for (std::size_t i = 0; i < workers.size(); ++i) {
      reap(i);
    }
    if (killAt && !killed && Clock::now() >= *killAt) {
      const bool anyAlive =
          std::any_of(workers.begin(), workers.end(), [](const Worker& w) { return w.process->groupAlive(); });
      if (anyAlive) {
        note(o, "processes still running " + std::to_string(o.terminateGracePeriod.count()) +
                    " ms after the stop signal: sending SIGKILL");
        stopAll(SIGKILL);
      } else {
        killed = true;
      }
    }
    const bool allReaped =
        std::none_of(workers.begin(), workers.end(), [](const Worker& w) { return w.process->running(); });
    if (!allReaped) {
      continue;
    }
    const bool outputOpen = std::any_of(workers.begin(), workers.end(), [](const Worker& w) {
      return w.process->stdoutFd() >= 0 || w.process->stderrFd() >= 0;
    });
    if (!outputOpen) {
      break;
    }
    if (!allReapedAt) {
      allReapedAt = Clock::now();
      for (auto& w : workers) {
        w.process->signalGroup(SIGKILL);  // descendants left in a worker's group still hold its pipes
      }
    } else if (Clock::now() - *allReapedAt > kDrainAfterExit) {
      for (auto& w : workers) {
        for (int fd : {w.process->stdoutFd(), w.process->stderrFd()}) {
          w.process->closeOutput(fd);
        }
        w.output->finish(Stream::Stdout);
        w.output->finish(Stream::Stderr);
      }
      break;
    }
  }
  // Nothing of the group outlives the attempt: descendants that stayed in a worker's group go too.
  for (auto& w : workers) {
    if (w.process->groupAlive()) {
      w.process->signalGroup(SIGKILL);
    }
    guardian.remove(w.process->pid());
  }
  if (stopStarted) {
    result.teardown = duration_cast<milliseconds>(Clock::now() - *stopStarted);
  }

  if (failed) {
    const Worker& w = workers[*failed];
    result.failure = RankFailure{w.rank, w.localRank, w.process->pid(), *w.process->status(), w.output->tail()};
    result.exitCode = w.process->status()->shellCode();
    note(o,
         "rank " + std::to_string(w.rank) + " (local rank " + std::to_string(w.localRank) + ", pid " +
             std::to_string(w.process->pid()) + ") failed with " + w.process->status()->describe(),
         true);
    if (!o.quiet && !result.failure->lastLines.empty()) {
      std::string text =
          "last " + std::to_string(result.failure->lastLines.size()) + " lines of rank " + std::to_string(w.rank) + ":";
      for (const auto& line : result.failure->lastLines) {
        text += "\n    " + terminalSafe(line);  // a rank's bytes, quoted: no escape sequence reaches the terminal
      }
      note(o, text);
    }
    if (local > 1) {
      note(o, "stopped the other processes in " + std::to_string(result.teardown.count()) + " ms");
    }
  } else if (result.interruptedBy) {
    result.exitCode = 128 + *result.interruptedBy;
  }
  return result;
}

}  // namespace

LocalLauncher::LocalLauncher(LaunchOptions options) : m_options(std::move(options)) {
  validate(m_options);
  checkProcessLimits(m_options);
  m_program = WorkerProcess::resolveProgram(m_options.command.front(), launcherVariable("PATH").value_or(""));
}

LaunchResult LocalLauncher::run(LaunchObserver* observer) {
  const SignalScope signals;
  const LaunchOptions& o = m_options;
  // Stops every worker group if this process dies without doing it (SIGKILL included); created after the signal
  // scope, so its end of the channel never raises SIGPIPE here, and destroyed before it.
  ProcessGuardian guardian(static_cast<std::size_t>(localWorldSize(o)), o.terminateGracePeriod);
  for (int attempt = 0;; ++attempt) {
    const std::uint16_t port = o.mainProcessPort != 0
                                   ? o.mainProcessPort
                                   : runtime::findFreePort(isLoopback(o.mainProcessIp) ? "127.0.0.1" : "0.0.0.0");
    LaunchResult result = runGroup(o, m_program, attempt, port, signals, guardian, observer);
    result.attempts = attempt + 1;
    if (result.exitCode == 0 || result.interruptedBy || attempt >= o.maxRestarts) {
      return result;
    }
    note(o,
         "restarting the whole group (restart " + std::to_string(attempt + 1) + " of " + std::to_string(o.maxRestarts) +
             ")",
         true);
  }
}

bool LocalLauncher::requestStop() {
  const int fd = g_signalPipe.load();
  if (fd < 0) {
    return false;
  }
  const SignalMessage message{SIGTERM, kRequestedStop};
  return ::write(fd, &message, sizeof(message)) == static_cast<ssize_t>(sizeof(message));
}

}  // namespace fathom::launch
