// SPDX-License-Identifier: Apache-2.0
#include <fathom/common/error.h>
#include <fathom/launch/srun_transport.h>

#include <cstdlib>

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

}  // namespace fathom::launch
