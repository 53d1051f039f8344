// SPDX-License-Identifier: Apache-2.0
// `fathom launch [flags] PROGRAM [ARGS...]`: `accelerate launch` for any executable, on one machine's share of a
// group. Flags keep Accelerate's spellings (underscores; the dashed forms are accepted too).
#include "command.h"
#include "launch_flags.h"
#include "launch_json_channel.h"
#include "slurm_launch.h"
#include "ssh_launch.h"
#include "train_plan.h"

#include <fathom/common/error.h>
#include <fathom/launch/local_launcher.h>
#include <fathom/launch/multi_node_launcher.h>
#include <fathom/launch/worker_environment.h>
#include <fathom/plan/prediction_json.h>
#include <fathom/store/process_identity.h>
#include <fathom/telemetry/launch_recorder.h>

#include <atomic>
#include <filesystem>
#include <iostream>
#include <memory>
#include <numeric>

#include <nlohmann/json.hpp>

namespace fathom::cli {
namespace {

struct LaunchCommandFlags {
  LaunchFlags launch;
  MultiNodeFlags multiNode;
  SshLaunchFlags ssh;
  SlurmLaunchFlags slurm;
  bool json = false;
};

/// The plan stored with the run (docs/planner.md, "Plan vs actual"): for `fathom train`, what the planner predicts
/// for it; empty for any other program. A plan that cannot be made is a note, never a reason not to launch.
std::string launchPlan(const std::vector<std::string>& command, const launch::LaunchOptions& options,
                       const std::filesystem::path& workspace) {
  if (!isTrainCommand(command)) {
    return {};
  }
  try {
    return plan::toJson(predictTrainRun(command, options.runSpec, {}, workspace.string())).dump();
  } catch (const std::exception& e) {
    if (!options.quiet) {
      std::cerr << "fathom launch: note: no plan stored with the run: " << e.what() << "\n";
    }
    return {};
  }
}

int runLaunch(const LaunchCommandFlags& flags, const std::vector<std::string>& command,
              std::optional<LaunchJsonChannel>& channel) {
  // CLI11 hands an unknown flag before PROGRAM to PROGRAM's arguments; say what it is instead.
  FATHOM_CHECK(command.empty() || command.front().empty() || command.front()[0] != '-', ConfigError, "unknown flag ",
               command.front(), " for `fathom launch` (see `fathom launch --help`)");
  std::vector<std::string> notes;
  config::WorkspaceSetting workspace;
  telemetry::RunRecordOptions record;
  MonitorSettings monitor;
  config::RunSpec spec;
  launch::LaunchOptions options = flags.launch.resolve(&notes, &workspace, &record.name, &monitor, &spec);
  flags.slurm.checkUsage(spec, flags.ssh.given(spec));
  options.command = command;
  // With --json, stdout carries only the JSON lines: the workers' stdout joins their stderr on the launcher's.
  options.workerStdoutToStderr = flags.json;
  LaunchFlags::printNotes("launch", notes, options);
  if (flags.slurm.submits(spec)) {
    // Outside an allocation (slurm_launch.cpp): an sbatch job, followed to its end; the `fathom launch --slurm` the
    // job runs records the run and collects its telemetry.
    return flags.slurm.submit(options, spec, flags.json);
  }
  // One machine (LocalLauncher) or several (MultiNodeLauncher over ssh or srun: ssh_launch.cpp, slurm_launch.cpp):
  // both record the run in the workspace and send every worker's telemetry to this process's collector.
  std::optional<launch::LocalLauncher> local;
  std::optional<launch::MultiNodeLauncher> multi;
  if (flags.ssh.given(spec)) {
    multi.emplace(flags.ssh.makeLauncher(std::move(options), spec, flags.multiNode));
    for (const launch::HostSlots& host : multi->options().hosts) {
      record.hosts.push_back(host.host);
    }
  } else if (flags.slurm.given(spec)) {
    // Inside an allocation: one agent per node through srun (slurm_launch.cpp); the run records the job.
    multi.emplace(flags.slurm.makeLauncher(std::move(options), spec, flags.multiNode, record.slurmJobId));
    for (const launch::HostSlots& host : multi->options().hosts) {
      record.hosts.push_back(host.host);
    }
  } else {
    local.emplace(std::move(options));
  }
  const launch::LaunchOptions& o = multi ? multi->options().launch : local->options();
  record.launcherArguments = store::currentArguments();
  // The run monitor's alerts, reported on the collector's writer thread: a line on stderr, a JSON line with --json,
  // and with --hang_action abort a hang stops the group (as SIGTERM would; the run ends failed, nothing survives).
  std::atomic<LaunchJsonChannel*> alertChannel{nullptr};
  telemetry::CollectorOptions collector;
  collector.monitor = monitor.options;
  if (multi) {
    collector.expectedRanks = static_cast<std::size_t>(o.numProcesses);  // every host's ranks come here
    if (!multi->options().telemetryAddress.empty()) {
      collector.listenAddress = "0.0.0.0";  // --same_network: the other hosts' workers connect directly
    }
  }
  collector.onAlert = [&alertChannel, abortOnHang = monitor.abortOnHang](const store::AlertRow& row) {
    const bool raised = !row.alert.resolvedAt;
    std::string line =
        "fathom launch: " + std::string(raised ? "" : "ended: ") + store::describeAlert(row.alert) + "\n";
    const bool stop = abortOnHang && raised && row.alert.kind == store::AlertKind::Hang;
    if (stop) {
      line += "fathom launch: --hang_action abort: stopping the group\n";
    }
    std::cerr << line;
    if (LaunchJsonChannel* channel = alertChannel.load()) {
      channel->writeLine(telemetry::alertJsonLine(row));
    }
    if (stop) {
      launch::LocalLauncher::requestStop();  // the one that runs takes it
      launch::MultiNodeLauncher::requestStop();
    }
  };
  record.planJson = launchPlan(command, o, workspace.path);
  // Records the run and collects the workers' telemetry; destroyed by an exception, it marks the run failed.
  telemetry::LaunchRecorder recorder(workspace.path, o, std::move(record), std::move(collector));
  launch::LaunchObserver* observer = &recorder;
  if (flags.json) {
    // The ranks this launcher starts: this machine's share, or every rank of a multi-node launch.
    std::vector<int> ranks(static_cast<std::size_t>(multi ? o.numProcesses : launch::localWorldSize(o)));
    std::iota(ranks.begin(), ranks.end(), multi ? 0 : o.machineRank * launch::localWorldSize(o));
    channel.emplace(recorder, std::cout);
    channel->write(telemetry::RunCreated{recorder.run().value, recorder.runName(),
                                         std::filesystem::absolute(workspace.path).string(), o.numProcesses, ranks});
    observer = &*channel;
    alertChannel = &*channel;
  }
  if (!o.quiet) {
    std::cerr << "fathom launch: run " << recorder.run().value << " (" << recorder.runName() << ") in "
              << workspace.path.string() << "\n";
  }
  launch::LaunchResult result;
  if (multi) {
    const launch::MultiNodeResult outcome = multi->run(observer);
    MultiNodeFlags::report(outcome, o.quiet);
    result.exitCode = outcome.exitCode;
    result.attempts = 1;
    result.interruptedBy = outcome.interruptedBy;
    if (outcome.failure && outcome.failure->rank) {
      result.failure = launch::RankFailure{};
      result.failure->rank = *outcome.failure->rank;
    }
  } else {
    result = local->run(observer);
  }
  recorder.finish(result.exitCode);
  alertChannel = nullptr;
  if (channel) {
    channel->write(telemetry::LaunchFinished{
        recorder.run().value, result.exitCode == 0 ? store::RunStatus::Succeeded : store::RunStatus::Failed,
        result.exitCode, result.attempts, result.failure ? std::optional<int>(result.failure->rank) : std::nullopt,
        result.interruptedBy});
  }
  if (result.attempts > 1 && result.exitCode == 0 && !o.quiet) {
    std::cerr << "fathom launch: succeeded after " << result.attempts - 1 << " restart(s)\n";
  }
  return result.exitCode;
}

}  // namespace

void addLaunchCommand(CLI::App& root, CommandAction& action) {
  auto flags = std::make_shared<LaunchCommandFlags>();
  CLI::App* cmd = root.add_subcommand("launch", "Run PROGRAM [ARGS...] as a group of processes with RANK, WORLD_SIZE, "
                                                "MASTER_ADDR/PORT and Accelerate's variables set (as `accelerate "
                                                "launch`); see docs/launch.md");
  cmd->prefix_command();  // everything from PROGRAM on belongs to PROGRAM
  flags->launch.addTo(*cmd, LaunchFlags::Scope::Launch);
  flags->ssh.addTo(*cmd);
  flags->multiNode.addTo(*cmd);
  flags->slurm.addTo(*cmd);
  cmd->add_flag("--json", flags->json,
                "Machine-readable: JSON lines on stdout (the run id, name and workspace, each rank's start and end, "
                "the final status; docs/launch.md); the workers' output then goes to stderr, stdout lines included");
  cmd->footer("PROGRAM is any executable: a C++ program, `fathom train`, a shell script. Flags after PROGRAM are "
              "PROGRAM's own.");
  cmd->callback([flags, cmd, &action] {
    std::vector<std::string> command = cmd->remaining();
    action = [flags, command] {
      std::optional<LaunchJsonChannel> channel;
      try {
        return runLaunch(*flags, command, channel);
      } catch (const std::exception& e) {
        if (flags->json) {
          // The error line goes out even before the run (and the channel) exists; `fathom: error:` follows on stderr.
          std::cout << telemetry::toJsonLine(telemetry::LaunchError{e.what()}) << std::endl;
        }
        throw;
      }
    };
  });
}

}  // namespace fathom::cli
