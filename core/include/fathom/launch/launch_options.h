// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/precision/mixed_precision.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fathom::launch {

/// Accelerate's PrecisionType; one definition for the whole core (fathom/precision/mixed_precision.h).
using precision::MixedPrecision;
using precision::toString;
/// Case-insensitive, as `accelerate launch` lower-cases the value; std::nullopt for anything else.
std::optional<MixedPrecision> mixedPrecisionFromString(std::string_view text);

/// Which of a rank's streams go to its log files in --log_dir (torchrun's --tee: 0 none, 1 stdout, 2 stderr,
/// 3 both). The console always gets both.
enum class TeeStreams { None = 0, Stdout = 1, Stderr = 2, Both = 3 };

/// One `--fsdp_*` flag of `accelerate launch` and the variable it sets in the workers.
struct FsdpFlag {
  const char* key;           ///< flag and config key, e.g. "fsdp_offload_params"
  const char* variable;      ///< e.g. "FSDP_OFFLOAD_PARAMS"
  const char* defaultValue;  ///< what Accelerate sets when the flag is absent; nullptr = not set at all
  bool isBool;               ///< value is a boolean, written lower-case ("true"/"false") as Accelerate does
};
/// Every --fsdp_* flag Fathom accepts, in Accelerate's order.
std::span<const FsdpFlag> fsdpFlags();

/// Everything `fathom launch` needs, with Accelerate's defaults unless noted. Fill it, call validate(), hand it to
/// LocalLauncher.
struct LaunchOptions {
  /// PROGRAM ARGS...: any executable; a name without '/' is looked up in PATH.
  std::vector<std::string> command;
  /// Total processes across all machines (Accelerate's meaning); this machine runs numProcesses / numMachines.
  int numProcesses = 1;
  /// Machines in the run (each runs its own `fathom launch`).
  int numMachines = 1;
  /// This machine's index, 0-based; rank = machineRank * (numProcesses / numMachines) + localRank.
  int machineRank = 0;
  /// Where rank 0's rendezvous store listens. Empty = 127.0.0.1 (required with more than one machine).
  std::string mainProcessIp;
  /// 0 = a free port chosen on this machine (single machine only). Accelerate's default is 29500.
  std::uint16_t mainProcessPort = 0;
  /// ACCELERATE_MIXED_PRECISION, always set.
  MixedPrecision mixedPrecision = MixedPrecision::No;
  /// Sets ACCELERATE_GRADIENT_ACCUMULATION_STEPS, which overrides the program's own setting (Accelerate's rule),
  /// so it is only set when given.
  std::optional<int> gradientAccumulationSteps;
  /// --cpu: ACCELERATE_USE_CPU=True, no CUDA device is used.
  bool cpu = false;
  /// --use_fsdp: ACCELERATE_USE_FSDP=true and the FSDP_* variables.
  bool useFsdp = false;
  /// --use_deepspeed: ACCELERATE_USE_DEEPSPEED=true and ACCELERATE_DEEPSPEED_ZERO_STAGE.
  bool useDeepSpeed = false;
  /// distributed_type MEGATRON_LM in the config file: ACCELERATE_USE_MEGATRON_LM=true (no flag: Fathom does not
  /// take Accelerate's --megatron_lm_* flags; the MEGATRON_LM_* variables come from the environment).
  bool useMegatronLm = false;
  /// --fsdp_* values given (flag key -> value); the rest take FsdpFlag::defaultValue.
  std::map<std::string, std::string> fsdp;
  /// --zero_stage (DeepSpeed); Accelerate's default is 2.
  std::optional<int> zeroStage;
  /// --offload_optimizer_device / --offload_param_device (DeepSpeed, "none", "cpu" or "nvme"): set as
  /// ACCELERATE_DEEPSPEED_OFFLOAD_OPTIMIZER_DEVICE / _PARAM_DEVICE when given, as Accelerate's launcher does.
  std::optional<std::string> offloadOptimizerDevice;
  std::optional<std::string> offloadParamDevice;
  /// --num_cpu_threads_per_process: OMP_NUM_THREADS for every worker. Unset: keep the launcher's OMP_NUM_THREADS,
  /// or 1 when it is unset and this machine runs more than one process (torchrun's rule).
  std::optional<int> numCpuThreadsPerProcess;
  /// Restart the whole group up to this many times after a failure (not after Ctrl-C / SIGTERM).
  int maxRestarts = 0;
  /// How often the launcher checks its workers when nothing else wakes it (Accelerate's default 0.1 s).
  std::chrono::milliseconds monitorInterval{100};
  /// Which streams go to per-rank log files; std::nullopt = both when logDir is set.
  std::optional<TeeStreams> tee;
  /// Per-rank logs: <logDir>/attempt_<n>/rank_<r>/{stdout,stderr}.log. Empty = console only.
  std::filesystem::path logDir;
  /// Only the failure line, no launcher notes and no log tail.
  bool quiet = false;
  /// The workers' stdout lines go to the launcher's stderr too, leaving its stdout to a program that reads it
  /// (`fathom launch --json` writes its JSON lines there).
  bool workerStdoutToStderr = false;
  /// ACCELERATE_DEBUG_MODE=true in the workers, and the launcher says what it sets and sends.
  bool debug = false;
  /// --gpu_ids / gpu_ids: CUDA_VISIBLE_DEVICES for every worker ("0,1"), as Accelerate's launcher sets it. Empty =
  /// all devices (the variable is left as the launcher's environment has it).
  std::string gpuIds;
  /// FATHOM_* variables every worker gets: the run specification's fathom.trackers, project_dir, logging_dir and
  /// profiler.* (launchOptionsFromRunSpec), which `fathom train` reads below its own flags.
  std::vector<std::pair<std::string, std::string>> fathomVariables;
  /// The run specification these options were made from, as Accelerate YAML with every key written
  /// (launchOptionsFromRunSpec); the launcher records it with the run. Empty for options built in code.
  std::string runSpec;
  /// After SIGTERM, how long workers get before SIGKILL.
  std::chrono::milliseconds terminateGracePeriod{5000};
  /// How many of a failed rank's last output lines the failure report shows.
  int tailLines = 20;
};

/// What the workers are told for the --fsdp_* flag `key` under --use_fsdp: the value given, else Accelerate's
/// default; nothing when neither (or `key` is not such a flag).
std::optional<std::string> fsdpValue(const LaunchOptions& options, std::string_view key);

/// Throws ConfigError naming the first invalid field and its value (the flag spelling, e.g. "--num_processes").
void validate(const LaunchOptions& options);

}  // namespace fathom::launch
