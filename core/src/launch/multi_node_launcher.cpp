// SPDX-License-Identifier: Apache-2.0
#include <fathom/common/error.h>
#include <fathom/launch/agent_spec.h>
#include <fathom/launch/shell_quote.h>
#include <fathom/launch/ssh_launcher.h>
#include <fathom/launch/worker_process.h>

#include <nlohmann/json.hpp>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <iostream>
#include <memory>
#include <sstream>

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace fathom::launch {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::uint16_t kDefaultPort = 29500;  // Accelerate's main_process_port default
constexpr std::size_t kLastLines = 20;

std::atomic<int> g_signalPipe{-1};

extern "C" void onStopSignal(int signal) {
  const int saved = errno;
  const int fd = g_signalPipe.load();
  if (fd >= 0) {
    const unsigned char s = static_cast<unsigned char>(signal);
    [[maybe_unused]] const ssize_t n = ::write(fd, &s, 1);
  }
  errno = saved;
}

/// SIGINT / SIGTERM / SIGHUP write their number into a self-pipe that run()'s poll() watches; SIGPIPE is ignored
/// (an agent's stdin may be gone when we close it). The previous dispositions come back on destruction.
class SignalScope {
public:
  SignalScope() {
    FATHOM_CHECK(::pipe2(m_pipe, O_CLOEXEC | O_NONBLOCK) == 0, Error, "cannot create a pipe: ", std::strerror(errno));
    g_signalPipe = m_pipe[1];
    struct sigaction action {};
    action.sa_handler = onStopSignal;
    sigemptyset(&action.sa_mask);
    for (std::size_t i = 0; i < kSignals.size(); ++i) {
      ::sigaction(kSignals[i], &action, &m_previous[i]);
    }
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    ::sigaction(SIGPIPE, &ignore, &m_previousPipe);
  }
  ~SignalScope() {
    for (std::size_t i = 0; i < kSignals.size(); ++i) {
      ::sigaction(kSignals[i], &m_previous[i], nullptr);
    }
    ::sigaction(SIGPIPE, &m_previousPipe, nullptr);
    g_signalPipe = -1;
    ::close(m_pipe[0]);
    ::close(m_pipe[1]);
  }
  SignalScope(const SignalScope&) = delete;
  SignalScope& operator=(const SignalScope&) = delete;

  int readFd() const { return m_pipe[0]; }

private:
  static constexpr std::array<int, 3> kSignals{SIGINT, SIGTERM, SIGHUP};
  int m_pipe[2] = {-1, -1};
  std::array<struct sigaction, 3> m_previous{};
  struct sigaction m_previousPipe {};
};

/// One host's ssh process, with its agent behind it.
struct Agent {
  std::string host;
  int machineRank = 0;
  pid_t pid = -1;
  int in = -1;   ///< the agent's stdin: closing it stops the agent
  int out = -1;  ///< the agent's JSON events
  int err = -1;  ///< the agent's and its workers' stderr, and ssh's own messages
  std::string outBuffer;
  std::string errBuffer;
  std::deque<std::string> lastLines;
  bool started = false;                    ///< agent_started seen: ssh reached the host and the agent runs
  std::optional<nlohmann::json> finished;  ///< agent_finished
  std::optional<ExitStatus> sshStatus;     ///< how the ssh process ended
  bool judged = false;                     ///< its ending has been looked at (once)

  bool running() const { return !sshStatus.has_value(); }
};

void closeFd(int& fd) {
  if (fd >= 0) {
    ::close(fd);
    fd = -1;
  }
}

/// Forks and execs `argv` (argv[0] a path) in a process group of its own, with the three given descriptors as its
/// stdin, stdout, stderr. Only async-signal-safe calls between fork and exec.
pid_t spawn(const std::vector<std::string>& argv, int in, int out, int err) {
  std::vector<char*> args;
  for (const std::string& a : argv) {
    args.push_back(const_cast<char*>(a.c_str()));
  }
  args.push_back(nullptr);
  const pid_t pid = ::fork();
  FATHOM_CHECK(pid >= 0, Error, "cannot start ", argv.front(), ": fork failed: ", std::strerror(errno));
  if (pid == 0) {
    ::setpgid(0, 0);  // a terminal's Ctrl-C reaches the launcher, which stops the agents in order
    if (::dup2(in, 0) < 0 || ::dup2(out, 1) < 0 || ::dup2(err, 2) < 0) {
      ::_exit(127);
    }
    ::execve(args[0], args.data(), environ);
    ::_exit(127);
  }
  return pid;
}

ExitStatus toExitStatus(int status) {
  return WIFSIGNALED(status) ? ExitStatus{true, WTERMSIG(status)} : ExitStatus{false, WEXITSTATUS(status)};
}

/// Splits complete lines off `buffer` after reading what `fd` has; returns false at end of file.
bool readLines(int& fd, std::string& buffer, std::vector<std::string>& lines) {
  char chunk[4096];
  for (;;) {
    const ssize_t n = ::read(fd, chunk, sizeof(chunk));
    if (n > 0) {
      buffer.append(chunk, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      break;
    }
    closeFd(fd);  // end of file or an error: no more output
    if (!buffer.empty()) {
      buffer += '\n';
    }
    break;
  }
  for (auto newline = buffer.find('\n'); newline != std::string::npos; newline = buffer.find('\n')) {
    lines.push_back(buffer.substr(0, newline));
    buffer.erase(0, newline + 1);
  }
  return fd >= 0;
}

std::string joinLines(const std::deque<std::string>& lines, std::size_t last) {
  std::string text;
  const std::size_t from = lines.size() > last ? lines.size() - last : 0;
  for (std::size_t i = from; i < lines.size(); ++i) {
    text += (text.empty() ? "" : " | ") + lines[i];
  }
  return text;
}

/// What went wrong on `a`'s host, once its ssh process has ended non-zero.
HostFailure describeFailure(const Agent& a, std::chrono::seconds connectTimeout) {
  HostFailure f;
  f.host = a.host;
  f.machineRank = a.machineRank;
  f.exitCode = a.sshStatus->shellCode();
  f.lastLines.assign(a.lastLines.begin(), a.lastLines.end());
  if (a.finished) {
    const nlohmann::json& j = *a.finished;
    f.exitCode = j.value("exit_code", f.exitCode);
    if (j.contains("rank") && j["rank"].is_number_integer()) {
      f.rank = j["rank"].get<int>();
      f.reason = "rank " + std::to_string(*f.rank) + " ended with " + j.value("status", std::string("a failure"));
    } else if (j.contains("interrupted_by") && j["interrupted_by"].is_number_integer()) {
      f.reason = "its agent was stopped by " + signalName(j["interrupted_by"].get<int>());
    } else {
      f.reason = "its agent ended with exit code " + std::to_string(f.exitCode);
    }
  } else if (!a.started && a.sshStatus->shellCode() == 255) {
    f.reason = "ssh could not reach " + a.host + " or log in (ssh exit 255, ConnectTimeout " +
               std::to_string(connectTimeout.count()) + " s): " + joinLines(a.lastLines, 3);
  } else if (!a.started) {
    f.reason = "`fathom agent` could not run on " + a.host + " (" + a.sshStatus->describe() +
               "; see --remote_fathom): " + joinLines(a.lastLines, 3);
  } else {
    f.reason = "its agent ended without a result (ssh " + a.sshStatus->describe() +
               ": the agent was killed or the "
               "connection was lost)";
  }
  return f;
}

/// Runs `argv` and returns its stdout (empty when it fails). Used before run()'s signal scope only.
std::string capture(const std::vector<std::string>& argv) {
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) {
    return {};
  }
  const int devnull = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  pid_t pid = -1;
  try {
    pid = spawn(argv, devnull, out[1], devnull);
  } catch (const Error&) {
  }
  ::close(out[1]);
  ::close(devnull);
  std::string text;
  char chunk[4096];
  for (ssize_t n; (n = ::read(out[0], chunk, sizeof(chunk))) != 0;) {
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      break;
    }
    text.append(chunk, static_cast<std::size_t>(n));
  }
  ::close(out[0]);
  int status = 0;
  if (pid > 0) {
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  return pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? text : std::string();
}

}  // namespace

SshLauncher::SshLauncher(SshLaunchOptions options) : m_options(std::move(options)) {
  SshLaunchOptions& o = m_options;
  FATHOM_CHECK(!o.hosts.empty(), ConfigError, "--hosts / --hostfile: no host given");
  for (const HostSlots& h : o.hosts) {
    validateHostName(h.host, "--hosts");
  }
  const int slots = o.hosts.front().slotCount;
  for (const HostSlots& h : o.hosts) {
    FATHOM_CHECK(h.slotCount == slots, ConfigError, "--hostfile: every host must have the same slots= (",
                 o.hosts.front().host, " has ", slots, ", ", h.host, " has ", h.slotCount,
                 "): each machine runs num_processes / num_machines");
  }
  const int hosts = static_cast<int>(o.hosts.size());
  if (slots > 0) {
    FATHOM_CHECK(o.launch.numProcesses == slots * hosts, ConfigError, "--num_processes ", o.launch.numProcesses,
                 " does not match the hostfile (", hosts, " hosts with slots=", slots, ": ", slots * hosts, ")");
  }
  FATHOM_CHECK(o.launch.maxRestarts == 0, ConfigError,
               "--max_restarts is not supported with --hosts / --hostfile (a multi-node run is not restarted)");
  FATHOM_CHECK(o.connectTimeout.count() >= 1, ConfigError, "--ssh_connect_timeout must be >= 1 second, got ",
               o.connectTimeout.count());
  FATHOM_CHECK(!o.remoteFathom.empty(), ConfigError, "--remote_fathom must not be empty");
  o.launch.numMachines = hosts;
  o.launch.machineRank = 0;
  if (o.launch.mainProcessPort == 0) {
    o.launch.mainProcessPort = kDefaultPort;
  }
  if (o.launch.mainProcessIp.empty()) {
    o.launch.mainProcessIp = "(first host)";  // resolved in run(); validate() only needs a value
  }
  validate(o.launch);
  if (o.launch.mainProcessIp == "(first host)") {
    o.launch.mainProcessIp.clear();
  }
}

std::vector<std::string> SshLauncher::sshCommand(const std::string& host, const std::string& agentSpecJson) const {
  const SshLaunchOptions& o = m_options;
  std::vector<std::string> argv{o.ssh};
  if (!o.sshConfig.empty()) {
    argv.insert(argv.end(), {"-F", o.sshConfig.string()});
  }
  argv.insert(argv.end(), {"-o", "BatchMode=yes", "-o", "ConnectTimeout=" + std::to_string(o.connectTimeout.count()),
                           "-o", "ServerAliveInterval=5", "-o", "ServerAliveCountMax=2", "-T", "-x", "--", host,
                           "exec " + shellCommand({o.remoteFathom, "agent", "--spec", agentSpecJson})});
  return argv;
}

std::string SshLauncher::resolveAddress(const std::string& host) const {
  std::vector<std::string> argv{
      WorkerProcess::resolveProgram(m_options.ssh, std::getenv("PATH") ? std::getenv("PATH") : "")};
  if (!m_options.sshConfig.empty()) {
    argv.insert(argv.end(), {"-F", m_options.sshConfig.string()});
  }
  argv.insert(argv.end(), {"-G", "--", host});
  // `ssh -G` prints the configuration it would use, one "keyword value" a line (ssh_config(5) keywords, lower-case).
  std::istringstream lines(capture(argv));
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("hostname ", 0) == 0) {
      return line.substr(9);
    }
  }
  const auto at = host.find('@');
  return at == std::string::npos ? host : host.substr(at + 1);
}

SshLaunchResult SshLauncher::run() {
  const char* path = std::getenv("PATH");
  m_options.ssh = WorkerProcess::resolveProgram(m_options.ssh, path ? path : "");  // sshCommand() execs it as is
  const SshLaunchOptions& o = m_options;
  SshLaunchResult result;
  result.masterAddress = o.launch.mainProcessIp.empty() ? resolveAddress(o.hosts.front().host) : o.launch.mainProcessIp;
  result.masterPort = o.launch.mainProcessPort;

  const SignalScope signals;
  std::vector<Agent> agents(o.hosts.size());
  const auto stopAll = [&agents] {
    for (Agent& a : agents) {
      closeFd(a.in);
    }
  };
  for (std::size_t i = 0; i < o.hosts.size(); ++i) {
    Agent& a = agents[i];
    a.host = o.hosts[i].host;
    a.machineRank = static_cast<int>(i);
    AgentSpec spec;
    spec.options = o.launch;
    spec.options.machineRank = a.machineRank;
    spec.options.mainProcessIp = result.masterAddress;
    spec.options.runSpec.clear();
    spec.workingDirectory = o.workingDirectory;
    spec.environment = forwardedEnvironment();
    int in[2];
    int out[2];
    int err[2];
    if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) {
      stopAll();
      FATHOM_CHECK(false, Error, "cannot create pipes for ssh to ", a.host, ": ", std::strerror(errno));
    }
    try {
      a.pid = spawn(sshCommand(a.host, toJson(spec)), in[0], out[1], err[1]);
    } catch (...) {
      for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1]}) {
        ::close(fd);
      }
      stopAll();
      throw;
    }
    ::close(in[0]);
    ::close(out[1]);
    ::close(err[1]);
    a.in = in[1];
    a.out = out[0];
    a.err = err[0];
    ::fcntl(a.out, F_SETFL, O_NONBLOCK);
    ::fcntl(a.err, F_SETFL, O_NONBLOCK);
  }

  std::optional<Clock::time_point> stopping;  // when teardown began
  const auto beginStop = [&] {
    if (!stopping) {
      stopping = Clock::now();
      stopAll();
    }
  };
  bool killed = false;
  for (;;) {
    std::vector<pollfd> fds{{signals.readFd(), POLLIN, 0}};
    for (Agent& a : agents) {
      for (int fd : {a.out, a.err}) {
        if (fd >= 0) {
          fds.push_back({fd, POLLIN, 0});
        }
      }
    }
    ::poll(fds.data(), fds.size(), 100);
    unsigned char signal = 0;
    while (::read(signals.readFd(), &signal, 1) == 1) {
      if (!result.interruptedBy) {
        result.interruptedBy = signal;
        std::cerr << "fathom launch: " << signalName(signal) << ": stopping every host\n";
      }
      beginStop();
    }
    bool anyRunning = false;
    for (Agent& a : agents) {
      std::vector<std::string> lines;
      if (a.out >= 0) {
        readLines(a.out, a.outBuffer, lines);
        for (const std::string& line : lines) {
          const nlohmann::json event = nlohmann::json::parse(line, nullptr, false);
          const std::string kind = event.is_object() ? event.value("event", std::string()) : std::string();
          if (kind == "agent_started") {
            a.started = true;
          } else if (kind == "agent_finished") {
            a.finished = event;
          } else {
            std::cerr << "[" << a.host << "] " << line << "\n";  // not an agent event: shown, never interpreted
          }
        }
        lines.clear();
      }
      if (a.err >= 0) {
        readLines(a.err, a.errBuffer, lines);
        for (const std::string& line : lines) {
          std::cerr << "[" << a.host << "] " << line << "\n";
          a.lastLines.push_back(line);
          if (a.lastLines.size() > kLastLines) {
            a.lastLines.pop_front();
          }
        }
      }
      if (a.running()) {
        int status = 0;
        const pid_t r = ::waitpid(a.pid, &status, WNOHANG);
        if (r == a.pid) {
          a.sshStatus = toExitStatus(status);
          closeFd(a.in);
        }
      }
      // Judged once ssh has ended and its output is read to the end, so the agent's last event and lines are in.
      if (!a.judged && a.sshStatus && a.out < 0 && a.err < 0) {
        a.judged = true;
        if (!a.sshStatus->success() && !result.failure && !stopping) {
          result.failure = describeFailure(a, o.connectTimeout);
          std::cerr << "fathom launch: host " << a.host << " (machine " << a.machineRank
                    << ") failed: " << result.failure->reason << "; stopping every host\n";
          beginStop();
        }
      }
      anyRunning = anyRunning || a.running() || a.out >= 0 || a.err >= 0;
    }
    if (!anyRunning) {
      break;
    }
    if (stopping && !killed && Clock::now() - *stopping > o.launch.terminateGracePeriod + std::chrono::seconds(5)) {
      // An agent that did not end: ending its ssh closes the connection, which stops the agent the same way.
      for (Agent& a : agents) {
        if (a.running()) {
          ::kill(-a.pid, SIGKILL);
        }
      }
      killed = true;
    }
  }
  if (stopping) {
    result.teardown = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - *stopping);
  }
  result.exitCode = result.failure ? result.failure->exitCode : result.interruptedBy ? 128 + *result.interruptedBy : 0;
  return result;
}

}  // namespace fathom::launch
