// SPDX-License-Identifier: Apache-2.0
#include "launch_flags.h"

#include <fathom/common/error.h>
#include <fathom/config/config_resolver.h>
#include <fathom/config/config_schema.h>
#include <fathom/launch/launch_config.h>

#include <algorithm>
#include <cmath>
#include <iostream>

namespace fathom::cli {
namespace {

/// "--num_processes,--num-processes" for "num_processes".
std::string spellings(const std::string& name) {
  std::string dashed = name;
  std::replace(dashed.begin(), dashed.end(), '_', '-');
  return dashed == name ? "--" + name : "--" + name + ",--" + dashed;
}

std::chrono::milliseconds seconds(double s, const char* flag) {
  FATHOM_CHECK(std::isfinite(s) && s >= 0, ConfigError, "--", flag, " must be a number of seconds >= 0, got ", s);
  return std::chrono::milliseconds(static_cast<long long>(std::llround(s * 1000.0)));
}

}  // namespace

template <typename T>
CLI::Option* LaunchFlags::add(CLI::App& cmd, const std::string& name, T& target, const std::string& help) {
  CLI::Option* option = cmd.add_option(spellings(name), target, help);
  m_options[name] = option;
  return option;
}

bool LaunchFlags::given(const char* name) const {
  const auto it = m_options.find(name);
  return it != m_options.end() && it->second->count() > 0;
}

void LaunchFlags::addTo(CLI::App& cmd, Scope scope) {
  const bool launch = scope == Scope::Launch;
  add(cmd, "config_file", m_configFile, "Config file (Accelerate's YAML) with the defaults for this launch");
  add(cmd, "num_processes", m_numProcesses, "Total number of processes, over all machines (default 1)");
  add(cmd, "main_process_port", m_mainProcessPort,
      "Port of rank 0's rendezvous store; 0 or unset: a free port on this machine");
  add(cmd, "monitor_interval", m_monitorInterval, "Seconds between checks of the workers (default 0.1)");
  add(cmd, "terminate_grace_period", m_gracePeriod,
      "Seconds the other processes get after SIGTERM before SIGKILL when one fails (default 5; Fathom's own flag)");
  m_options["quiet"] = cmd.add_flag("-q,--quiet", m_quiet, "Only the failure line: no launcher notes, no log tail");
  m_options["debug"] = cmd.add_flag(
      "--debug", m_debug, "ACCELERATE_DEBUG_MODE=true in the workers; the launcher says what it sets and sends");
  if (!launch) {
    return;
  }
  add(cmd, "num_machines", m_numMachines, "Number of machines (default 1)");
  add(cmd, "machine_rank", m_machineRank, "This machine's index, 0-based (default 0)");
  add(cmd, "main_process_ip", m_mainProcessIp, "Address of machine 0 (default 127.0.0.1)");
  add(cmd, "mixed_precision", m_mixedPrecision, "no, fp16, bf16 or fp8: ACCELERATE_MIXED_PRECISION")
      ->check(CLI::IsMember({"no", "fp16", "bf16", "fp8"}, CLI::ignore_case));
  add(cmd, "gradient_accumulation_steps", m_gradientAccumulationSteps,
      "ACCELERATE_GRADIENT_ACCUMULATION_STEPS (overrides the program's own setting, as in Accelerate)");
  m_options["cpu"] = cmd.add_flag("--cpu", m_cpu, "Force CPU training: ACCELERATE_USE_CPU=True");
  m_options["use_fsdp"] = cmd.add_flag(spellings("use_fsdp"), m_useFsdp,
                                       "Fully sharded data parallel: "
                                       "ACCELERATE_USE_FSDP=true and FSDP_*");
  m_options["use_deepspeed"] = cmd.add_flag(spellings("use_deepspeed"), m_useDeepSpeed,
                                            "ZeRO (DeepSpeed's configuration names): "
                                            "ACCELERATE_USE_DEEPSPEED=true");
  for (const launch::FsdpFlag& flag : launch::fsdpFlags()) {
    add(cmd, flag.key, m_fsdp[flag.key],
        std::string(flag.variable) +
            (flag.defaultValue != nullptr ? std::string(" (default ") + flag.defaultValue + ")" : std::string()));
  }
  add(cmd, "zero_stage", m_zeroStage, "DeepSpeed ZeRO stage 0-3: ACCELERATE_DEEPSPEED_ZERO_STAGE (default 2)");
  add(cmd, "offload_optimizer_device", m_offloadOptimizerDevice,
      "DeepSpeed: none, cpu or nvme: ACCELERATE_DEEPSPEED_OFFLOAD_OPTIMIZER_DEVICE");
  add(cmd, "offload_param_device", m_offloadParamDevice,
      "DeepSpeed ZeRO-3: none, cpu or nvme: ACCELERATE_DEEPSPEED_OFFLOAD_PARAM_DEVICE");
  add(cmd, "num_cpu_threads_per_process", m_numCpuThreads,
      "OMP_NUM_THREADS for each process (default: 1 when several processes run and OMP_NUM_THREADS is unset)");
  add(cmd, "max_restarts", m_maxRestarts, "Restart the whole group up to N times after a failure (default 0)");
  add(cmd, "tee", m_tee,
      "Streams copied to the log files in --log_dir: 0 none, 1 stdout, 2 stderr, 3 both "
      "(default 3 when --log_dir is given)")
      ->check(CLI::Range(0, 3));
  add(cmd, "log_dir", m_logDir, "Per-rank logs: LOG_DIR/attempt_N/rank_R/{stdout,stderr}.log");
  // The config key fathom.workspace: resolve() applies flag > FATHOM_WORKSPACE > config file > default to it.
  add(cmd, "workspace", m_workspace,
      "The workspace that records the run (ranks, exit codes, status) and every worker's telemetry (default: "
      "FATHOM_WORKSPACE, else the config's fathom.workspace, else ./fathom.sqlite); see docs/workspace.md");
  // The config key fathom.run_name, resolved as --workspace is.
  add(cmd, "run_name", m_runName,
      "The run's name in the workspace, shown by `fathom runs` and the Studio (default: FATHOM_RUN_NAME, else the "
      "config's fathom.run_name, else <program>-<run id>, e.g. train-12); `fathom runs show NAME` finds the newest "
      "run of that name");
}

launch::LaunchOptions LaunchFlags::resolve(std::vector<std::string>* notes, config::WorkspaceSetting* workspace,
                                           std::string* runName) const {
  // Config keys: fathom::config applies flag > environment > config file > default, per key.
  config::ResolveInputs inputs;
  if (given("config_file")) {
    inputs.configFile = std::filesystem::path(m_configFile);
  }
  for (const auto& [name, option] : m_options) {
    if (option->count() == 0 || name == "config_file") {
      continue;
    }
    if (const auto target = config::configKeyForLaunchFlag(name)) {
      const bool isSwitch = option->get_expected_min() == 0;  // --cpu, --use_fsdp, --debug, ...
      const bool on = isSwitch && option->as<bool>();
      if (target->fixedValue) {
        if (on) {
          inputs.commandLine[target->path] = *target->fixedValue;
        }
      } else {
        inputs.commandLine[target->path] = isSwitch ? (on ? "true" : "false") : option->results().back();
      }
    }
  }
  if (given("workspace")) {
    // A `fathom` section key, which configKeyForLaunchFlag() leaves out: --workspace beats FATHOM_WORKSPACE and the
    // file's fathom.workspace like any flag.
    inputs.commandLine["fathom.workspace"] = m_workspace;
  }
  if (given("run_name")) {
    inputs.commandLine["fathom.run_name"] = m_runName;
  }
  const config::EffectiveConfig effective = config::resolveConfig(inputs);
  launch::LaunchOptions o = launch::launchOptionsFromConfig(effective);
  if (workspace != nullptr) {
    *workspace = config::workspaceSetting(effective);
  }
  if (runName != nullptr) {
    const config::ResolvedValue* name = effective.find("fathom.run_name");
    *runName = name != nullptr ? std::get<std::string>(name->value) : std::string();
  }
  if (notes != nullptr) {
    for (const auto& note : effective.notes) {
      const bool logged = effective.usedAccelerateFallback && effective.configFile &&
                          note.find(effective.configFile->string()) != std::string::npos;
      if (!logged) {
        notes->push_back(note);
      }
    }
  }

  // Launcher-only settings: flags with no config key.
  if (given("num_cpu_threads_per_process")) {
    o.numCpuThreadsPerProcess = m_numCpuThreads;
  }
  if (given("max_restarts")) {
    o.maxRestarts = m_maxRestarts;
  }
  if (given("monitor_interval")) {
    o.monitorInterval = seconds(m_monitorInterval, "monitor_interval");
  }
  if (given("terminate_grace_period")) {
    o.terminateGracePeriod = seconds(m_gracePeriod, "terminate_grace_period");
  }
  if (given("tee")) {
    o.tee = static_cast<launch::TeeStreams>(m_tee);
  }
  if (given("log_dir")) {
    o.logDir = m_logDir;
  }
  if (given("quiet")) {
    o.quiet = m_quiet;
  }
  return o;
}

void LaunchFlags::printNotes(const char* command, const std::vector<std::string>& notes,
                             const launch::LaunchOptions& options) {
  if (options.quiet) {
    return;
  }
  for (const auto& note : notes) {
    std::cerr << "fathom " << command << ": note: " << note << '\n';
  }
}

}  // namespace fathom::cli
