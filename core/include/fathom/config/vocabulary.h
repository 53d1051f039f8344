// SPDX-License-Identifier: Apache-2.0
// The run configuration's vocabulary: one enum and one name table per concept. The YAML schema's allowed values
// (config_schema.cpp), the engines' and the planner's option parsers, the CLI flags' choices and help, `fathom
// config`'s questions and the wizard's combo boxes all come from these tables; docs/config.md lists them.
#pragma once

#include <fathom/common/name_table.h>

#include <array>

namespace fathom::config {

/// Accelerate's DistributedType (utils/dataclasses.py), the config key `distributed_type`.
enum class DistributedType {
  No,
  MultiCpu,
  MultiGpu,
  MultiNpu,
  MultiMlu,
  MultiSdaa,
  MultiMusa,
  MultiXpu,
  MultiHpu,
  MultiNeuron,
  DeepSpeed,
  Fsdp,
  Xla,
  MegatronLm

};

/// Case-sensitive, as Accelerate's enum.
inline constexpr NameTable kDistributedTypes{
    "distributed_type", NameMatch::Exact,
    std::array{
        NamedValue<DistributedType>{DistributedType::No, "NO", "one process, no distributed training"},
        NamedValue<DistributedType>{DistributedType::MultiCpu, "MULTI_CPU", "data parallel on CPUs (Gloo)"},
        NamedValue<DistributedType>{DistributedType::MultiGpu, "MULTI_GPU", "data parallel on GPUs (DDP)"},
        NamedValue<DistributedType>{DistributedType::MultiNpu, "MULTI_NPU", "Ascend NPUs", false},
        NamedValue<DistributedType>{DistributedType::MultiMlu, "MULTI_MLU", "Cambricon MLUs", false},
        NamedValue<DistributedType>{DistributedType::MultiSdaa, "MULTI_SDAA", "Tecorigin SDAAs", false},
        NamedValue<DistributedType>{DistributedType::MultiMusa, "MULTI_MUSA", "Moore Threads MUSA GPUs", false},
        NamedValue<DistributedType>{DistributedType::MultiXpu, "MULTI_XPU", "Intel XPUs", false},
        NamedValue<DistributedType>{DistributedType::MultiHpu, "MULTI_HPU", "Intel Gaudi HPUs", false},
        NamedValue<DistributedType>{DistributedType::MultiNeuron, "MULTI_NEURON", "AWS Neuron devices", false},
        NamedValue<DistributedType>{DistributedType::DeepSpeed, "DEEPSPEED",
                                    "ZeRO stage 1-3 (Fathom's engine, DeepSpeed's config names)"},
        NamedValue<DistributedType>{DistributedType::Fsdp, "FSDP", "fully sharded data parallel"},
        NamedValue<DistributedType>{DistributedType::Xla, "XLA", "TPUs through torch_xla", false},
        NamedValue<DistributedType>{DistributedType::MegatronLm, "MEGATRON_LM",
                                    "Megatron-LM tensor and pipeline parallelism (not in Fathom's trainer)", false},
    }};

/// torch.distributed.fsdp.ShardingStrategy, the config key `fsdp_config.fsdp_sharding_strategy` (1-based numbers
/// as older Accelerate configs write them).
enum class FsdpShardingStrategy {
  FullShard,         ///< parameters, gradients and optimizer states sharded; parameters freed after forward
  ShardGradOp,       ///< as FullShard, but parameters stay gathered from forward to backward (ZeRO-2)
  NoShard,           ///< replicated, as DDP
  HybridShard,       ///< FullShard inside a shard group (a node), replicated across groups
  HybridShardZero2,  ///< ShardGradOp inside a shard group, replicated across groups (torch's _HYBRID_SHARD_ZERO2)
};

inline constexpr NameTable kFsdpShardingStrategies{
    "fsdp_sharding_strategy", NameMatch::Lenient,
    std::array{
        NamedValue<FsdpShardingStrategy>{FsdpShardingStrategy::FullShard,
                                         "FULL_SHARD",
                                         "shard parameters, gradients and optimizer states (ZeRO-3)",
                                         true,
                                         {"1"}},
        NamedValue<FsdpShardingStrategy>{FsdpShardingStrategy::ShardGradOp,
                                         "SHARD_GRAD_OP",
                                         "shard gradients and optimizer states, keep parameters gathered from forward "
                                         "to backward (ZeRO-2)",
                                         true,
                                         {"2"}},
        NamedValue<FsdpShardingStrategy>{
            FsdpShardingStrategy::NoShard, "NO_SHARD", "replicate everything, as DDP", true, {"3"}},
        NamedValue<FsdpShardingStrategy>{FsdpShardingStrategy::HybridShard,
                                         "HYBRID_SHARD",
                                         "FULL_SHARD within a node, replicated across nodes",
                                         true,
                                         {"4"}},
        NamedValue<FsdpShardingStrategy>{FsdpShardingStrategy::HybridShardZero2,
                                         "HYBRID_SHARD_ZERO2",
                                         "SHARD_GRAD_OP within a node, replicated across nodes",
                                         true,
                                         {"5", "_HYBRID_SHARD_ZERO2"}},
    }};

/// HYBRID_SHARD and HYBRID_SHARD_ZERO2: sharded within a shard group (a node), replicated across the groups, whose
/// shard gradients are all-reduced after the group's reduce-scatter.
constexpr bool isHybrid(FsdpShardingStrategy s) {
  return s == FsdpShardingStrategy::HybridShard || s == FsdpShardingStrategy::HybridShardZero2;
}
/// FULL_SHARD and HYBRID_SHARD free a unit's parameters after its forward (and gather them again in backward);
/// SHARD_GRAD_OP and HYBRID_SHARD_ZERO2 keep them gathered until its gradients are reduced (torch FSDP's
/// reshard_after_forward). NO_SHARD never shards.
constexpr bool reshardsAfterForward(FsdpShardingStrategy s) {
  return s == FsdpShardingStrategy::FullShard || s == FsdpShardingStrategy::HybridShard;
}

/// Accelerate's fsdp_auto_wrap_policy: which modules become FSDP (or ZeRO-3) units.
enum class FsdpWrapPolicy {
  TransformerBased,  ///< every module of the listed block classes (TRANSFORMER_BASED_WRAP)
  SizeBased,         ///< blocks holding >= fsdp_min_num_params parameters (SIZE_BASED_WRAP)
  NoWrap,            ///< one unit: the whole model (NO_WRAP)
};

inline constexpr NameTable kFsdpWrapPolicies{
    "fsdp_auto_wrap_policy", NameMatch::Lenient,
    std::array{
        NamedValue<FsdpWrapPolicy>{FsdpWrapPolicy::TransformerBased,
                                   "TRANSFORMER_BASED_WRAP",
                                   "one unit per transformer block (the model's own block type by default)",
                                   true,
                                   {"transformer"}},
        NamedValue<FsdpWrapPolicy>{FsdpWrapPolicy::SizeBased,
                                   "SIZE_BASED_WRAP",
                                   "one unit per block holding at least fsdp_min_num_params parameters",
                                   true,
                                   {"size"}},
        NamedValue<FsdpWrapPolicy>{FsdpWrapPolicy::NoWrap, "NO_WRAP", "one unit: the whole model", true, {"none"}},
    }};

/// torch.distributed.fsdp.BackwardPrefetch (plus Accelerate's NO_PREFETCH).
enum class FsdpBackwardPrefetch {
  BackwardPre,   ///< before the current unit's gradient computation (more memory, most overlap)
  BackwardPost,  ///< after the current unit's gradients are computed
  NoPrefetch,    ///< only when the next unit's backward starts
};

inline constexpr NameTable kFsdpBackwardPrefetches{
    "fsdp_backward_prefetch", NameMatch::Lenient,
    std::array{
        NamedValue<FsdpBackwardPrefetch>{FsdpBackwardPrefetch::BackwardPre,
                                         "BACKWARD_PRE",
                                         "gather the next unit before this unit's gradients (most overlap)",
                                         true,
                                         {"1"}},
        NamedValue<FsdpBackwardPrefetch>{FsdpBackwardPrefetch::BackwardPost,
                                         "BACKWARD_POST",
                                         "gather the next unit after this unit's gradients",
                                         true,
                                         {"2"}},
        NamedValue<FsdpBackwardPrefetch>{FsdpBackwardPrefetch::NoPrefetch, "NO_PREFETCH",
                                         "gather each unit when its backward starts"},
    }};

/// Accelerate's fsdp_state_dict_type: how checkpoints are laid out.
enum class FsdpStateDictType {
  FullStateDict,     ///< unflattened, unpadded full tensors, gathered on rank 0
  LocalStateDict,    ///< torch's flat local shards (Fathom does not write them)
  ShardedStateDict,  ///< each rank saves its own shards plus the metadata to reassemble them
};

inline constexpr NameTable kFsdpStateDictTypes{
    "fsdp_state_dict_type", NameMatch::Lenient,
    std::array{
        NamedValue<FsdpStateDictType>{
            FsdpStateDictType::FullStateDict, "FULL_STATE_DICT", "full tensors gathered on rank 0", true, {"1"}},
        NamedValue<FsdpStateDictType>{FsdpStateDictType::LocalStateDict,
                                      "LOCAL_STATE_DICT",
                                      "torch's flat local shards; use FULL_STATE_DICT or SHARDED_STATE_DICT",
                                      false,
                                      {"2"}},
        NamedValue<FsdpStateDictType>{
            FsdpStateDictType::ShardedStateDict, "SHARDED_STATE_DICT", "each rank writes its own shards", true, {"3"}},
    }};

/// DeepSpeed's ZeRO stage, the config key `deepspeed_config.zero_stage` (an integer in the file).
enum class ZeroStage {
  Disabled = 0,         ///< stage 0: plain data parallelism
  OptimizerStates = 1,  ///< stage 1: optimizer states partitioned
  Gradients = 2,        ///< stage 2: gradients too
  Parameters = 3,       ///< stage 3: parameters too
};

inline constexpr NameTable kZeroStages{
    "zero_stage", NameMatch::Exact,
    std::array{
        NamedValue<ZeroStage>{ZeroStage::Disabled, "0", "no partitioning: use DDP (Fathom's ZeRO starts at stage 1)",
                              false},
        NamedValue<ZeroStage>{ZeroStage::OptimizerStates, "1", "partition optimizer states"},
        NamedValue<ZeroStage>{ZeroStage::Gradients, "2", "partition optimizer states and gradients"},
        NamedValue<ZeroStage>{ZeroStage::Parameters, "3", "partition optimizer states, gradients and parameters"},
    }};

/// DeepSpeed's offload_optimizer.device / offload_param.device.
enum class OffloadDevice { None, Cpu, Nvme };

inline constexpr NameTable kOffloadDevices{
    "offload device", NameMatch::Lenient,
    std::array{
        NamedValue<OffloadDevice>{OffloadDevice::None, "none", "keep it on the accelerator"},
        NamedValue<OffloadDevice>{OffloadDevice::Cpu, "cpu", "host memory"},
        NamedValue<OffloadDevice>{OffloadDevice::Nvme, "nvme",
                                  "NVMe storage (ZeRO-Infinity; Fathom offloads to host memory only)", false},
    }};

/// Accelerate's PrecisionType, the config key `mixed_precision`. The planner reads No as "everything in fp32"
/// and spells it fp32 (plan::toString(Precision)).
enum class MixedPrecision {
  No,    ///< full precision (float32)
  Fp16,  ///< autocast to float16 with a gradient scaler
  Bf16,  ///< autocast to bfloat16
  Fp8,   ///< fp8 through TransformerEngine / torchao / MS-AMP (no fp8 backend in Fathom)
  /// The planner's name for No.
  Fp32 = No,
};

inline constexpr NameTable kMixedPrecisions{
    "mixed_precision", NameMatch::Lenient,
    std::array{
        NamedValue<MixedPrecision>{MixedPrecision::No, "no", "float32 throughout"},
        NamedValue<MixedPrecision>{MixedPrecision::Fp16, "fp16", "float16 autocast with a gradient scaler"},
        NamedValue<MixedPrecision>{MixedPrecision::Bf16, "bf16", "bfloat16 autocast"},
        NamedValue<MixedPrecision>{MixedPrecision::Fp8, "fp8",
                                   "fp8 needs TransformerEngine, torchao or MS-AMP; Fathom has no fp8 backend", false},
    }};

/// torch.compile's backend, the config key `dynamo_config.dynamo_backend` (Accelerate's DynamoBackend).
/// LibTorch's C++ API has no torch.compile: Fathom runs every model eagerly, so only `no` is supported.
enum class DynamoBackend {
  No,
  Eager,
  AotEager,
  Inductor,
  AotTsNvfuser,
  NvprimsNvfuser,
  Cudagraphs,
  Ofi,
  Fx2trt,
  Onnxrt,
  Tensorrt,
  AotTorchxlaTraceOnce,
  TorchxlaTraceOnce,
  Tvm,
  HpuBackend,
  Neuron

};

inline constexpr NameTable kDynamoBackends{
    "dynamo_backend", NameMatch::Lenient,
    std::array{
        NamedValue<DynamoBackend>{DynamoBackend::No, "no", "run the model eagerly"},
        NamedValue<DynamoBackend>{DynamoBackend::Eager, "eager", "torch.compile (not in LibTorch C++)", false},
        NamedValue<DynamoBackend>{DynamoBackend::AotEager, "aot_eager", "torch.compile (not in LibTorch C++)", false},
        NamedValue<DynamoBackend>{DynamoBackend::Inductor, "inductor", "torch.compile (not in LibTorch C++)", false},
        NamedValue<DynamoBackend>{DynamoBackend::AotTsNvfuser, "aot_ts_nvfuser", "torch.compile (not in LibTorch C++)",
                                  false},
        NamedValue<DynamoBackend>{DynamoBackend::NvprimsNvfuser, "nvprims_nvfuser",
                                  "torch.compile (not in LibTorch C++)", false},
        NamedValue<DynamoBackend>{DynamoBackend::Cudagraphs, "cudagraphs", "torch.compile (not in LibTorch C++)",
                                  false},
        NamedValue<DynamoBackend>{DynamoBackend::Ofi, "ofi", "torch.compile (not in LibTorch C++)", false},
        NamedValue<DynamoBackend>{DynamoBackend::Fx2trt, "fx2trt", "torch.compile (not in LibTorch C++)", false},
        NamedValue<DynamoBackend>{DynamoBackend::Onnxrt, "onnxrt", "torch.compile (not in LibTorch C++)", false},
        NamedValue<DynamoBackend>{DynamoBackend::Tensorrt, "tensorrt", "torch.compile (not in LibTorch C++)", false},
        NamedValue<DynamoBackend>{DynamoBackend::AotTorchxlaTraceOnce, "aot_torchxla_trace_once",
                                  "torch.compile (not in LibTorch C++)", false},
        NamedValue<DynamoBackend>{DynamoBackend::TorchxlaTraceOnce, "torchxla_trace_once",
                                  "torch.compile (not in LibTorch C++)", false},
        NamedValue<DynamoBackend>{DynamoBackend::Tvm, "tvm", "torch.compile (not in LibTorch C++)", false},
        NamedValue<DynamoBackend>{DynamoBackend::HpuBackend, "hpu_backend", "torch.compile (not in LibTorch C++)",
                                  false},
        NamedValue<DynamoBackend>{DynamoBackend::Neuron, "neuron", "torch.compile (not in LibTorch C++)", false},
    }};

/// An experiment tracker: the config key `fathom.trackers` (Accelerate's log_with). Supported ones are the
/// trackers Fathom implements (track/tracker_registry.h registers them under these names).
enum class Tracker {
  All,
  Tensorboard,
  Wandb,
  Trackio,
  CometMl,
  Aim,
  Mlflow,
  Clearml,
  Dvclive,
  Swanlab,
  Sqlite,
  Csv,
  Jsonl

};

/// Accelerate's LoggerType order, then Fathom's own file trackers.
inline constexpr NameTable kTrackers{
    "tracker", NameMatch::Lenient,
    std::array{
        NamedValue<Tracker>{Tracker::All, "all", "every tracker Fathom implements"},
        NamedValue<Tracker>{Tracker::Tensorboard, "tensorboard", "TensorBoard event files"},
        NamedValue<Tracker>{Tracker::Wandb, "wandb", "Weights & Biases needs its Python client", false},
        NamedValue<Tracker>{Tracker::Trackio, "trackio", "Trackio needs its Python client", false},
        NamedValue<Tracker>{Tracker::CometMl, "comet_ml", "Comet needs its Python client", false},
        NamedValue<Tracker>{Tracker::Aim, "aim", "Aim needs its Python client", false},
        NamedValue<Tracker>{Tracker::Mlflow, "mlflow", "an MLflow file store (mlruns/)"},
        NamedValue<Tracker>{Tracker::Clearml, "clearml", "ClearML needs its Python client", false},
        NamedValue<Tracker>{Tracker::Dvclive, "dvclive", "DVCLive files (dvclive/)"},
        NamedValue<Tracker>{Tracker::Swanlab, "swanlab", "SwanLab needs its Python client", false},
        NamedValue<Tracker>{Tracker::Sqlite, "sqlite", "the workspace (always on)"},
        NamedValue<Tracker>{Tracker::Csv, "csv", "one CSV file of metrics"},
        NamedValue<Tracker>{Tracker::Jsonl, "jsonl", "one JSON-lines file of metrics"},
    }};

/// How agents start on the hosts of a multi-machine run: the config key `fathom.launcher`.
enum class Launcher { Local, Ssh, Slurm };

inline constexpr NameTable kLaunchers{
    "launcher", NameMatch::Exact,
    std::array{
        NamedValue<Launcher>{Launcher::Local, "local", "`fathom launch` on each machine"},
        NamedValue<Launcher>{Launcher::Ssh, "ssh", "agents started over ssh (`fathom launch --hosts`)"},
        NamedValue<Launcher>{Launcher::Slurm, "slurm", "agents started by srun (`fathom launch --slurm`)"},
    }};

/// What `fathom launch` does when its run monitor reports a hang: the config key `fathom.hang_action`, the flag
/// `--hang_action` (docs/launch.md, "Hang and straggler detection").
enum class HangAction { Report, Abort };

inline constexpr NameTable kHangActions{
    "hang action", NameMatch::Exact,
    std::array{
        NamedValue<HangAction>{HangAction::Report, "report", "record and print the hang; the run goes on"},
        NamedValue<HangAction>{HangAction::Abort, "abort",
                               "record and print the hang, then stop the group (the run ends failed)"},
    }};

/// What the profiler records: the config key `fathom.profiler.activities`.
enum class ProfilerActivity { Cpu, Cuda };

inline constexpr NameTable kProfilerActivities{
    "profiler activity", NameMatch::Lenient,
    std::array{
        NamedValue<ProfilerActivity>{ProfilerActivity::Cpu, "cpu", "ATen operators and Fathom's spans"},
        NamedValue<ProfilerActivity>{ProfilerActivity::Cuda, "cuda", "GPU kernels and copies through CUPTI"},
    }};

}  // namespace fathom::config
