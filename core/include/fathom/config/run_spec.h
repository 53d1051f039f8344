// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/config/accelerate_config.h>
#include <fathom/config/config_resolver.h>
#include <fathom/config/monitor_spec.h>
#include <fathom/config/vocabulary.h>
#include <fathom/plan/model_spec.h>
#include <fathom/plan/training_plan.h>

#include <filesystem>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace fathom::config {

/// Accelerate's fsdp_config. Unset keys stay unset (the launcher then applies Accelerate's launch defaults).
struct FsdpSpec {
  std::optional<int> version;                            ///< fsdp_version: 1 or 2
  std::optional<FsdpShardingStrategy> shardingStrategy;  ///< fsdp_sharding_strategy
  /// fsdp_reshard_after_forward: FSDP2's bool, or (FSDP1, as Accelerate's questionnaire writes it) a strategy.
  std::optional<std::variant<bool, FsdpShardingStrategy>> reshardAfterForward;
  std::optional<bool> offloadParams;                     ///< fsdp_offload_params
  std::optional<FsdpWrapPolicy> autoWrapPolicy;          ///< fsdp_auto_wrap_policy
  std::optional<std::string> transformerLayerClsToWrap;  ///< fsdp_transformer_layer_cls_to_wrap (comma-separated)
  std::optional<std::int64_t> minNumParams;              ///< fsdp_min_num_params
  std::optional<FsdpBackwardPrefetch> backwardPrefetch;  ///< fsdp_backward_prefetch
  std::optional<FsdpStateDictType> stateDictType;        ///< fsdp_state_dict_type
  std::optional<bool> forwardPrefetch;                   ///< fsdp_forward_prefetch
  std::optional<bool> useOrigParams;                     ///< fsdp_use_orig_params
  std::optional<bool> cpuRamEfficientLoading;            ///< fsdp_cpu_ram_efficient_loading
  std::optional<bool> syncModuleStates;                  ///< fsdp_sync_module_states
  std::optional<bool> activationCheckpointing;           ///< fsdp_activation_checkpointing

  /// The strategy `fathom launch` and the FSDP engine run: fsdp_sharding_strategy (the launcher's default
  /// FULL_SHARD when unset), turned into SHARD_GRAD_OP by an FSDP2 `fsdp_reshard_after_forward: false`
  /// (parallel::fsdpOptionsFromEnvironment reads the launcher's variables the same way).
  FsdpShardingStrategy effectiveShardingStrategy() const;
  bool operator==(const FsdpSpec&) const = default;
};

/// Accelerate's deepspeed_config (Fathom's ZeRO engine reads the DeepSpeed names).
struct DeepSpeedSpec {
  std::optional<std::string> configFile;  ///< deepspeed_config_file (DeepSpeed's JSON; not read by Fathom)
  std::optional<ZeroStage> zeroStage;     ///< zero_stage (the launcher's default is 2)
  std::optional<OffloadDevice> offloadOptimizerDevice;  ///< offload_optimizer_device
  std::optional<OffloadDevice> offloadParamDevice;      ///< offload_param_device
  std::optional<int> gradientAccumulationSteps;         ///< gradient_accumulation_steps
  std::optional<double> gradientClipping;               ///< gradient_clipping
  std::optional<bool> zero3InitFlag;                    ///< zero3_init_flag
  std::optional<bool> zero3Save16bitModel;              ///< zero3_save_16bit_model
  bool operator==(const DeepSpeedSpec&) const = default;
};

/// `fathom.profiler`: what `fathom train` records under `fathom launch` (the launcher passes it as FATHOM_PROFILER__*).
struct ProfilerSpec {
  std::optional<bool> enabled;                ///< enabled
  std::vector<ProfilerActivity> activities;   ///< activities; empty = unset (CPU, and CUDA where it can trace)
  std::optional<bool> recordShapes;           ///< record_shapes
  std::optional<bool> profileMemory;          ///< profile_memory
  std::optional<bool> withStack;              ///< with_stack
  std::optional<bool> withFlops;              ///< with_flops
  std::optional<bool> withModules;            ///< with_modules
  std::optional<int> scheduleSkipFirst;       ///< schedule_skip_first
  std::optional<int> scheduleWait;            ///< schedule_wait
  std::optional<int> scheduleWarmup;          ///< schedule_warmup
  std::optional<int> scheduleActive;          ///< schedule_active
  std::optional<int> scheduleRepeat;          ///< schedule_repeat
  std::optional<std::string> outputTraceDir;  ///< output_trace_dir
  bool operator==(const ProfilerSpec&) const = default;
};

/// `fathom.planner`: the planner's inputs Accelerate's keys do not carry, spelled as `fathom plan`'s flags.
struct PlannerSpec {
  std::optional<std::string> model;     ///< model: a built-in model name
  std::optional<std::string> hfConfig;  ///< hf_config: a config.json (relative to the file that named it)
  std::optional<double> params;         ///< params: a bare parameter count
  std::optional<plan::Arch> arch;       ///< arch: gpt, llama, bert, t5 (with the dimensions below)
  std::optional<std::int64_t> layers, decoderLayers, hidden, heads, kvHeads, headDim, ffnHidden, vocab, maxPositions,
      numExperts, expertsPerToken;                       ///< transformer dimensions (`fathom plan --layers` ...)
  std::optional<bool> tiedEmbeddings;                    ///< tied_embeddings
  std::optional<std::string> hardware;                   ///< hardware: a preset name or a file (relative to the file)
  std::optional<int> gpusPerNode;                        ///< gpus_per_node
  std::optional<int> microBatch;                         ///< micro_batch
  std::optional<std::int64_t> seq;                       ///< seq
  std::optional<int> gradientAccumulationSteps;          ///< gradient_accumulation_steps
  std::optional<plan::MasterWeights> masterWeights;      ///< master_weights
  std::optional<plan::Optimizer> optimizer;              ///< optimizer
  std::optional<plan::Recompute> recompute;              ///< recompute
  std::optional<bool> flashAttention;                    ///< flash_attention
  std::optional<plan::BytesConvention> bytesConvention;  ///< bytes_convention
  std::optional<plan::GradSync> gradSync;                ///< grad_sync
  bool operator==(const PlannerSpec&) const = default;
};

/// Fathom's `fathom:` section.
struct FathomSpec {
  std::vector<std::string> command;       ///< command: what the Studio launches after `fathom launch --config_file F`
  std::optional<std::string> workspace;   ///< workspace: the SQLite workspace file
  std::vector<Tracker> trackers;          ///< trackers (empty = unset; the workspace's sqlite is always on)
  std::optional<std::string> projectDir;  ///< project_dir
  std::optional<std::string> loggingDir;  ///< logging_dir
  std::vector<std::string> hosts;         ///< hosts, in rank order
  std::optional<std::string> hostfile;    ///< hostfile
  std::optional<Launcher> launcher;       ///< launcher
  std::optional<std::string> sshUser;     ///< ssh_user
  std::optional<std::string> sshConfig;   ///< ssh_config: `ssh -F FILE` for an ssh launch
  /// slurm_partition, slurm_time, slurm_account: the job `fathom launch` submits for `launcher: slurm` outside an
  /// allocation (sbatch's --partition, --time, --account; unset: the cluster's defaults).
  std::optional<std::string> slurmPartition;
  std::optional<std::string> slurmTime;
  std::optional<std::string> slurmAccount;
  MonitorSpec monitor;    ///< hang_timeout, straggler_threshold, hang_action (the run monitor)
  ProfilerSpec profiler;  ///< profiler.*
  PlannerSpec planner;    ///< planner.*
  bool operator==(const FathomSpec&) const = default;
};

/// One run's configuration, typed: Accelerate's keys that Fathom acts on plus the `fathom:` section. Built once from
/// the resolved configuration (runSpecFromConfig(resolveConfig(...)), so every command applies the same precedence:
/// code > command line > environment > file > defaults) and read by the launcher (launch::launchOptionsFromRunSpec),
/// the planner (plan::planFromRunSpec), `fathom config` and the Studio's wizard, which edits it field by field and
/// writes YAML only when saving (toConfig()).
///
/// Invariants: every value passed the schema (config_schema.h) and the checks of runSpecFromConfig(); enumerations are
/// enums, never strings. Top-level keys with an Accelerate default hold it; sub-dict keys that are unset stay
/// std::nullopt, so toConfig() writes back exactly the keys that were set. Keys the spec has no field for
/// (megatron_lm_config, fp8_config, tpu_*, ...) live only in the AccelerateConfig the spec was read from, which
/// toConfig() takes as its base.
struct RunSpec {
  // --- top level ---------------------------------------------------------------------------------------------------
  DistributedType distributedType = DistributedType::No;  ///< distributed_type
  /// num_processes over all machines; std::nullopt is Accelerate's -1 "not set" (the launcher then runs one).
  std::optional<int> numProcesses;
  int numMachines = 1;                       ///< num_machines
  int machineRank = 0;                       ///< machine_rank
  std::optional<std::string> mainProcessIp;  ///< main_process_ip (the launcher's default is 127.0.0.1)
  std::optional<int> mainProcessPort;        ///< main_process_port; 0 = a free port on this machine
  bool useCpu = false;                       ///< use_cpu
  bool debug = false;                        ///< debug
  /// gpu_ids: the CUDA devices this machine's processes may use (CUDA_VISIBLE_DEVICES). std::nullopt: unset; an
  /// empty list is Accelerate's `all`; both leave every device visible.
  std::optional<std::vector<int>> gpuIds;
  MixedPrecision mixedPrecision = MixedPrecision::No;  ///< mixed_precision
  DynamoBackend dynamoBackend = DynamoBackend::No;     ///< dynamo_config.dynamo_backend
  /// gradient_accumulation_steps (a launch flag and ACCELERATE_GRADIENT_ACCUMULATION_STEPS, not a file key):
  /// std::nullopt unless given, because the variable the launcher sets for it overrides the program's own value.
  std::optional<int> gradientAccumulationSteps;

  FsdpSpec fsdp;            ///< fsdp_config
  DeepSpeedSpec deepspeed;  ///< deepspeed_config
  FathomSpec fathom;        ///< fathom

  /// Where each value came from, by key path ("mixed_precision" -> its ResolvedValue), when the spec was built from
  /// an EffectiveConfig; empty for a spec built in code or from a file alone.
  std::map<std::string, ResolvedValue, std::less<>> provenance;
  /// What the user should know about the configuration (the resolver's notes, settings Fathom ignores).
  std::vector<std::string> notes;
  /// The directory of the file the configuration was read from (empty: none). Relative paths that came from that
  /// file (fathom.planner.hf_config, fathom.planner.hardware) are relative to it.
  std::filesystem::path fileDirectory;

  /// "origin" of `path` for messages: "--num_processes", "ACCELERATE_MIXED_PRECISION", "a.yaml:3:18", or the key
  /// path itself when the spec has no provenance for it.
  std::string originOf(std::string_view path) const;
  /// Where `path` came from; ValueSource::Code when the spec has no provenance for it (it was set in code).
  ValueSource sourceOf(std::string_view path) const;

  /// Equal settings (provenance and notes are not compared).
  bool operator==(const RunSpec& other) const;
};

/// The spec of an effective configuration, with its provenance and notes. Checks at the front door what the schema
/// cannot (ConfigError naming the key, its origin and the value): num_processes 0 or below -1, a machine_rank outside
/// [0, num_machines), gpu_ids that are not `all` or a list of device numbers.
RunSpec runSpecFromConfig(const EffectiveConfig& effective);
/// The spec of a configuration as a file holds it (no precedence applied, no provenance): what the wizard and
/// `fathom config update` edit. Same checks.
RunSpec runSpecFromConfig(const AccelerateConfig& config);

/// The `fathom` section's settings for a worker, from the environment alone: FATHOM_TRACKERS, FATHOM_PROJECT_DIR,
/// FATHOM_LOGGING_DIR and FATHOM_PROFILER__* (what launch::launchOptionsFromRunSpec() passes to the workers; no file
/// is read, no other variable is looked at). `environment`: std::nullopt reads the process's. ConfigError names the
/// variable whose value the schema refuses.
FathomSpec workerSettingsFromEnvironment(std::optional<std::map<std::string, std::string>> environment = std::nullopt);

/// Which top-level keys toConfig() writes when they hold Accelerate's default.
enum class DefaultKeys {
  AsInBase,  ///< only those `base` has, so a file read and written again keeps its shape
  Write,     ///< all of them (distributed_type, mixed_precision, use_cpu, debug, num_machines, machine_rank,
             ///< num_processes), as `accelerate config` writes a new file
};

/// The configuration file for `spec`: `base` (the file that was opened, else empty) with every key the spec has a
/// field for replaced by the spec's value, or removed when the field is unset (top-level keys: see DefaultKeys);
/// every other key of `base` is kept. Throws ConfigError when the schema refuses a value.
AccelerateConfig toConfig(const RunSpec& spec, const AccelerateConfig& base = {},
                          DefaultKeys defaults = DefaultKeys::AsInBase);

/// `gpu_ids` as Accelerate writes it: "all" for an empty list, else "0,1,3".
std::string gpuIdsText(const std::vector<int>& ids);

}  // namespace fathom::config
