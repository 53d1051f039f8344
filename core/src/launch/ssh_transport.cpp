// SPDX-License-Identifier: Apache-2.0
#include <fathom/common/error.h>
#include <fathom/launch/command_output.h>
#include <fathom/launch/shell_quote.h>
#include <fathom/launch/ssh_transport.h>

#include <cstdlib>

namespace fathom::launch {

namespace {
constexpr int kUnreachable = 255;  // ssh's exit code when it cannot connect or log in (ssh(1), EXIT STATUS)
constexpr const char* kUnixPrefix = "unix:";
}  // namespace

SshTransport::SshTransport(SshTransportOptions options) : m_options(std::move(options)) {
  FATHOM_CHECK(m_options.connectTimeout.count() >= 1, ConfigError, "--ssh_connect_timeout must be >= 1 second, got ",
               m_options.connectTimeout.count());
}

void SshTransport::prepare() {
  const char* path = std::getenv("PATH");
  m_options.ssh = WorkerProcess::resolveProgram(m_options.ssh, path ? path : "");  // command() execs it as is
}

std::vector<std::string> SshTransport::baseCommand() const {
  std::vector<std::string> argv{m_options.ssh};
  if (!m_options.sshConfig.empty()) {
    argv.insert(argv.end(), {"-F", m_options.sshConfig.string()});
  }
  return argv;
}

std::vector<std::string> SshTransport::command(const AgentRequest& request) const {
  std::vector<std::string> argv = baseCommand();
  argv.insert(argv.end(),
              {"-o", "BatchMode=yes", "-o", "ConnectTimeout=" + std::to_string(m_options.connectTimeout.count()), "-o",
               "ServerAliveInterval=5", "-o", "ServerAliveCountMax=2", "-T", "-x"});
  if (!request.tunnelEndpoint.empty() && request.collectorPort != 0) {
    FATHOM_CHECK(request.tunnelEndpoint.rfind(kUnixPrefix, 0) == 0, Error, "ssh tunnels to a Unix socket, not ",
                 request.tunnelEndpoint);
    const std::string socket = request.tunnelEndpoint.substr(std::string(kUnixPrefix).size());
    argv.insert(argv.end(), {"-o", "ExitOnForwardFailure=yes", "-o", "StreamLocalBindUnlink=yes", "-R",
                             socket + ":127.0.0.1:" + std::to_string(request.collectorPort)});
  }
  argv.insert(argv.end(), {"--", request.host, "exec " + shellCommand(request.agentArgv)});
  return argv;
}

std::string SshTransport::resolveAddress(const std::string& host) const {
  std::vector<std::string> argv = baseCommand();
  argv.insert(argv.end(), {"-G", "--", host});
  // `ssh -G` prints the configuration it would use, one "keyword value" a line (ssh_config(5) keywords, lower-case).
  const CommandOutput resolved = CommandOutput::run(argv, std::chrono::seconds(10));
  for (const std::string& line : resolved.ok() ? resolved.lines() : std::vector<std::string>{}) {
    if (line.rfind("hostname ", 0) == 0) {
      return line.substr(9);
    }
  }
  const auto at = host.find('@');
  return at == std::string::npos ? host : host.substr(at + 1);
}

std::string SshTransport::describeUnreached(const std::string& host, const ExitStatus& status,
                                            const std::string& lastLines) const {
  if (status.shellCode() == kUnreachable) {
    return "ssh could not reach " + host + " or log in (ssh exit 255, ConnectTimeout " +
           std::to_string(m_options.connectTimeout.count()) + " s): " + lastLines;
  }
  return "`fathom agent` could not run on " + host + " (" + status.describe() + "; see --remote_fathom): " + lastLines;
}

std::string SshTransport::tunnelEndpoint(const std::string& /*host*/, int machineRank,
                                         const std::string& runKey) const {
  // /tmp, not $XDG_RUNTIME_DIR: sshd binds it before anything of ours runs on the host. The run key (random) and
  // the machine rank keep runs, and hosts that share a file system (two loopback hosts), apart.
  return std::string(kUnixPrefix) + "/tmp/fathom-telemetry-" + runKey + "-" + std::to_string(machineRank) + ".sock";
}

}  // namespace fathom::launch
