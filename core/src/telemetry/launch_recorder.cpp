// SPDX-License-Identifier: Apache-2.0
#include <fathom/common/clock.h>
#include <fathom/telemetry/launch_recorder.h>

#include <fathom/common/error.h>
#include <fathom/common/log.h>
#include <fathom/launch/worker_environment.h>
#include <fathom/store/workspace.h>

#include <nlohmann/json.hpp>

namespace fathom::telemetry {
namespace {

/// The launch as a shell would show it: `fathom launch` plus the worker command (quoted where needed).
std::string commandLine(const std::vector<std::string>& command) {
  std::string out = "fathom launch";
  for (const auto& arg : command) {
    const bool plain = !arg.empty() && arg.find_first_of(" \t\n'\"\\$`") == std::string::npos;
    out += " ";
    if (plain) {
      out += arg;
    } else {
      out += "'";
      for (char c : arg) {
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
      }
      out += "'";
    }
  }
  return out;
}

/// "train" for `fathom train ...`, else the program's file name.
std::string runName(const std::vector<std::string>& command) {
  const std::string program = std::filesystem::path(command.front()).filename().string();
  if (command.size() > 1 && !command[1].empty() && command[1][0] != '-') {
    return program + " " + command[1];
  }
  return program;
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
  // The sharding the workers are told to use (the values of the variables the launcher sets), so a reader can
  // name the strategy: FSDP's sharding strategy, DeepSpeed's ZeRO stage (Accelerate's default 2).
  if (o.useFsdp) {
    const auto given = o.fsdp.find("fsdp_sharding_strategy");
    std::string strategy;
    for (const launch::FsdpFlag& flag : launch::fsdpFlags()) {
      if (std::string_view(flag.key) == "fsdp_sharding_strategy" && flag.defaultValue != nullptr) {
        strategy = flag.defaultValue;
      }
    }
    j["fsdp_sharding_strategy"] = given != o.fsdp.end() ? given->second : strategy;
  }
  if (o.useDeepSpeed) {
    j["zero_stage"] = o.zeroStage.value_or(2);
  }
  return j;
}

}  // namespace

LaunchRecorder::LaunchRecorder(const std::filesystem::path& workspace, const launch::LaunchOptions& options,
                               CollectorOptions collector) {
  FATHOM_CHECK(!options.command.empty(), ConfigError, "LaunchRecorder: the launch has no command");
  store::Workspace ws(workspace);
  m_run = ws.createRun({runName(options.command), commandLine(options.command), "json", launchConfig(options).dump(2)});
  m_host = store::currentHostName();
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

void LaunchRecorder::workerStarted(const launch::WorkerEvent& worker) {
  try {
    m_collector->recordRank({worker.rank, m_host, worker.pid, "", std::nullopt});
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
    m_collector->recordRank({worker.rank, m_host, worker.pid, "", status.shellCode()});
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
