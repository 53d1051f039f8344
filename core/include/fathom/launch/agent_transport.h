// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/launch/worker_process.h>

#include <cstdint>
#include <string>
#include <vector>

namespace fathom::launch {

/// One host's agent, as MultiNodeLauncher asks a transport to start it.
struct AgentRequest {
  std::string host;     ///< as the user named it (an ssh alias, a SLURM node name)
  int machineRank = 0;  ///< its index in the launch
  /// The words to run on the host: `FATHOM agent --spec JSON`. Each must arrive there as one argument, unchanged.
  std::vector<std::string> agentArgv;
  /// The launcher's telemetry collector, listening on 127.0.0.1 (0: the run has none).
  std::uint16_t collectorPort = 0;
  /// What tunnelEndpoint() answered for this host (the endpoint the host's workers were told); empty: no tunnel.
  std::string tunnelEndpoint;
};

/// How a multi-node launch reaches its hosts: OpenSSH (SshTransport) or SLURM's srun (SrunTransport). The launcher
/// spawns command()'s argv once per host, writes nothing to its stdin and closes it to stop the agent; the agent's
/// stdout (JSON event lines) and stderr must come back through the spawned process, and its end must follow the
/// agent's end (and the reverse: ending the spawned process must end the agent, which then stops its workers).
class AgentTransport {
public:
  virtual ~AgentTransport() = default;

  /// "ssh", "srun": used in messages.
  virtual std::string name() const = 0;

  /// Called once by the launcher before anything starts: finds the transport's programs (ConfigError naming what
  /// is missing). After it, command() and resolveAddress() may be called.
  virtual void prepare() = 0;

  /// The argv (argv[0] a path) that runs request.agentArgv on request.host. No local shell may interpret it.
  virtual std::vector<std::string> command(const AgentRequest& request) const = 0;

  /// The address the other hosts reach `host` at (the rendezvous address when it is the first host).
  virtual std::string resolveAddress(const std::string& host) const = 0;

  /// One line saying why the agent on `host` never reported that it started, given how the transport's process
  /// ended and its last output lines (e.g. ssh's exit 255: unreachable or the key refused).
  virtual std::string describeUnreached(const std::string& host, const ExitStatus& status,
                                        const std::string& lastLines) const = 0;

  /// The telemetry endpoint the workers on `host` should use when the transport carries the launcher's collector
  /// port to the host itself (ssh -R to a Unix socket), e.g. "unix:/tmp/fathom-…sock"; empty (the default): it
  /// does not, and the workers connect to the collector directly over TCP.
  virtual std::string tunnelEndpoint(const std::string& host, int machineRank, const std::string& runKey) const {
    (void)host;
    (void)machineRank;
    (void)runKey;
    return {};
  }
};

}  // namespace fathom::launch
