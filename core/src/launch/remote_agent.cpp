// SPDX-License-Identifier: Apache-2.0
#include <fathom/common/build_info.h>
#include <fathom/common/error.h>
#include <fathom/launch/local_launcher.h>
#include <fathom/launch/remote_agent.h>

#include <nlohmann/json.hpp>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <thread>

#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fathom::launch {
namespace {

/// Watches `fd` until it reads end of file (or fails), then asks the launcher's run() to stop: at once when run()
/// is in progress, else as soon as it starts (requestStop() is false before that), until `done`.
class StopWatcher {
public:
  explicit StopWatcher(int fd) : m_thread([this, fd] { watch(fd); }) {}
  ~StopWatcher() {
    m_done = true;
    m_thread.join();
  }
  StopWatcher(const StopWatcher&) = delete;
  StopWatcher& operator=(const StopWatcher&) = delete;

  bool closed() const { return m_closed; }

private:
  void watch(int fd) {
    char buffer[256];
    while (!m_done && !m_closed) {
      pollfd p{fd, POLLIN, 0};
      const int ready = ::poll(&p, 1, 100);
      if (ready < 0 && errno != EINTR) {
        m_closed = true;
      } else if (ready > 0) {
        const ssize_t n = ::read(fd, buffer, sizeof(buffer));  // anything the launcher sends is ignored
        if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
          m_closed = true;
        }
      }
    }
    while (m_closed && !m_done && !LocalLauncher::requestStop()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  std::atomic<bool> m_done{false};
  std::atomic<bool> m_closed{false};
  std::thread m_thread;
};

nlohmann::json orNull(const std::optional<int>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json workerJson(const char* event, const WorkerEvent& worker) {
  return {{"event", event},
          {"rank", worker.rank},
          {"local_rank", worker.localRank},
          {"attempt", worker.attempt},
          {"pid", worker.pid}};
}

/// Tells the launcher of every worker this agent starts and reaps (worker_started, worker_ended), so the launcher's
/// workspace records each rank with its host, pid and exit code as a local launch does.
class EventObserver final : public LaunchObserver {
public:
  explicit EventObserver(std::ostream& events) : m_events(events) {}

  void workerStarted(const WorkerEvent& worker) override {
    m_events << workerJson("worker_started", worker).dump() << std::endl;
  }
  void workerEnded(const WorkerEvent& worker, const ExitStatus& status) override {
    nlohmann::json j = workerJson("worker_ended", worker);
    j["status"] = {{"signaled", status.signaled}, {"value", status.value}};
    m_events << j.dump() << std::endl;
  }

private:
  std::ostream& m_events;
};

/// An agent_refused event: the agent will not start this spec's workers.
int refuse(std::ostream& events, const char* reason, const std::string& message, nlohmann::json details = {}) {
  nlohmann::json j{{"event", "agent_refused"}, {"reason", reason}, {"message", message}};
  for (auto& [key, value] : details.items()) {
    j[key] = value;
  }
  events << j.dump() << std::endl;
  return kAgentRefused;
}

/// Whether a listening socket can take `port` on every address of this host, as rank 0's rendezvous store will.
/// Error text (strerror) when it cannot; nothing when it can.
std::optional<std::string> portUnavailable(std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    return std::string(std::strerror(errno));
  }
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_ANY);
  addr.sin_port = htons(port);
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));  // as the store: TIME_WAIT leftovers do not count
  const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 && ::listen(fd, 1) == 0;
  const int error = errno;
  ::close(fd);
  return ok ? std::nullopt : std::optional<std::string>(std::strerror(error));
}

/// How long an agent waits for its telemetry tunnel: sshd sets up the forwarding within milliseconds of the session.
constexpr std::chrono::seconds kTunnelWait{10};

/// Whether a socket file exists at `path` within `timeout` (polled every 10 ms).
bool waitForSocket(const std::string& path, std::chrono::seconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode)) {
      return true;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

/// How long an agent tries to reach the rendezvous address before it refuses: a SYN that gets no answer (a
/// firewall dropping it) otherwise leaves the workers waiting for the whole --rdzv_timeout.
constexpr std::chrono::seconds kReachWait{10};

/// Whether this host reaches `address`:`port`, where rank 0's store will listen: the address resolves and a TCP
/// connection is accepted or refused (a refusal is an answer from that host: the store just does not listen yet).
/// Error text when it does not (resolution failed, no route, no answer within `timeout`); nothing when it does.
std::optional<std::string> rendezvousUnreachable(const std::string& address, std::uint16_t port,
                                                 std::chrono::seconds timeout) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  if (const int rc = ::getaddrinfo(address.c_str(), service.c_str(), &hints, &found); rc != 0) {
    return "it does not resolve (" + std::string(::gai_strerror(rc)) + ")";
  }
  std::string error = "no address";
  for (const addrinfo* a = found; a != nullptr; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
    if (fd < 0) {
      error = std::strerror(errno);
      continue;
    }
    int result = ::connect(fd, a->ai_addr, a->ai_addrlen) == 0 ? 0 : errno;
    if (result == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      const int ready = ::poll(&p, 1, static_cast<int>(timeout.count() * 1000));
      socklen_t size = sizeof(result);
      if (ready == 1) {
        ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &result, &size);
      } else {
        result = ETIMEDOUT;
      }
    }
    ::close(fd);
    if (result == 0 || result == ECONNREFUSED) {
      ::freeaddrinfo(found);
      return std::nullopt;
    }
    error = result == ETIMEDOUT ? "no answer within " + std::to_string(timeout.count()) + " s"
                                : std::string(std::strerror(result));
  }
  ::freeaddrinfo(found);
  return error;
}

}  // namespace

int runAgentFromJson(std::string_view specJson, std::ostream& events, int stopFd) {
  const std::string& mine = buildInfo().version;
  const std::optional<std::string> theirs = agentSpecVersion(specJson);
  if (!theirs || *theirs != mine) {
    const std::string launcher = theirs ? *theirs : std::string("a version older than the handshake");
    return refuse(events, "version",
                  "this host runs Fathom " + mine + ", the launcher runs " + launcher +
                      ": install the same version on every host (or give --remote_fathom the path of one)",
                  {{"agent_version", mine}, {"launcher_version", theirs ? nlohmann::json(*theirs) : nullptr}});
  }
  const AgentSpec spec = agentSpecFromJson(specJson);
  if (spec.options.machineRank == 0) {
    if (const auto error = portUnavailable(spec.options.mainProcessPort)) {
      if (!spec.tunnelSocket.empty() && waitForSocket(spec.tunnelSocket, std::chrono::seconds(2))) {
        ::unlink(spec.tunnelSocket.c_str());  // no worker will use it
      }
      return refuse(events, "port",
                    "port " + std::to_string(spec.options.mainProcessPort) +
                        " (the rendezvous of rank 0) cannot be used on this host: " + *error +
                        "; choose another with --main_process_port",
                    {{"port", spec.options.mainProcessPort}});
    }
  }
  // Every host's workers connect to rank 0's store: a host that cannot reach it is refused now, named, rather than
  // found by --rdzv_timeout. Machine rank 0 checks too (its workers connect to the same address).
  if (const auto error = rendezvousUnreachable(spec.options.mainProcessIp, spec.options.mainProcessPort, kReachWait)) {
    if (!spec.tunnelSocket.empty() && waitForSocket(spec.tunnelSocket, std::chrono::seconds(2))) {
      ::unlink(spec.tunnelSocket.c_str());  // no worker will use it
    }
    return refuse(events, "rendezvous",
                  "this host cannot reach the rendezvous at " + spec.options.mainProcessIp + ":" +
                      std::to_string(spec.options.mainProcessPort) + ": " + *error +
                      "; give --main_process_ip an address of the first host that every host reaches",
                  {{"address", spec.options.mainProcessIp}, {"port", spec.options.mainProcessPort}});
  }
  if (!spec.tunnelSocket.empty() && !waitForSocket(spec.tunnelSocket, kTunnelWait)) {
    return refuse(events, "tunnel",
                  "the telemetry tunnel " + spec.tunnelSocket + " did not appear within " +
                      std::to_string(kTunnelWait.count()) +
                      " s (does the host's sshd allow it? AllowStreamLocalForwarding, DisableForwarding)",
                  {{"socket", spec.tunnelSocket}});
  }
  return runAgent(spec, events, stopFd);
}

int runAgent(const AgentSpec& spec, std::ostream& events, int stopFd) {
  for (const auto& [name, value] : spec.environment) {
    ::setenv(name.c_str(), value.c_str(), 1);
  }
  if (!spec.workingDirectory.empty()) {
    FATHOM_CHECK(::chdir(spec.workingDirectory.c_str()) == 0, ConfigError, "working directory ", spec.workingDirectory,
                 " cannot be entered on this host: ", std::strerror(errno));
  }
  LaunchOptions options = spec.options;
  options.workerStdoutToStderr = true;  // stdout is the launcher's event channel
  options.maxRestarts = 0;
  LocalLauncher launcher(std::move(options));
  events << nlohmann::json{{"event", "agent_started"},
                           {"pid", ::getpid()},
                           {"machine_rank", launcher.options().machineRank},
                           {"version", buildInfo().version}}
                .dump()
         << std::endl;
  LaunchResult result;
  {
    const StopWatcher watcher(stopFd);
    EventObserver observer(events);
    result = launcher.run(&observer);
  }
  nlohmann::json finished{{"event", "agent_finished"}, {"exit_code", result.exitCode}};
  finished["rank"] = result.failure ? nlohmann::json(result.failure->rank) : nlohmann::json(nullptr);
  finished["local_rank"] = result.failure ? nlohmann::json(result.failure->localRank) : nlohmann::json(nullptr);
  finished["status"] = result.failure ? nlohmann::json(result.failure->status.describe()) : nlohmann::json(nullptr);
  finished["interrupted_by"] = orNull(result.interruptedBy);
  if (!spec.tunnelSocket.empty()) {
    ::unlink(spec.tunnelSocket.c_str());  // sshd leaves it behind (StreamLocalBindUnlink only helps the next bind)
  }
  events << finished.dump() << std::endl;
  return result.exitCode;
}

}  // namespace fathom::launch
