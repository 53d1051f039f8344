// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/launch/host_list.h>
#include <fathom/launch/launch_options.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace fathom::launch {

/// A multi-node launch over OpenSSH (`fathom launch --hosts h1,h2` / `--hostfile F`).
struct SshLaunchOptions {
  /// The launch as on one machine; numProcesses is the total over all hosts. numMachines and machineRank are set
  /// per host; mainProcessIp empty = the first host's address as ssh resolves it (`ssh -G`), mainProcessPort 0 =
  /// 29500 (Accelerate's default: a free port cannot be chosen on another machine). maxRestarts must be 0.
  LaunchOptions launch;
  /// The hosts, in machine-rank order: the first runs ranks 0..k-1 and the rendezvous store. Slots, when given, must
  /// be the same on every host and agree with launch.numProcesses.
  std::vector<HostSlots> hosts;
  /// `ssh -F FILE`; empty = ssh's own default (~/.ssh/config).
  std::filesystem::path sshConfig;
  /// The `fathom` executable on the hosts (the same path as here by default, set by the CLI).
  std::string remoteFathom = "fathom";
  /// ssh's ConnectTimeout: how long reaching a host may take before it counts as unreachable.
  std::chrono::seconds connectTimeout{10};
  /// The ssh client (a name is looked up in PATH).
  std::string ssh = "ssh";
  /// Where the agents run their workers (see AgentSpec::workingDirectory); empty = their login directory.
  std::string workingDirectory;
};

/// The host that brought a multi-node launch down.
struct HostFailure {
  std::string host;
  int machineRank = 0;
  /// What `fathom launch` exits with for it: the failed rank's exit code (128 + signal), or ssh's (255: the host
  /// could not be reached or refused the key; the agent died).
  int exitCode = 0;
  /// The global rank that failed on that host, when its agent reported one.
  std::optional<int> rank;
  /// One line: "rank 3 ended with exit code 7", "ssh could not reach h2 or log in (exit 255): ...".
  std::string reason;
  /// The host's last stderr lines (its workers' prefixed output, ssh's own messages), oldest first.
  std::vector<std::string> lastLines;
};

/// What a multi-node launch came to.
struct SshLaunchResult {
  /// 0; the first failure's exitCode; or 128 + the signal that stopped the launcher.
  int exitCode = 0;
  std::optional<HostFailure> failure;
  std::optional<int> interruptedBy;
  /// The rendezvous address and port the workers were given.
  std::string masterAddress;
  std::uint16_t masterPort = 0;
  /// From noticing the failure (or the signal) to the last agent gone; zero on success.
  std::chrono::milliseconds teardown{0};
};

/// Starts `fathom agent` on every host over ssh (BatchMode=yes, ConnectTimeout, ServerAliveInterval; the command
/// quoted word by word with shellQuote) and follows them. Each agent runs its host's workers as LocalLauncher does
/// and reports on its stdout (JSON lines, runAgent()); their stderr comes out here, each line prefixed "[host] ".
/// The first agent that ends non-zero, or ssh failing for a host, is the failure: the launcher then closes every
/// other agent's stdin, which makes each stop its workers (SIGTERM, SIGKILL after the grace period) and end; ssh
/// processes still running terminateGracePeriod + 5 s later are killed, which closes their connections and has the
/// same effect. SIGINT, SIGTERM and SIGHUP to the launcher do the same. A launcher killed outright closes every
/// agent's stdin by dying, so the agents stop their workers too.
///
/// run() installs handlers for SIGINT, SIGTERM, SIGHUP and ignores SIGPIPE while it runs (restored after); at most
/// one launcher (this or LocalLauncher) may run per process, and nothing else in the process may reap children.
class SshLauncher {
public:
  /// Validates the options (ConfigError naming the flag): hosts given and valid, slots consistent, the process
  /// count a multiple of the hosts, no restarts.
  explicit SshLauncher(SshLaunchOptions options);

  /// Runs the launch to completion; blocks. Throws ConfigError when ssh cannot be found, Error when it cannot be
  /// started (the agents already started are stopped first).
  SshLaunchResult run();

  const SshLaunchOptions& options() const { return m_options; }

  /// The ssh command line (argv) that starts `host`'s agent with `agentSpecJson`.
  std::vector<std::string> sshCommand(const std::string& host, const std::string& agentSpecJson) const;

  /// The address `host` has for ssh (`ssh -G`'s hostname), or `host` itself when ssh cannot say.
  std::string resolveAddress(const std::string& host) const;

private:
  SshLaunchOptions m_options;
};

}  // namespace fathom::launch
