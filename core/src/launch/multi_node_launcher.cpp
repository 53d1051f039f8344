// SPDX-License-Identifier: Apache-2.0
#include "launch/child_process.h"

#include <fathom/common/build_info.h>
#include <fathom/common/error.h>
#include <fathom/launch/agent_spec.h>
#include <fathom/launch/multi_node_launcher.h>
#include <fathom/launch/remote_agent.h>
#include <fathom/launch/worker_environment.h>
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
#include <random>

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

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

/// One host's transport process (ssh, srun), with its agent behind it.
struct Agent {
  std::string host;
  int machineRank = 0;
  pid_t pid = -1;
  int in = -1;   ///< the agent's stdin: closing it stops the agent
  int out = -1;  ///< the agent's JSON events
  int err = -1;  ///< the agent's and its workers' stderr, and the transport's own messages
  std::string outBuffer;
  std::string errBuffer;
  std::deque<std::string> lastLines;
  bool started = false;                       ///< agent_started seen: the transport reached the host, the agent runs
  int workersStarted = 0;                     ///< worker_started events seen
  std::optional<nlohmann::json> finished;     ///< agent_finished
  std::optional<std::string> refusal;         ///< why the agent refused to start (agent_refused), or the launcher did
  std::optional<ExitStatus> transportStatus;  ///< how the transport process ended
  bool judged = false;                        ///< its ending has been looked at (once)

  bool running() const { return !transportStatus.has_value(); }
};

void closeFd(int& fd) {
  if (fd >= 0) {
    ::close(fd);
    fd = -1;
  }
}

ExitStatus toExitStatus(int status) {
  return WIFSIGNALED(status) ? ExitStatus{true, WTERMSIG(status)} : ExitStatus{false, WEXITSTATUS(status)};
}

/// Splits complete lines off `buffer` after reading what `fd` has; returns false at end of file.
bool readLines(int& fd, std::string& buffer, std::vector<std::string>& lines) {
  if (!detail::readAvailable(fd, buffer)) {
    closeFd(fd);  // end of file or an error: no more output
    if (!buffer.empty()) {
      buffer += '\n';
    }
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

/// What went wrong on `a`'s host, once its transport process has ended non-zero.
HostFailure describeFailure(const Agent& a, const AgentTransport& transport) {
  HostFailure f;
  f.host = a.host;
  f.machineRank = a.machineRank;
  f.exitCode = a.transportStatus->shellCode();
  f.lastLines.assign(a.lastLines.begin(), a.lastLines.end());
  if (a.refusal) {
    f.exitCode = kAgentRefused;
    f.reason = *a.refusal;
  } else if (a.finished) {
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
  } else if (!a.started) {
    f.reason = transport.describeUnreached(a.host, *a.transportStatus, joinLines(a.lastLines, 3));
  } else {
    f.reason = "its agent ended without a result (" + transport.name() + " " + a.transportStatus->describe() +
               ": the agent was killed or the connection was lost)";
  }
  return f;
}

/// "ranks 2-3" (or "rank 2") of machine `machineRank` with `perHost` processes each.
std::string rankRange(int machineRank, int perHost) {
  const int first = machineRank * perHost;
  return perHost == 1 ? "rank " + std::to_string(first)
                      : "ranks " + std::to_string(first) + "-" + std::to_string(first + perHost - 1);
}

/// 16 random hex digits: keeps this run's tunnel sockets apart from other runs'.
std::string randomRunKey() {
  std::random_device device;
  std::uniform_int_distribution<unsigned> nibble(0, 15);
  std::string key;
  for (int i = 0; i < 16; ++i) {
    key += "0123456789abcdef"[nibble(device)];
  }
  return key;
}

/// An agent's worker_started / worker_ended event as the observer's WorkerEvent; nothing when a field is missing.
std::optional<WorkerEvent> workerEvent(const nlohmann::json& event, const std::string& host) {
  WorkerEvent w;
  try {
    w.rank = event.at("rank").get<int>();
    w.localRank = event.at("local_rank").get<int>();
    w.attempt = event.at("attempt").get<int>();
    w.pid = event.at("pid").get<std::int64_t>();
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
  w.host = host;
  return w;
}

}  // namespace

MultiNodeLauncher::MultiNodeLauncher(MultiNodeOptions options, std::unique_ptr<AgentTransport> transport)
    : m_options(std::move(options)), m_transport(std::move(transport)) {
  MultiNodeOptions& o = m_options;
  FATHOM_CHECK(m_transport != nullptr, Error, "a multi-node launch needs a transport");
  FATHOM_CHECK(!o.hosts.empty(), ConfigError, o.hostsFlag, ": no host given");
  for (const HostSlots& h : o.hosts) {
    validateHostName(h.host, o.hostsFlag);
  }
  const int slots = o.hosts.front().slotCount;
  for (const HostSlots& h : o.hosts) {
    FATHOM_CHECK(h.slotCount == slots, ConfigError, o.hostsFlag, ": every host must have the same slots= (",
                 o.hosts.front().host, " has ", slots, ", ", h.host, " has ", h.slotCount,
                 "): each machine runs num_processes / num_machines");
  }
  const int hosts = static_cast<int>(o.hosts.size());
  if (slots > 0) {
    FATHOM_CHECK(o.launch.numProcesses == slots * hosts, ConfigError, "--num_processes ", o.launch.numProcesses,
                 " does not match the hostfile (", hosts, " hosts with slots=", slots, ": ", slots * hosts, ")");
  }
  FATHOM_CHECK(o.launch.maxRestarts == 0, ConfigError, "--max_restarts is not supported with ", o.hostsFlag,
               " (a multi-node run is not restarted)");
  FATHOM_CHECK(!o.remoteFathom.empty(), ConfigError, "--remote_fathom must not be empty");
  FATHOM_CHECK(o.rendezvousTimeout.count() >= 1, ConfigError, "--rdzv_timeout must be >= 1 second, got ",
               o.rendezvousTimeout.count());
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

bool MultiNodeLauncher::requestStop() {
  if (g_signalPipe.load() < 0) {
    return false;
  }
  onStopSignal(SIGTERM);
  return true;
}

MultiNodeResult MultiNodeLauncher::run(LaunchObserver* observer) {
  m_transport->prepare();
  const MultiNodeOptions& o = m_options;
  const AgentTransport& transport = *m_transport;
  MultiNodeResult result;
  result.masterAddress =
      o.launch.mainProcessIp.empty() ? transport.resolveAddress(o.hosts.front().host) : o.launch.mainProcessIp;
  result.masterPort = o.launch.mainProcessPort;
  const std::uint16_t collectorPort = observer != nullptr ? observer->telemetryPort() : 0;
  const std::string runKey = randomRunKey();

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
    AgentRequest request;
    request.host = a.host;
    request.machineRank = a.machineRank;
    request.collectorPort = collectorPort;
    AgentSpec spec;
    spec.options = o.launch;
    spec.options.machineRank = a.machineRank;
    spec.options.mainProcessIp = result.masterAddress;
    spec.options.runSpec.clear();
    spec.workingDirectory = o.workingDirectory;
    spec.environment = forwardedEnvironment();
    spec.fathomVersion = buildInfo().version;
    if (collectorPort != 0) {
      // The workers reach the collector directly (--same_network) or through the transport's tunnel.
      const std::string endpoint = !o.telemetryAddress.empty()
                                       ? o.telemetryAddress + ":" + std::to_string(collectorPort)
                                       : transport.tunnelEndpoint(a.host, a.machineRank, runKey);
      if (o.telemetryAddress.empty() && !endpoint.empty()) {
        request.tunnelEndpoint = endpoint;
        if (endpoint.rfind("unix:", 0) == 0) {
          spec.tunnelSocket = endpoint.substr(5);
        }
      }
      if (!endpoint.empty()) {
        for (auto& variable : observer->remoteWorkerEnvironment(endpoint)) {
          spec.environment.push_back(std::move(variable));
        }
      }
    }
    request.agentArgv = {o.remoteFathom, "agent", "--spec", toJson(spec)};
    int in[2];
    int out[2];
    int err[2];
    if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) {
      stopAll();
      FATHOM_CHECK(false, Error, "cannot create pipes for ", transport.name(), " to ", a.host, ": ",
                   std::strerror(errno));
    }
    try {
      a.pid = detail::spawnInOwnGroup(transport.command(request), in[0], out[1], err[1]);
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

  const Clock::time_point launched = Clock::now();
  const int perHost = localWorldSize(o.launch);
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
    if (!stopping && !result.failure && Clock::now() - launched > o.rendezvousTimeout) {
      std::string missing;
      std::optional<std::size_t> first;
      for (std::size_t i = 0; i < agents.size(); ++i) {
        const Agent& a = agents[i];
        if (!a.started || a.workersStarted < perHost) {
          missing += (missing.empty() ? "" : ", ") + a.host + " (machine " + std::to_string(a.machineRank) + ", " +
                     rankRange(a.machineRank, perHost) + ")";
          first = first.value_or(i);
        }
      }
      if (first) {
        HostFailure f;
        f.host = agents[*first].host;
        f.machineRank = agents[*first].machineRank;
        f.exitCode = kRendezvousTimedOut;
        f.reason = "the rendezvous timed out after " + std::to_string(o.rendezvousTimeout.count()) +
                   " s (--rdzv_timeout): never joined: " + missing;
        f.lastLines.assign(agents[*first].lastLines.begin(), agents[*first].lastLines.end());
        std::cerr << "fathom launch: " << f.reason << "; stopping every host\n";
        result.failure = std::move(f);
        beginStop();
      }
    }
    bool anyRunning = false;
    for (Agent& a : agents) {
      std::vector<std::string> lines;
      if (a.out >= 0) {
        readLines(a.out, a.outBuffer, lines);
        for (const std::string& line : lines) {
          const nlohmann::json event = nlohmann::json::parse(line, nullptr, false);
          const std::string kind = event.is_object() ? event.value("event", std::string()) : std::string();
          std::optional<WorkerEvent> worker;
          if (kind == "agent_started") {
            a.started = true;
            const std::string version = event.value("version", std::string("(none: older than the handshake)"));
            if (version != buildInfo().version && !a.refusal) {
              a.refusal = "the agent on " + a.host + " runs Fathom " + version + ", the launcher " +
                          buildInfo().version + ": install the same version on every host";
              closeFd(a.in);  // stops it; its ending is judged below
            }
          } else if (kind == "agent_refused") {
            a.refusal = event.value("message", std::string("the agent refused the launch"));
          } else if (kind == "agent_finished") {
            a.finished = event;
          } else if (kind == "worker_started" && (worker = workerEvent(event, a.host))) {
            ++a.workersStarted;
            if (observer != nullptr) {
              observer->workerStarted(*worker);
            }
          } else if (kind == "worker_ended" && (worker = workerEvent(event, a.host)) &&
                     event.value("status", nlohmann::json()).is_object()) {
            const nlohmann::json& status = event["status"];
            if (observer != nullptr) {
              observer->workerEnded(*worker, ExitStatus{status.value("signaled", false), status.value("value", 0)});
            }
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
          a.transportStatus = toExitStatus(status);
          closeFd(a.in);
        }
      }
      // Judged once the transport has ended and its output is read to the end, so the agent's last event and lines
      // are in.
      if (!a.judged && a.transportStatus && a.out < 0 && a.err < 0) {
        a.judged = true;
        if ((!a.transportStatus->success() || a.refusal) && !result.failure && !stopping) {
          result.failure = describeFailure(a, transport);
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
      // An agent that did not end: ending its transport process closes the connection, which stops the agent the
      // same way.
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
