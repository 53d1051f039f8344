// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/config/vocabulary.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace fathom::plan {

/// Data-parallel strategy (`fathom plan --strategy`, `fathom train --strategy`). FSDP's flavour is
/// Plan::fsdpSharding.
enum class Strategy { Ddp, Fsdp, Zero1, Zero2, Zero3 };
/// torch.distributed.fsdp.ShardingStrategy: the run configuration's vocabulary (config/vocabulary.h), so a run and
/// its plan name the same thing. HybridShardZero2 is torch's _HYBRID_SHARD_ZERO2 (Accelerate's HYBRID_SHARD_ZERO2):
/// SHARD_GRAD_OP inside the shard group, replicated across groups.
using FsdpSharding = config::FsdpShardingStrategy;

// isHybrid() and reshardsAfterForward() are the vocabulary's (config/vocabulary.h), found through the alias.
/// Accelerate's fsdp_auto_wrap_policy: which repeated blocks become FSDP / ZeRO-3 units (the rest is the root unit).
/// SizeBased compares with Plan::fsdpMinNumParams.
using FsdpWrap = config::FsdpWrapPolicy;
/// Compute precision of matmuls and activations: Accelerate's mixed_precision, whose `no` the planner calls Fp32.
using Precision = config::MixedPrecision;
/// Where the fp32 copy of the weights lives in mixed precision.
enum class MasterWeights {
  Fp32Copy,  ///< low-precision params + a separate fp32 master copy (Megatron, DeepSpeed, Apex O2)
  None,      ///< pure low-precision training: params, grads and optimizer states in the low dtype
  Autocast,  ///< params stay fp32, matmuls run in the low dtype (torch.autocast, Accelerate's mixed_precision)
};
/// Optimizer; decides the per-parameter state.
enum class Optimizer { Adam, AdamW, Sgd, SgdMomentum, Adafactor };
/// Activation recomputation (Korthikanti et al. 2022).
enum class Recompute { None, Selective, Full };
/// Bytes per parameter for model states: the literature disagrees, so the convention is explicit.
enum class BytesConvention {
  Zero,       ///< ZeRO paper §3.1: 2 param + 2 grad + 12 optimizer (4 master + 8 Adam) = 16
  Megatron,   ///< Megatron-LM / HF anatomy: bf16 params, fp32 main grads: 18 (20 for fp16)
  DeepSpeed,  ///< DeepSpeed's estimate_zero{2,3}_model_states_mem_needs (grads 2+4, 1.5x host buffers)
};
/// When gradients are reduced under gradient accumulation.
enum class GradSync {
  Auto,            ///< DeepSpeed ZeRO: every micro-step; DDP and FSDP: once per step (Accelerate's accumulate()
                   ///< wraps the other micro-steps in no_sync)
  EveryMicroStep,  ///< reduce after every backward
  OncePerStep,     ///< no_sync on all but the last micro-step (keeps unsharded gradients for sharded strategies)
};

/// The planner's own vocabulary: `fathom plan`'s and `fathom train`'s flags, plan files and the `fathom.planner`
/// section of a configuration (config_schema.cpp takes its allowed values from here).
inline constexpr NameTable kStrategies{
    "strategy", NameMatch::Lenient,
    std::array{
        NamedValue<Strategy>{Strategy::Ddp, "ddp", "replicated data parallel", true, {"multi_gpu"}},
        NamedValue<Strategy>{Strategy::Fsdp, "fsdp", "fully sharded data parallel (see fsdp_sharding_strategy)"},
        NamedValue<Strategy>{Strategy::Zero1, "zero1", "ZeRO stage 1: optimizer states partitioned", true, {"zero_1"}},
        NamedValue<Strategy>{Strategy::Zero2, "zero2", "ZeRO stage 2: and gradients", true, {"zero_2"}},
        NamedValue<Strategy>{Strategy::Zero3, "zero3", "ZeRO stage 3: and parameters", true, {"zero_3"}},
    }};
inline constexpr NameTable kMasterWeights{
    "master_weights", NameMatch::Lenient,
    std::array{
        NamedValue<MasterWeights>{
            MasterWeights::Fp32Copy, "fp32", "a separate fp32 master copy", true, {"yes", "true"}},
        NamedValue<MasterWeights>{
            MasterWeights::None, "none", "no fp32 copy: everything in the low dtype", true, {"no", "false"}},
        NamedValue<MasterWeights>{MasterWeights::Autocast, "autocast", "fp32 parameters, low-precision matmuls"},
    }};
inline constexpr NameTable kOptimizers{
    "optimizer", NameMatch::Lenient,
    std::array{
        NamedValue<Optimizer>{Optimizer::Adam, "adam", "two moments per parameter"},
        NamedValue<Optimizer>{Optimizer::AdamW, "adamw", "two moments per parameter"},
        NamedValue<Optimizer>{Optimizer::Sgd, "sgd", "no state"},
        NamedValue<Optimizer>{
            Optimizer::SgdMomentum, "sgd-momentum", "one momentum buffer per parameter", true, {"momentum"}},
        NamedValue<Optimizer>{Optimizer::Adafactor, "adafactor", "factored second moments"},
    }};
inline constexpr NameTable kRecomputes{
    "recompute", NameMatch::Lenient,
    std::array{
        NamedValue<Recompute>{Recompute::None, "none", "keep every activation"},
        NamedValue<Recompute>{Recompute::Selective, "selective", "recompute attention's s² terms"},
        NamedValue<Recompute>{Recompute::Full, "full", "keep only each block's input"},
    }};
inline constexpr NameTable kBytesConventions{
    "bytes_convention", NameMatch::Lenient,
    std::array{
        NamedValue<BytesConvention>{BytesConvention::Zero, "zero", "ZeRO paper: 16 B/param with Adam"},
        NamedValue<BytesConvention>{BytesConvention::Megatron, "megatron", "Megatron-LM: 18 B/param (20 for fp16)"},
        NamedValue<BytesConvention>{BytesConvention::DeepSpeed, "deepspeed", "DeepSpeed's own estimates"},
    }};
inline constexpr NameTable kGradSyncs{
    "grad_sync", NameMatch::Lenient,
    std::array{
        NamedValue<GradSync>{GradSync::Auto, "auto", "ZeRO every micro-step, DDP and FSDP once per step"},
        NamedValue<GradSync>{GradSync::EveryMicroStep, "every_micro_step", "reduce after every backward"},
        NamedValue<GradSync>{GradSync::OncePerStep, "once_per_step", "no_sync on all but the last micro-step"},
    }};

/// One training configuration to evaluate. Defaults: DDP on 1 GPU, bf16 with an fp32 master copy, AdamW, no
/// recomputation, Megatron bytes convention (18 B/param). Accelerate's own DDP mixed precision is
/// MasterWeights::Autocast (fp32 parameters): use it to compare with a `fathom train` run.
struct Plan {
  Strategy strategy = Strategy::Ddp;                    ///< data-parallel strategy
  FsdpSharding fsdpSharding = FsdpSharding::FullShard;  ///< only for Strategy::Fsdp
  int numGpus = 1;                                      ///< world size
  int gpusPerNode = 0;                                  ///< 0 = the hardware preset's value
  bool offloadOptimizer = false;                        ///< optimizer states (and fp32 grads/master) on the CPU
  bool offloadParams = false;                           ///< parameters on the CPU (ZeRO-3 / FSDP)
  int tp = 1;                                           ///< tensor-parallel degree (Megatron)
  int pp = 1;                                           ///< pipeline-parallel degree (1F1B schedule)
  bool sequenceParallel = false;                        ///< Megatron sequence parallelism (needs tp > 1 to matter)
  int microBatch = 1;                                   ///< sequences per micro-batch per data-parallel rank
  int gradAccum = 1;                                    ///< micro-batches per optimizer step
  std::int64_t seqLen = 0;  ///< tokens per sequence; 0 = 2048, capped at a learned position table (gpt, bert)
  Precision precision = Precision::Bf16;                  ///< compute precision
  MasterWeights masterWeights = MasterWeights::Fp32Copy;  ///< ignored for fp32
  Optimizer optimizer = Optimizer::AdamW;                 ///< optimizer
  Recompute recompute = Recompute::None;                  ///< activation recomputation
  bool flashAttention = false;                            ///< fused attention: the s² softmax terms are never stored
  BytesConvention bytes = BytesConvention::Megatron;      ///< model-state bytes convention
  GradSync gradSync = GradSync::Auto;                     ///< gradient-reduction timing under accumulation
  FsdpWrap fsdpWrap = FsdpWrap::TransformerBased;         ///< FSDP / ZeRO-3 units (exact layouts only)
  std::int64_t fsdpMinNumParams = 100'000'000;            ///< SizeBased threshold (fsdp_min_num_params)
  /// ZeRO reduce_bucket_size in elements (DeepSpeed's default 5e8): stage 1-2 buckets (plan::zeroBuckets).
  std::int64_t zeroBucketElements = 500'000'000;
  /// CPU ranks: intra-op threads per process (`--num_cpu_threads_per_process`, OMP_NUM_THREADS); 0 = the launcher's
  /// rule (launch/worker_environment.h): 1 when several processes share a node, else every core. Only a calibrated
  /// profile's time model reads it (its rates depend on processes x threads).
  int cpuThreadsPerProcess = 0;
};

/// Data-parallel degree: numGpus / (tp·pp).
int dataParallel(const Plan& plan);

/// Parsers for the CLI and plan files (the tables above and in config/vocabulary.h, any case); each throws
/// ConfigError "invalid <what> '<text>' (expected ...)".
Strategy parseStrategy(std::string_view text);
FsdpSharding parseFsdpSharding(std::string_view text);    ///< FULL_SHARD, ..., HYBRID_SHARD_ZERO2 (or 1-5), any case
Precision parsePrecision(std::string_view text);          ///< fp32 (the planner's `no`), no, fp16, bf16, fp8
MasterWeights parseMasterWeights(std::string_view text);  ///< fp32/yes, none/no, autocast
Optimizer parseOptimizer(std::string_view text);          ///< adam, adamw, sgd, sgd-momentum, adafactor
Recompute parseRecompute(std::string_view text);          ///< none, selective, full
BytesConvention parseBytesConvention(std::string_view text);  ///< zero, megatron, deepspeed
GradSync parseGradSync(std::string_view text);                ///< auto, every_micro_step, once_per_step
FsdpWrap parseFsdpWrap(std::string_view text);  ///< transformer_based_wrap, size_based_wrap, no_wrap (any case)

/// The planner's spellings (plan files, `fathom plan --json`): the tables' names, FSDP's in lower case
/// ("full_shard", "transformer_based_wrap") and mixed_precision `no` as "fp32".
std::string_view toString(Strategy v);
std::string_view toString(FsdpSharding v);
std::string_view toString(Precision v);
std::string_view toString(MasterWeights v);
std::string_view toString(Optimizer v);
std::string_view toString(Recompute v);
std::string_view toString(BytesConvention v);
std::string_view toString(GradSync v);
std::string_view toString(FsdpWrap v);

/// "fsdp/full_shard", "zero2", "ddp": the strategy as one label.
std::string strategyLabel(const Plan& plan);

}  // namespace fathom::plan
