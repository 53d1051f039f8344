// SPDX-License-Identifier: Apache-2.0
#include <fathom/common/clock.h>
#include <fathom/telemetry/launch_recorder.h>

#include <fathom/common/error.h>
#include <fathom/common/log.h>
#include <fathom/launch/worker_environment.h>
#include <fathom/store/process_identity.h>
#include <fathom/store/workspace.h>

#include <nlohmann/json.hpp>

namespace fathom::telemetry {
namespace {

/// "train" for `fathom train ...`, else the program's file name: the stem of a run's default name.
std::string programLabel(const std::vector<std::string>& command) {
  const std::string program = std::filesystem::path(command.front()).filename().string();
  if (program == "fathom" && command.size() > 1 && !command[1].empty() && command[1][0] != '-') {
    return command[1];
  }
  return program;
}

/// The strategy the launcher selects (Accelerate's variables): FSDP with its sharding strategy, DeepSpeed's ZeRO
/// stage (Accelerate's default 2; stage 0 is plain data parallelism), else DDP. A worker may still choose its own
/// (`fathom train --strategy`); its report replaces this one.
store::RunStrategy launchStrategy(const launch::LaunchOptions& o) {
  store::RunStrategy out;
  if (o.useFsdp) {
    out.strategy = plan::Strategy::Fsdp;
    out.fsdpSharding = plan::parseFsdpSharding(launch::fsdpValue(o, "fsdp_sharding_strategy").value_or("FULL_SHARD"));
  } else if (o.useDeepSpeed) {
    out = store::zeroStageStrategy(o.zeroStage.value_or(2));
  }
  return out;
}

store::NewRun newRun(const launch::LaunchOptions& o, const RunRecordOptions& record, nlohmann::json config) {
  store::NewRun run;
  FATHOM_CHECK(record.name.find_first_of("\n\r") == std::string::npos, ConfigError, "the run name '", record.name,
               "' holds a line break");
  FATHOM_CHECK(record.name.empty() || record.name.find_first_not_of(" \t") != std::string::npos, ConfigError,
               "the run name must not be blank");
  run.name = record.name.empty() ? programLabel(o.command) : record.name;
  run.numberName = record.name.empty();
  std::vector<std::string> words = record.launcherArguments;
  if (words.empty()) {
    words = {"fathom", "launch"};
    words.insert(words.end(), o.command.begin(), o.command.end());
  }
  run.commandLine = store::shellCommandLine(words);
  run.configFormat = "json";
  run.configText = config.dump(2);
  run.runSpec = o.runSpec;
  run.planJson = record.planJson;
  run.slurmJobId = record.slurmJobId;
  run.layout.worldSize = o.numProcesses;
  run.layout.numMachines = o.numMachines;
  run.layout.strategy = launchStrategy(o);
  run.layout.mixedPrecision = launch::toString(o.mixedPrecision);
  if (!record.hosts.empty()) {
    run.layout.hosts = record.hosts;
  } else {
    run.layout.hosts.resize(static_cast<std::size_t>(o.machineRank) + 1);
    run.layout.hosts.back() = store::currentHostName();
  }
  return run;
}

nlohmann::json launchConfig(const launch::LaunchOptions& o) {
  nlohmann::json j = {{"world_size", o.numProcesses},
                      {"num_machines", o.numMachines},
                      {"machine_rank", o.machineRank},
                      {"local_world_size", launch::localWorldSize(o)},
                      {"mixed_precision", std::string(launch::toString(o.mixedPrecision))},
                      {"cpu", o.cpu},
                      {"use_fsdp", o.useFsdp},
                      {"use_deepspeed", o.useDeepSpeed},
                      {"max_restarts", o.maxRestarts},
                      {"command", o.command}};
  // The sharding the workers are told to use (the values of the variables the launcher sets): FSDP's sharding
  // strategy, DeepSpeed's ZeRO stage (Accelerate's default 2). The typed layout columns say the same for readers.
  if (o.useFsdp) {
    j["fsdp_sharding_strategy"] = launch::fsdpValue(o, "fsdp_sharding_strategy").value_or("");
  }
  if (o.useDeepSpeed) {
    j["zero_stage"] = o.zeroStage.value_or(2);
  }
  return j;
}

}  // namespace

LaunchRecorder::LaunchRecorder(const std::filesystem::path& workspace, const launch::LaunchOptions& options,
                               RunRecordOptions record, CollectorOptions collector) {
  FATHOM_CHECK(!options.command.empty(), ConfigError, "LaunchRecorder: the launch has no command");
  const store::NewRun run = newRun(options, record, launchConfig(options));
  store::Workspace ws(workspace);
  m_run = ws.createRun(run);
  m_name = ws.run(m_run)->name;
  m_host = store::currentHostName();
  if (collector.expectedRanks == 0) {
    collector.expectedRanks = static_cast<std::size_t>(launch::localWorldSize(options));  // sizes the connection cap
  }
  try {
    m_collector = std::make_unique<TelemetryCollector>(std::move(ws), m_run, std::move(collector));
  } catch (...) {
    // No collector: the run cannot be observed, so it ends here (reopening the file, which the move emptied).
    store::Workspace again(workspace);
    again.finishRun(m_run, store::RunStatus::Failed, std::nullopt);
    throw;
  }
}

LaunchRecorder::~LaunchRecorder() {
  if (!m_finished) {
    try {
      finish(1);
    } catch (const std::exception& e) {
      log(LogLevel::Error, std::string("fathom launch: recording the run failed: ") + e.what());
    }
  }
}

std::vector<std::pair<std::string, std::string>> LaunchRecorder::workerEnvironment() {
  return m_collector->workerEnvironment();
}

std::uint16_t LaunchRecorder::telemetryPort() {
  return m_collector->port();
}

std::vector<std::pair<std::string, std::string>> LaunchRecorder::remoteWorkerEnvironment(const std::string& endpoint) {
  return m_collector->workerEnvironment(endpoint);
}

void LaunchRecorder::workerStarted(const launch::WorkerEvent& worker) {
  try {
    m_collector->recordRank({worker.rank, worker.host.empty() ? m_host : worker.host, worker.pid, "", std::nullopt});
    if (worker.attempt > 0) {
      m_collector->recordEvent({-1, unixNowSeconds(), LogLevel::Warning,
                                "restart " + std::to_string(worker.attempt) + ": rank " + std::to_string(worker.rank) +
                                    " is pid " + std::to_string(worker.pid)});
    }
  } catch (const Error& e) {
    log(LogLevel::Error, std::string("fathom launch: ") + e.what());  // the workspace failed; the launch goes on
  }
}

void LaunchRecorder::workerEnded(const launch::WorkerEvent& worker, const launch::ExitStatus& status) {
  try {
    m_collector->recordRank(
        {worker.rank, worker.host.empty() ? m_host : worker.host, worker.pid, "", status.shellCode()});
    if (!status.success()) {
      m_collector->recordEvent({-1, unixNowSeconds(), LogLevel::Error,
                                "rank " + std::to_string(worker.rank) + " (pid " + std::to_string(worker.pid) +
                                    ") ended with " + status.describe()});
    }
  } catch (const Error& e) {
    log(LogLevel::Error, std::string("fathom launch: ") + e.what());
  }
}

void LaunchRecorder::finish(int exitCode) {
  if (m_finished) {
    return;
  }
  m_finished = true;
  std::exception_ptr failure;
  try {
    m_collector->stop();
  } catch (...) {
    failure = std::current_exception();
  }
  // After a writer failure the workspace may still take this small write (the disk may have room again).
  m_collector->workspace().finishRun(m_run, exitCode == 0 ? store::RunStatus::Succeeded : store::RunStatus::Failed,
                                     exitCode);
  if (failure) {
    std::rethrow_exception(failure);
  }
}

}  // namespace fathom::telemetry
