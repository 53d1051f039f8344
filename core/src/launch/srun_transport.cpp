// SPDX-License-Identifier: Apache-2.0
#include <fathom/common/error.h>
#include <fathom/launch/srun_transport.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace fathom::launch {

SrunTransport::SrunTransport(SrunTransportOptions options)
    : m_options(std::move(options)), m_client(m_options.client) {}

void SrunTransport::prepare() {
  const char* path = std::getenv("PATH");
  try {
    m_options.srun = WorkerProcess::resolveProgram(m_options.srun, path != nullptr ? path : "");
  } catch (const ConfigError& e) {
    throw ConfigError(std::string("--slurm needs SLURM's srun (Debian: slurm-client): ") + e.what());
  }
}

std::vector<std::string> SrunTransport::command(const AgentRequest& request) const {
  FATHOM_ASSERT(!request.agentArgv.empty(), "no agent command for ", request.host);
  std::vector<std::string> argv{m_options.srun,
                                "--nodes=1",
                                "--ntasks=1",
                                "--nodelist=" + request.host,
                                "--whole",
                                "--overlap",
                                "--kill-on-bad-exit=1",
                                "--unbuffered",
                                "--mpi=none",
                                "--cpu-bind=none",
                                "--job-name=fathom-agent",
                                "--"};
  argv.insert(argv.end(), request.agentArgv.begin(), request.agentArgv.end());
  return argv;
}

std::string SrunTransport::resolveAddress(const std::string& host) const {
  return m_client.nodeAddress(host);
}

std::string SrunTransport::describeUnreached(const std::string& host, const ExitStatus& status,
                                             const std::string& lastLines) const {
  const std::string why =
      !status.signaled && status.value == 2
          ? "the agent could not be executed there (is `fathom` at --remote_fathom's path on every node?)"
          : "srun could not start a step there (" + status.describe() + ")";
  return "srun could not run `fathom agent` on node " + host + ": " + why +
         (lastLines.empty() ? std::string() : ": " + lastLines);
}

std::string SrunTransport::addressTowards(const std::string& node) const {
  const std::string peer = resolveAddress(node);
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* found = nullptr;
  const int resolved = ::getaddrinfo(peer.c_str(), "9", &hints, &found);
  FATHOM_CHECK(resolved == 0 && found != nullptr, ConfigError, "--slurm: node ", node, "'s address ", peer,
               " does not resolve to IPv4 (", ::gai_strerror(resolved), "); give --same_network ADDRESS");
  sockaddr_in local{};
  socklen_t length = sizeof(local);
  const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  const bool ok = fd >= 0 && ::connect(fd, found->ai_addr, found->ai_addrlen) == 0 &&
                  ::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &length) == 0;
  const int error = errno;
  if (fd >= 0) {
    ::close(fd);
  }
  ::freeaddrinfo(found);
  FATHOM_CHECK(ok, ConfigError, "--slurm: no route from this machine to node ", node, " (", peer,
               "): ", std::strerror(error), "; give --same_network ADDRESS");
  char text[INET_ADDRSTRLEN] = {};
  ::inet_ntop(AF_INET, &local.sin_addr, text, sizeof(text));
  return text;
}

}  // namespace fathom::launch
