// SPDX-License-Identifier: Apache-2.0
#include "slurm_launch.h"
#include "slurm_job_follower.h"

#include <fathom/common/error.h>
#include <fathom/launch/host_list.h>
#include <fathom/launch/launch_config.h>
#include <fathom/launch/slurm_allocation.h>
#include <fathom/launch/slurm_batch_script.h>
#include <fathom/launch/srun_transport.h>
#include <fathom/store/process_identity.h>
#include <fathom/telemetry/launch_events.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <set>

namespace fathom::cli {
namespace {

const char* const kGroup = "Multi-node under SLURM";

/// The flags that shape the job (sbatch's business); the job's own `fathom launch --slurm` gets every other flag.
const std::set<std::string, std::less<>> kSubmissionFlags{
    "nodes", "gpus_per_node", "cpus_per_node", "partition", "time", "account", "job_name", "dry_run", "detach"};
const std::set<std::string, std::less<>> kSubmissionSwitches{"dry_run", "detach"};  // take no value

/// "--gpus-per-node=2" -> "gpus_per_node".
std::string flagName(const std::string& word) {
  std::string name = word.substr(2, word.find('=') == std::string::npos ? std::string::npos : word.find('=') - 2);
  for (char& c : name) {
    c = c == '-' ? '_' : c;
  }
  return name;
}

/// ./fathom-slurm/NAME-YYYYmmdd-HHMMSS, absolute.
std::filesystem::path defaultRunDirectory(const std::string& jobName) {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  ::localtime_r(&now, &local);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &local);
  return std::filesystem::current_path() / "fathom-slurm" / (jobName + "-" + stamp);
}

}  // namespace

void SlurmLaunchFlags::addTo(CLI::App& cmd) {
  m_cmd = &cmd;
  cmd.add_flag("--slurm", m_slurm,
               "Run under SLURM: inside an allocation (salloc, sbatch), one `fathom agent` per node through srun; "
               "with --nodes, submit a job with sbatch that does so")
      ->group(kGroup);
  cmd.add_option("--nodes", m_nodes, "--slurm: submit a job of N nodes (sbatch) instead of using this allocation")
      ->group(kGroup);
  cmd.add_option("--gpus_per_node,--gpus-per-node", m_gpusPerNode, "--slurm --nodes: GPUs to ask for on each node")
      ->group(kGroup);
  cmd.add_option("--cpus_per_node,--cpus-per-node", m_cpusPerNode,
                 "--slurm --nodes: CPUs to ask for on each node (default: the cluster's)")
      ->group(kGroup);
  cmd.add_option("--partition", m_partition, "--slurm --nodes: the partition (default: the cluster's)")->group(kGroup);
  cmd.add_option("--time", m_time, "--slurm --nodes: the time limit, as sbatch takes it (HH:MM:SS, D-HH:MM, ...)")
      ->group(kGroup);
  cmd.add_option("--account", m_account, "--slurm --nodes: the account to charge")->group(kGroup);
  cmd.add_option("--job_name,--job-name", m_jobName, "--slurm --nodes: the job's name (default fathom)")->group(kGroup);
  cmd.add_flag("--dry_run,--dry-run", m_dryRun,
               "--slurm --nodes: print the sbatch script and submit nothing. Otherwise the script is kept in the run "
               "folder: --log_dir when given, else ./fathom-slurm/JOBNAME-TIMESTAMP/, with the job's output "
               "(slurm-JOBID.out)")
      ->group(kGroup);
  cmd.add_flag("--detach", m_detach,
               "--slurm --nodes: print the job id and return once submitted, instead of following the job to its "
               "end (its output streamed, its exit code returned; Ctrl-C cancels it)")
      ->group(kGroup);
}

bool SlurmLaunchFlags::given(const config::RunSpec& spec) const {
  return (m_cmd != nullptr && m_cmd->count("--slurm") > 0) || spec.fathom.launcher == config::Launcher::Slurm;
}

bool SlurmLaunchFlags::submits(const config::RunSpec& spec) const {
  if (!given(spec)) {
    return false;
  }
  const char* job = std::getenv("SLURM_JOB_ID");
  const bool inAllocation = job != nullptr && *job != '\0';
  return m_cmd->count("--nodes") > 0 || (spec.fathom.launcher == config::Launcher::Slurm && !inAllocation);
}

void SlurmLaunchFlags::checkUsage(const config::RunSpec& spec, bool sshGiven) const {
  for (const std::string& name : kSubmissionFlags) {
    const std::string flag = "--" + name;
    FATHOM_CHECK(m_cmd->count(flag) == 0 || given(spec), ConfigError, flag,
                 " needs --slurm (or fathom.launcher: slurm in the configuration)");
    FATHOM_CHECK(m_cmd->count(flag) == 0 || name == "nodes" || submits(spec), ConfigError, flag,
                 " is for submitting a job (--slurm --nodes N); inside an allocation the allocation decides");
  }
  if (given(spec)) {
    FATHOM_CHECK(!sshGiven, ConfigError, "give --slurm or --hosts / --hostfile, not both");
  }
}

launch::MultiNodeLauncher SlurmLaunchFlags::makeLauncher(launch::LaunchOptions options, const config::RunSpec& spec,
                                                         const MultiNodeFlags& multiNode, std::string& jobId) const {
  launch::MultiNodeOptions o;
  // srun runs the agent on every node from the same path (a shared file system or identical installs), from this
  // working directory; --same_network, --rdzv_timeout and --remote_fathom apply as over ssh (checked first).
  multiNode.applyTo(o);
  const launch::SlurmClient client;
  const launch::SlurmAllocation allocation = launch::SlurmAllocation::current(client);
  jobId = allocation.jobId;
  const int nodes = static_cast<int>(allocation.nodes.size());
  FATHOM_CHECK(options.numProcesses % nodes == 0, ConfigError, "--num_processes ", options.numProcesses,
               " does not divide evenly over the ", nodes, " nodes of allocation ", allocation.jobId,
               ": give a multiple of ", nodes);
  launch::setMultiNodeTopology(options, spec, nodes);
  o.launch = std::move(options);
  for (const std::string& node : allocation.nodes) {
    o.hosts.push_back({node, 0});
  }
  o.hostsFlag = "--slurm";
  // srun carries no tunnel: the workers connect to this process's collector over TCP (with the run's token), at
  // --same_network's address, else this machine's address on the route to the first node.
  auto transport = std::make_unique<launch::SrunTransport>();
  if (o.telemetryAddress.empty()) {
    o.telemetryAddress = transport->addressTowards(allocation.nodes.front());
  }
  return launch::MultiNodeLauncher(std::move(o), std::move(transport));
}

std::vector<std::string> SlurmLaunchFlags::jobCommand(const launch::LaunchOptions& options) const {
  // This process's own words: `fathom launch FLAGS... PROGRAM ARGS...`; PROGRAM ARGS are options.command.
  const std::vector<std::string> argv = store::currentArguments();
  std::size_t first = 0;
  while (first < argv.size() && argv[first] != "launch") {
    ++first;
  }
  FATHOM_ASSERT(first < argv.size() && argv.size() >= first + 1 + options.command.size(), "unexpected command line");
  const std::size_t program = argv.size() - options.command.size();
  std::vector<std::string> command{MultiNodeFlags::thisFathom(), "launch"};
  for (std::size_t i = first + 1; i < program; ++i) {
    const std::string& word = argv[i];
    if (word.rfind("--", 0) == 0 && word.size() > 2 && kSubmissionFlags.count(flagName(word)) > 0) {
      const bool inlineValue = word.find('=') != std::string::npos;
      if (!inlineValue && kSubmissionSwitches.count(flagName(word)) == 0) {
        ++i;  // its value
      }
      continue;
    }
    command.push_back(word);
  }
  command.insert(command.end(), options.command.begin(), options.command.end());
  return command;
}

int SlurmLaunchFlags::submit(const launch::LaunchOptions& options, const config::RunSpec& spec, bool json) const {
  FATHOM_CHECK(!options.command.empty(), ConfigError, "--slurm --nodes: no PROGRAM to run");
  FATHOM_CHECK(!json || !m_dryRun, ConfigError, "--dry_run prints the sbatch script, not JSON lines: drop --json");
  FATHOM_CHECK(options.maxRestarts == 0, ConfigError,
               "--max_restarts is not supported with --slurm (a multi-node run is not restarted)");
  const bool nodesFlag = m_cmd->count("--nodes") > 0;
  const std::string nodesName = nodesFlag ? "--nodes" : "num_machines";
  launch::SlurmBatchOptions o;
  // The flags win over the configuration's keys (`fathom launch --config_file F` with launcher: slurm).
  o.nodes = nodesFlag ? m_nodes : options.numMachines;  // SlurmBatchScript checks the range
  o.gpusPerNode = m_cmd->count("--gpus_per_node") > 0       ? m_gpusPerNode
                  : options.cpu || nodesFlag || o.nodes < 1 ? 0
                                                            : options.numProcesses / o.nodes;
  o.cpusPerNode = m_cpusPerNode;
  o.partition = m_cmd->count("--partition") > 0 ? m_partition : spec.fathom.slurmPartition.value_or("");
  o.time = m_cmd->count("--time") > 0 ? m_time : spec.fathom.slurmTime.value_or("");
  o.account = m_cmd->count("--account") > 0 ? m_account : spec.fathom.slurmAccount.value_or("");
  o.jobName = m_jobName;
  o.runDirectory = options.logDir.empty() ? defaultRunDirectory(m_jobName) : std::filesystem::absolute(options.logDir);
  o.workingDirectory = std::filesystem::current_path();
  o.command = jobCommand(options);
  const launch::SlurmBatchScript script(std::move(o));  // checks the values first
  const int nodes = script.options().nodes;
  FATHOM_CHECK(options.numProcesses % nodes == 0, ConfigError, "--num_processes ", options.numProcesses,
               " does not divide evenly over ", nodesName, " ", nodes, ": give a multiple of ", nodes);
  if (m_dryRun) {
    std::cout << script.text() << std::flush;
    return 0;
  }
  std::error_code ec;
  std::filesystem::create_directories(script.options().runDirectory, ec);
  FATHOM_CHECK(!ec, ConfigError, "cannot create the run folder ", script.options().runDirectory.string(), ": ",
               ec.message());
  {
    std::ofstream file(script.scriptFile(), std::ios::binary | std::ios::trunc);
    file << script.text();
    FATHOM_CHECK(file.flush(), StorageError, "cannot write ", script.scriptFile().string());
  }
  const launch::SlurmClient client;
  const std::string job = client.submit(script.scriptFile());
  // stdout's first line: the job id (scripts read it), or with --json the "slurm_job" event that carries it.
  std::cout << (json ? telemetry::toJsonLine(telemetry::SlurmJobUpdate{job, "SUBMITTED"}) : job) << std::endl;
  if (!options.quiet) {
    std::cerr << "fathom launch: submitted job " << job << " (" << script.scriptFile().string() << "); output in "
              << script.outputFile(job).string() << "\n";
  }
  if (m_detach) {
    return 0;
  }
  return followSlurmJob(client, job, script.outputFile(job), std::cout, {.quiet = options.quiet, .json = json});
}

}  // namespace fathom::cli
