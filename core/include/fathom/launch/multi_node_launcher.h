// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/launch/agent_transport.h>
#include <fathom/launch/host_list.h>
#include <fathom/launch/launch_observer.h>
#include <fathom/launch/launch_options.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fathom::launch {

/// A launch over several hosts, one `fathom agent` each (`fathom launch --hosts` over ssh, `--slurm` over srun).
struct MultiNodeOptions {
  /// The launch as on one machine; numProcesses is the total over all hosts. numMachines and machineRank are set
  /// per host; mainProcessIp empty = the first host's address as the transport resolves it, mainProcessPort 0 =
  /// 29500 (Accelerate's default: a free port cannot be chosen on another machine). maxRestarts must be 0.
  LaunchOptions launch;
  /// The hosts, in machine-rank order: the first runs ranks 0..k-1 and the rendezvous store. Slots, when given, must
  /// be the same on every host and agree with launch.numProcesses.
  std::vector<HostSlots> hosts;
  /// The `fathom` executable on the hosts (the same path as here by default, set by the CLI).
  std::string remoteFathom = "fathom";
  /// Where the agents run their workers (see AgentSpec::workingDirectory); empty = their login directory.
  std::string workingDirectory;
  /// How the hosts' workers reach the launcher's telemetry collector (when the observer has one): empty = through
  /// the transport (ssh: a Unix socket forwarded over the connection); an address = directly over TCP at
  /// ADDRESS:PORT (`--same_network`; the collector must listen there).
  std::string telemetryAddress;
  /// Every host must have its agent running and all its workers started within this time of the launch, else the
  /// launch fails naming the hosts and ranks that never joined (`--rdzv_timeout`; torchrun's join timeout, 600 s).
  std::chrono::seconds rendezvousTimeout{600};
  /// Where the "flag" words of messages come from ("--hosts / --hostfile", "--slurm").
  std::string hostsFlag = "--hosts / --hostfile";
};

/// The host that brought a multi-node launch down.
struct HostFailure {
  std::string host;
  int machineRank = 0;
  /// What `fathom launch` exits with for it: the failed rank's exit code (128 + signal), the transport's (ssh's
  /// 255: the host could not be reached or refused the key; the agent died), kAgentRefused (3: another Fathom
  /// version, the rendezvous port taken) or kRendezvousTimedOut (124: the host never joined).
  int exitCode = 0;
  /// The global rank that failed on that host, when its agent reported one.
  std::optional<int> rank;
  /// One line: "rank 3 ended with exit code 7", "ssh could not reach h2 or log in (exit 255): ...".
  std::string reason;
  /// The host's last stderr lines (its workers' prefixed output, the transport's own messages), oldest first.
  std::vector<std::string> lastLines;
};

/// The exit code of a launch whose hosts did not all join within MultiNodeOptions::rendezvousTimeout.
constexpr int kRendezvousTimedOut = 124;

/// What a multi-node launch came to.
struct MultiNodeResult {
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

/// Starts `fathom agent` on every host through an AgentTransport and follows them. Each agent runs its host's
/// workers as LocalLauncher does and reports on its stdout (JSON lines, runAgent()); their stderr comes out here,
/// each line prefixed "[host] ". The first agent that ends non-zero, or the transport failing for a host, is the
/// failure: the launcher then closes every other agent's stdin, which makes each stop its workers (SIGTERM, SIGKILL
/// after the grace period) and end; transport processes still running terminateGracePeriod + 5 s later are killed,
/// which closes their connections and has the same effect. SIGINT, SIGTERM and SIGHUP to the launcher do the same.
/// A launcher killed outright closes every agent's stdin by dying, so the agents stop their workers too.
///
/// run() installs handlers for SIGINT, SIGTERM, SIGHUP and ignores SIGPIPE while it runs (restored after); at most
/// one launcher (this or LocalLauncher) may run per process, and nothing else in the process may reap children.
class MultiNodeLauncher {
public:
  /// Validates the options (ConfigError naming the flag): hosts given and valid, slots consistent, the process
  /// count a multiple of the hosts, no restarts.
  MultiNodeLauncher(MultiNodeOptions options, std::unique_ptr<AgentTransport> transport);

  /// Runs the launch to completion; blocks. `observer` (may be null) hears of every worker on every host (with its
  /// host) and gives the workers its environment, the telemetry endpoint rewritten per host (telemetryAddress or
  /// the transport's tunnel). Throws ConfigError when the transport cannot start (its program missing), Error when a
  /// process cannot be started (the agents already started are stopped first).
  MultiNodeResult run(LaunchObserver* observer = nullptr);

  /// Asks the running run() to stop every host as SIGTERM would (async-signal-safe; any thread). False when no
  /// run() is in progress.
  static bool requestStop();

  const MultiNodeOptions& options() const { return m_options; }
  const AgentTransport& transport() const { return *m_transport; }

private:
  MultiNodeOptions m_options;
  std::unique_ptr<AgentTransport> m_transport;
};

}  // namespace fathom::launch
