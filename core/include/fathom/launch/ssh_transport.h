// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/launch/agent_transport.h>

#include <chrono>
#include <filesystem>
#include <string>

namespace fathom::launch {

struct SshTransportOptions {
  /// `ssh -F FILE`; empty = ssh's own default (~/.ssh/config).
  std::filesystem::path sshConfig;
  /// ssh's ConnectTimeout: how long reaching a host may take before it counts as unreachable.
  std::chrono::seconds connectTimeout{10};
  /// The ssh client (a name is looked up in PATH by prepare()).
  std::string ssh = "ssh";
};

/// Reaches hosts with OpenSSH (`fathom launch --hosts`): `ssh -F … -o BatchMode=yes -o ConnectTimeout=S
/// -o ServerAliveInterval=5 -o ServerAliveCountMax=2 -T -x -- HOST 'exec' 'FATHOM' 'agent' …`, every word
/// single-quoted (shellQuote) for the remote login shell. With a telemetry tunnel, `-R SOCKET:127.0.0.1:PORT` (with
/// ExitOnForwardFailure and StreamLocalBindUnlink) makes the launcher's collector a Unix socket on the host, private
/// to the user (sshd's StreamLocalBindMask 0177). ssh ends with the agent and the agent ends with ssh: a closed
/// connection is end of file on its stdin, and ServerAliveInterval notices a dead peer within 15 s.
class SshTransport final : public AgentTransport {
public:
  /// ConfigError for a ConnectTimeout under 1 s.
  explicit SshTransport(SshTransportOptions options = {});

  std::string name() const override { return "ssh"; }
  void prepare() override;
  std::vector<std::string> command(const AgentRequest& request) const override;
  /// `ssh -G`'s hostname for `host` (aliases of the ssh configuration resolved), or `host` without `user@`.
  std::string resolveAddress(const std::string& host) const override;
  std::string describeUnreached(const std::string& host, const ExitStatus& status,
                                const std::string& lastLines) const override;
  /// "unix:/tmp/fathom-telemetry-<runKey>-<machine rank>.sock".
  std::string tunnelEndpoint(const std::string& host, int machineRank, const std::string& runKey) const override;

  const SshTransportOptions& options() const { return m_options; }

private:
  std::vector<std::string> baseCommand() const;

  SshTransportOptions m_options;
};

}  // namespace fathom::launch
