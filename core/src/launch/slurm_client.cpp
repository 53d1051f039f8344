// SPDX-License-Identifier: Apache-2.0
#include <fathom/common/error.h>
#include <fathom/launch/command_output.h>
#include <fathom/launch/slurm_client.h>

namespace fathom::launch {
namespace {

/// Runs a SLURM command; Error naming it and quoting its own message when it fails.
CommandOutput checked(const std::vector<std::string>& argv, std::chrono::milliseconds timeout) {
  CommandOutput r = CommandOutput::run(argv, timeout);
  FATHOM_CHECK(r.ok(), Error, argv.front(), " ", argv.size() > 1 ? argv[1] : std::string(), " failed: ", r.errorLine());
  return r;
}

}  // namespace

SlurmClient::SlurmClient(SlurmClientOptions options) : m_options(std::move(options)) {}

std::vector<std::string> SlurmClient::hostnames(const std::string& nodeList) const {
  FATHOM_CHECK(!nodeList.empty(), ConfigError, "empty SLURM node list");
  // One host name a line (scontrol's machine output for this subcommand).
  std::vector<std::string> names =
      checked({m_options.scontrol, "show", "hostnames", nodeList}, m_options.timeout).lines();
  FATHOM_CHECK(!names.empty(), Error, "scontrol show hostnames ", nodeList, " printed no host");
  return names;
}

std::string SlurmClient::nodeAddress(const std::string& node) const {
  const CommandOutput r = CommandOutput::run({m_options.sinfo, "-h", "-N", "-n", node, "-o", "%o"}, m_options.timeout);
  // A node in several partitions has one line per partition, all with the same address.
  const std::vector<std::string> lines = r.ok() ? r.lines() : std::vector<std::string>();
  return lines.empty() ? node : lines.front();
}

std::string SlurmClient::submit(const std::filesystem::path& script) const {
  const CommandOutput r = checked({m_options.sbatch, "--parsable", script.string()}, m_options.timeout);
  const std::vector<std::string> lines = r.lines();
  // --parsable: "ID" or "ID;CLUSTER" (the last line: sbatch may print warnings before it).
  const std::string id = lines.empty() ? std::string() : lines.back().substr(0, lines.back().find(';'));
  FATHOM_CHECK(!id.empty() && id.find_first_not_of("0123456789_") == std::string::npos, Error,
               "sbatch --parsable printed no job id: ", r.out);
  return id;
}

std::optional<SlurmJobState> SlurmClient::queueState(const std::string& jobId) const {
  const CommandOutput r = CommandOutput::run(
      {m_options.squeue, "-h", "-t", "all", "-j", jobId, "-O", "State:|,exit_code:|"}, m_options.timeout);
  const std::vector<std::string> lines = r.ok() ? r.lines() : std::vector<std::string>();
  return lines.empty() ? std::nullopt : SlurmJobState::fromSqueue(lines.front());
}

std::optional<SlurmJobState> SlurmClient::accountingState(const std::string& jobId) const {
  // -X: the job's own record (the batch script's end), not its steps'.
  const CommandOutput r =
      CommandOutput::run({m_options.sacct, "-n", "-P", "-X", "-j", jobId, "-o", "State,ExitCode"}, m_options.timeout);
  return r.ok() ? SlurmJobState::fromSacct(r.out) : std::nullopt;
}

void SlurmClient::cancel(const std::string& jobId) const {
  checked({m_options.scancel, jobId}, m_options.timeout);
}

}  // namespace fathom::launch
