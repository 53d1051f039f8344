// SPDX-License-Identifier: Apache-2.0
#include "launch_flags.h"

#include "flag_choices.h"
#include "number_flag.h"

#include <fathom/common/checked_number.h>
#include <fathom/common/error.h>
#include <fathom/config/config_resolver.h>
#include <fathom/config/config_schema.h>
#include <fathom/config/input_limits.h>
#include <fathom/config/run_spec.h>
#include <fathom/launch/launch_config.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iostream>
#include <limits>
#include <type_traits>

namespace fathom::cli {
namespace {

/// "--num_processes,--num-processes" for "num_processes".
std::string spellings(const std::string& name) {
  std::string dashed = name;
  std::replace(dashed.begin(), dashed.end(), '_', '-');
  return dashed == name ? "--" + name : "--" + name + ",--" + dashed;
}

/// A whole number >= 1 given as text to a torchrun flag; `what` says what it counts.
int count(const std::string& text, const char* flag, const char* what) {
  int value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  FATHOM_CHECK(ec == std::errc() && end == text.data() + text.size() && value >= 1, ConfigError, flag, " ", text,
               ": give the number of ", what, " (a whole number >= 1)");
  return value;
}

/// torchrun's --nnodes: N, or MIN:MAX for an elastic group, which Fathom's launcher does not run unless MIN == MAX.
int machines(const std::string& text) {
  if (const auto colon = text.find(':'); colon != std::string::npos) {
    const int low = count(text.substr(0, colon), "--nnodes", "machines");
    const int high = count(text.substr(colon + 1), "--nnodes", "machines");
    FATHOM_CHECK(low == high, ConfigError, "--nnodes ", text,
                 ": Fathom has no elastic launch; give a fixed number of machines (--nnodes N, Accelerate's "
                 "--num_machines N)");
    return low;
  }
  return count(text, "--nnodes", "machines");
}

/// torchrun's --rdzv_endpoint HOST[:PORT] (IPv6 in brackets): where the rendezvous store listens, which Fathom's
/// launcher hosts on machine 0 at --main_process_ip:--main_process_port. torchrun's default port is 29400.
std::pair<std::string, std::string> endpoint(const std::string& text) {
  std::string host = text;
  std::string port = "29400";
  if (!text.empty() && text.front() == '[') {
    const auto close = text.find(']');
    FATHOM_CHECK(close != std::string::npos, ConfigError, "--rdzv_endpoint ", text, ": missing ']' after the address");
    host = text.substr(1, close - 1);
    if (close + 1 < text.size()) {
      FATHOM_CHECK(text[close + 1] == ':', ConfigError, "--rdzv_endpoint ", text, ": expected HOST:PORT");
      port = text.substr(close + 2);
    }
  } else if (const auto colon = text.rfind(':');
             colon != std::string::npos && text.find(':') == colon) {  // one ':' (more is a bare IPv6 address)
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
  }
  FATHOM_CHECK(!host.empty(), ConfigError, "--rdzv_endpoint ", text, ": expected HOST:PORT");
  return {host, port};
}

std::chrono::milliseconds seconds(double s, const char* flag) {
  FATHOM_CHECK(std::isfinite(s) && s >= 0, ConfigError, "--", flag, " must be a number of seconds >= 0, got ", s);
  // Checked: --monitor_interval 1e300 must not become an undefined llround (a week is plenty for either flag).
  constexpr long long kWeekMs = 7LL * 24 * 3600 * 1000;
  return std::chrono::milliseconds(
      checkedNarrow<long long>(std::round(s * 1000.0), detail::concat("--", flag, " (in milliseconds)"), 0, kWeekMs));
}

}  // namespace

template <typename T>
CLI::Option* LaunchFlags::add(CLI::App& cmd, const std::string& name, T& target, const std::string& help) {
  CLI::Option* option = cmd.add_option(spellings(name), target, help);
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    // Checked as text first: the configuration key's range where the flag sets one (the schema's), else T's.
    std::int64_t low = std::numeric_limits<T>::min();
    std::int64_t high = std::numeric_limits<T>::max();
    if (const auto key = config::configKeyForLaunchFlag(name); key && !key->fixedValue) {
      if (const config::KeySpec* spec = config::findKey(key->path); spec != nullptr) {
        low = std::max(low, spec->minimum);
        high = std::min(high, spec->maximum);
      }
    }
    option->check(wholeNumberIn(low, high));
  }
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
  add(cmd, "mixed_precision", m_mixedPrecision,
      choices(config::kMixedPrecisions, Offered::All) + ": ACCELERATE_MIXED_PRECISION")
      ->check(CLI::IsMember(config::kMixedPrecisions.names(), CLI::ignore_case));
  add(cmd, "gradient_accumulation_steps", m_gradientAccumulationSteps,
      "ACCELERATE_GRADIENT_ACCUMULATION_STEPS (overrides the program's own setting, as in Accelerate)");
  m_options["cpu"] = cmd.add_flag("--cpu", m_cpu, "Force CPU training: ACCELERATE_USE_CPU=True");
  m_options["multi_gpu"] =
      cmd.add_flag(spellings("multi_gpu"), m_multiGpu,
                   "Data parallel on several GPUs: distributed_type MULTI_GPU (as accelerate launch)");
  add(cmd, "gpu_ids", m_gpuIds,
      "The GPUs this machine's processes may use, e.g. 0,1 (default all): CUDA_VISIBLE_DEVICES, as accelerate launch");
  add(cmd, "dynamo_backend", m_dynamoBackend,
      "Accepted as `no` only: LibTorch's C++ API has no torch.compile, so Fathom runs every model eagerly");
  add(cmd, "nproc_per_node", m_nprocPerNode,
      "torchrun's spelling: processes per machine (num_processes = nproc_per_node x num_machines)");
  add(cmd, "nnodes", m_nnodes, "torchrun's spelling of --num_machines (a fixed N; no elastic MIN:MAX)");
  add(cmd, "rdzv_endpoint", m_rdzvEndpoint,
      "torchrun's HOST[:PORT] (default port 29400): Fathom's --main_process_ip and --main_process_port");
  m_options["use_fsdp"] = cmd.add_flag(spellings("use_fsdp"), m_useFsdp,
                                       "Fully sharded data parallel: "
                                       "ACCELERATE_USE_FSDP=true and FSDP_*");
  m_options["use_deepspeed"] = cmd.add_flag(spellings("use_deepspeed"), m_useDeepSpeed,
                                            "ZeRO (DeepSpeed's configuration names): "
                                            "ACCELERATE_USE_DEEPSPEED=true");
  const std::map<std::string, std::string> fsdpChoices = {
      {"fsdp_sharding_strategy", choices(config::kFsdpShardingStrategies)},
      {"fsdp_reshard_after_forward", "true | false | " + choices(config::kFsdpShardingStrategies)},
      {"fsdp_auto_wrap_policy", choices(config::kFsdpWrapPolicies)},
      {"fsdp_backward_prefetch", choices(config::kFsdpBackwardPrefetches)},
      {"fsdp_state_dict_type", choices(config::kFsdpStateDictTypes)}};
  for (const launch::FsdpFlag& flag : launch::fsdpFlags()) {
    const auto values = fsdpChoices.find(flag.key);
    add(cmd, flag.key, m_fsdp[flag.key],
        (values != fsdpChoices.end() ? values->second + ": " : std::string()) + flag.variable +
            (flag.defaultValue != nullptr ? std::string(" (default ") + flag.defaultValue + ")" : std::string()));
  }
  add(cmd, "zero_stage", m_zeroStage, "DeepSpeed ZeRO stage 0-3: ACCELERATE_DEEPSPEED_ZERO_STAGE (default 2)");
  add(cmd, "offload_optimizer_device", m_offloadOptimizerDevice,
      "DeepSpeed: " + choices(config::kOffloadDevices) + ": ACCELERATE_DEEPSPEED_OFFLOAD_OPTIMIZER_DEVICE");
  add(cmd, "offload_param_device", m_offloadParamDevice,
      "DeepSpeed ZeRO-3: " + choices(config::kOffloadDevices) + ": ACCELERATE_DEEPSPEED_OFFLOAD_PARAM_DEVICE");
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
  // The run monitor (docs/launch.md, "Hang and straggler detection"): config keys of the `fathom` section.
  // The defaults are config::MonitorSpec's; resolve() reads the values from the run specification.
  using Monitor = config::MonitorSpec;
  add(cmd, "hang_timeout", m_hangTimeout,
      fathom::detail::concat(
          "Seconds without progress of any rank, while ranks disagree on the collective they are in, "
          "before a hang is reported (default ",
          Monitor::kDefaultHangTimeoutSeconds,
          "; 0 disables; also FATHOM_HANG_TIMEOUT or the config's fathom.hang_timeout)"));
  add(cmd, "straggler_threshold", m_stragglerThreshold,
      fathom::detail::concat("Percent by which a rank's own time per step (outside collectives, over the last ",
                             telemetry::MonitorOptions{}.stragglerWindowSteps,
                             " steps or more) may exceed the other ranks' median before it is flagged as a straggler "
                             "(default ",
                             Monitor::kDefaultStragglerThresholdPercent, "; 0 disables; fathom.straggler_threshold)"));
  add(cmd, "hang_action", m_hangAction,
      choices(config::kHangActions) + " (default " +
          std::string(config::kHangActions.toString(Monitor::kDefaultHangAction)) +
          "): report records and prints a hang, the run goes on; abort also stops the group as a failure "
          "(fathom.hang_action)")
      ->check(CLI::IsMember(config::kHangActions.names()));
}

launch::LaunchOptions LaunchFlags::resolve(std::vector<std::string>* notes, config::WorkspaceSetting* workspace,
                                           std::string* runName, MonitorSettings* monitor,
                                           config::RunSpec* resolvedSpec) const {
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
  // torchrun's spellings of Accelerate's keys; the same setting twice is a mistake, not a precedence question.
  if (given("nnodes")) {
    FATHOM_CHECK(!given("num_machines"), ConfigError, "give --nnodes (torchrun's) or --num_machines, not both");
    inputs.commandLine["num_machines"] = std::to_string(machines(m_nnodes));
  }
  if (given("rdzv_endpoint")) {
    FATHOM_CHECK(!given("main_process_ip") && !given("main_process_port"), ConfigError,
                 "give --rdzv_endpoint (torchrun's) or --main_process_ip/--main_process_port, not both");
    const auto [host, port] = endpoint(m_rdzvEndpoint);
    inputs.commandLine["main_process_ip"] = host;
    inputs.commandLine["main_process_port"] = port;
  }
  FATHOM_CHECK(!given("nproc_per_node") || !given("num_processes"), ConfigError,
               "give --nproc_per_node (torchrun's, per machine) or --num_processes (Accelerate's, over all machines), "
               "not both");
  if (given("run_name")) {
    inputs.commandLine["fathom.run_name"] = m_runName;
  }
  for (const char* key : {"hang_timeout", "straggler_threshold", "hang_action"}) {
    if (given(key)) {
      inputs.commandLine[std::string("fathom.") + key] = m_options.at(key)->results().back();
    }
  }
  const config::EffectiveConfig effective = config::resolveConfig(inputs);
  config::RunSpec spec = config::runSpecFromConfig(effective);
  if (given("nproc_per_node")) {
    FATHOM_CHECK(m_nprocPerNode >= 1, ConfigError, "--nproc_per_node must be >= 1, got ", m_nprocPerNode);
    // Checked: 65536 x 65536 must not wrap around to a small world size.
    spec.numProcesses = checkedNarrow<int>(
        std::int64_t{m_nprocPerNode} * spec.numMachines,
        detail::concat("--nproc_per_node ", m_nprocPerNode, " x --num_machines ", spec.numMachines, " processes"), 1,
        static_cast<int>(config::kMaxProcesses));
    spec.provenance["num_processes"] = config::ResolvedValue{
        std::int64_t{*spec.numProcesses}, config::ValueSource::CommandLine, "--nproc_per_node", {}};
  }
  launch::LaunchOptions o = launch::launchOptionsFromRunSpec(spec);
  if (workspace != nullptr) {
    *workspace = config::workspaceSetting(effective);
  }
  if (runName != nullptr) {
    const config::ResolvedValue* name = effective.find("fathom.run_name");
    *runName = name != nullptr ? std::get<std::string>(name->value) : std::string();
  }
  if (monitor != nullptr) {
    monitor->options = telemetry::MonitorOptions::fromSpec(spec.fathom.monitor);
    monitor->abortOnHang = spec.fathom.monitor.effectiveHangAction() == config::HangAction::Abort;
  }
  if (resolvedSpec != nullptr) {
    *resolvedSpec = spec;
  }
  if (notes != nullptr) {
    for (const auto& note : spec.notes) {
      // The resolver logged its note about reading Accelerate's default file already.
      const bool logged = effective.usedAccelerateFallback && effective.configFile && note == effective.notes.front();
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
