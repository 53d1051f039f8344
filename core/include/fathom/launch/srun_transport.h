// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/launch/agent_transport.h>
#include <fathom/launch/slurm_client.h>

#include <string>

namespace fathom::launch {

struct SrunTransportOptions {
  /// srun (a name is looked up in PATH by prepare()).
  std::string srun = "srun";
  /// The client commands resolveAddress() asks (sinfo).
  SlurmClientOptions client;
};

/// Reaches the nodes of the allocation the launcher runs in through SLURM's srun: one job step per node,
///   srun --nodes=1 --ntasks=1 --nodelist=NODE --whole --overlap --kill-on-bad-exit=1 --unbuffered --mpi=none
///        --cpu-bind=none --job-name=fathom-agent -- FATHOM agent --spec JSON
/// Why each flag: one task on exactly that node; --whole gives the step everything the job holds on the node (its
/// CPUs, memory and GPUs: the agent's workers share them, and with task/cgroup a step would otherwise be confined
/// to one CPU); --overlap lets it share them with the step the launcher itself may run in (`srun fathom launch`, the
/// batch step); --unbuffered passes the agent's event lines on as they come; no MPI or CPU binding, which the
/// workers would inherit. srun forwards its stdin to the task (srun's default, --input=all, for one task), so the
/// launcher closing it is end of file for the agent; srun ends when the agent ends, with its exit code; and srun
/// killed, even with SIGKILL, ends the step: slurmstepd kills the agent and, with proctrack, all it started.
/// argv words go to srun as they are, no shell in between, so nothing needs quoting.
class SrunTransport : public AgentTransport {
public:
  explicit SrunTransport(SrunTransportOptions options = {});

  std::string name() const override { return "srun"; }
  /// Finds srun in PATH (ConfigError naming it and the package, slurm-client, when it is missing).
  void prepare() override;
  std::vector<std::string> command(const AgentRequest& request) const override;
  /// The node's NodeAddr as SLURM knows it (sinfo), else the node name.
  std::string resolveAddress(const std::string& host) const override;
  /// srun's failures: it could not create the step (exit 1, "srun: error: ..."), or the agent could not be
  /// executed on the node (exit 2, slurmstepd's execve error), with srun's last lines.
  std::string describeUnreached(const std::string& host, const ExitStatus& status,
                                const std::string& lastLines) const override;

  /// This machine's IPv4 address as `node` reaches it: the source address of the route to the node's address
  /// (a UDP socket connected to it; nothing is sent). srun carries no tunnel, so the workers send their telemetry
  /// to the launcher there over TCP. Not the host name's address, which Debian maps to 127.0.1.1. Throws
  /// ConfigError when the node's address does not resolve to IPv4 or no route leads there.
  std::string addressTowards(const std::string& node) const;

private:
  SrunTransportOptions m_options;
  SlurmClient m_client;
};

}  // namespace fathom::launch
