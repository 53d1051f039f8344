// SPDX-License-Identifier: Apache-2.0
#include <fathom/common/error.h>
#include <fathom/launch/local_launcher.h>
#include <fathom/launch/remote_agent.h>

#include <nlohmann/json.hpp>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <thread>

#include <poll.h>
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

}  // namespace

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
                           {"machine_rank", launcher.options().machineRank}}
                .dump()
         << std::endl;
  LaunchResult result;
  {
    const StopWatcher watcher(stopFd);
    result = launcher.run();
  }
  nlohmann::json finished{{"event", "agent_finished"}, {"exit_code", result.exitCode}};
  finished["rank"] = result.failure ? nlohmann::json(result.failure->rank) : nlohmann::json(nullptr);
  finished["local_rank"] = result.failure ? nlohmann::json(result.failure->localRank) : nlohmann::json(nullptr);
  finished["status"] = result.failure ? nlohmann::json(result.failure->status.describe()) : nlohmann::json(nullptr);
  finished["interrupted_by"] = orNull(result.interruptedBy);
  events << finished.dump() << std::endl;
  return result.exitCode;
}

}  // namespace fathom::launch
