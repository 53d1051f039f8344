// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/config/config_resolver.h>
#include <fathom/config/monitor_spec.h>
#include <fathom/config/run_spec.h>
#include <fathom/launch/launch_options.h>
#include <fathom/telemetry/run_monitor.h>

#include <CLI/CLI.hpp>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace fathom::cli {

/// The launcher's run monitor as configured: --hang_timeout, --straggler_threshold (percent), --hang_action, or the
/// config keys fathom.hang_timeout, fathom.straggler_threshold, fathom.hang_action (flag > environment > file).
struct MonitorSettings {
  telemetry::MonitorOptions options;
  bool abortOnHang = false;  ///< --hang_action abort: stop the group when a hang is reported
};

/// The flags `fathom launch` shares with `fathom test`, and their resolution into LaunchOptions with the
/// precedence flag > environment > config file > default. Only flags actually given on the command line take
/// part (CLI11's count()), so a default never hides a value from the environment or the file.
class LaunchFlags {
public:
  /// `Launch` registers every flag; `Test` only those that make sense for the self-check.
  enum class Scope { Launch, Test };

  /// Registers the flags on `cmd`, each under its Accelerate spelling and the dashed one.
  void addTo(CLI::App& cmd, Scope scope);

  /// The flags that are config keys go through fathom::config::resolveConfig() (flag > environment > config file
  /// > default; --config_file, else the default file when it exists and --cpu is not given), then
  /// config::runSpecFromConfig() and launch::launchOptionsFromRunSpec(); torchrun's --nproc_per_node, --nnodes and
  /// --rdzv_endpoint are read as the Accelerate keys they mean; the launcher-only flags (--max_restarts, --tee,
  /// --log_dir, ...) are applied on top. Throws ConfigError for bad values, naming the flag, variable or file
  /// position. `notes` receives what the user should know about the configuration in effect (which defaults were
  /// used, Accelerate quirks, settings Fathom ignores); the Accelerate-fallback note is left out, because the config
  /// layer already logs it. `workspace` (Scope::Launch) receives the workspace file resolved the same way
  /// (--workspace > FATHOM_WORKSPACE > fathom.workspace > default), `runName` the run's name (--run_name >
  /// FATHOM_RUN_NAME > fathom.run_name; empty when none is given), `monitor` the run monitor's settings, `spec` the
  /// resolved run specification (its `fathom:` section names the hosts of a multi-node launch).
  launch::LaunchOptions resolve(std::vector<std::string>* notes = nullptr,
                                config::WorkspaceSetting* workspace = nullptr, std::string* runName = nullptr,
                                MonitorSettings* monitor = nullptr, config::RunSpec* spec = nullptr) const;

  /// Prints `notes` to stderr as "fathom <command>: note: ..." unless `options.quiet`.
  static void printNotes(const char* command, const std::vector<std::string>& notes,
                         const launch::LaunchOptions& options);

private:
  template <typename T> CLI::Option* add(CLI::App& cmd, const std::string& names, T& target, const std::string& help);
  bool given(const char* name) const;

  std::map<std::string, CLI::Option*> m_options;  // by Accelerate spelling, e.g. "num_processes"
  std::string m_configFile;
  // Targets of the flags that are config keys; resolve() reads their text through CLI::Option::results().
  int m_numProcesses = 1;
  int m_numMachines = 1;
  int m_machineRank = 0;
  std::string m_mainProcessIp;
  int m_mainProcessPort = 0;
  std::string m_mixedPrecision;
  int m_gradientAccumulationSteps = 1;
  bool m_cpu = false;
  bool m_useFsdp = false;
  bool m_useDeepSpeed = false;
  std::map<std::string, std::string> m_fsdp;
  int m_zeroStage = 2;
  std::string m_offloadOptimizerDevice;
  std::string m_offloadParamDevice;
  bool m_multiGpu = false;
  std::string m_gpuIds;
  std::string m_dynamoBackend;
  // torchrun's spellings, read as Accelerate's keys.
  int m_nprocPerNode = 1;
  std::string m_nnodes;
  std::string m_rdzvEndpoint;
  // Launcher-only flags.
  int m_numCpuThreads = 1;
  int m_maxRestarts = 0;
  double m_monitorInterval = 0.1;
  int m_tee = 0;
  std::string m_logDir;
  std::string m_workspace;
  std::string m_runName;
  double m_hangTimeout = config::MonitorSpec::kDefaultHangTimeoutSeconds;
  double m_stragglerThreshold = config::MonitorSpec::kDefaultStragglerThresholdPercent;
  std::string m_hangAction;
  bool m_quiet = false;
  bool m_debug = false;
  double m_gracePeriod = 5.0;
};

}  // namespace fathom::cli
