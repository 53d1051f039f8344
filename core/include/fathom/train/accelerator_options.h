// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/checkpoint/checkpoint_options.h>
#include <fathom/parallel/ddp_options.h>
#include <fathom/parallel/fsdp_options.h>
#include <fathom/parallel/zero_options.h>
#include <fathom/precision/grad_scaler.h>
#include <fathom/precision/mixed_precision.h>
#include <fathom/runtime/process_state.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace fathom::train {

/// Accelerate's DataLoaderConfiguration: how prepared data loaders split the data across processes.
struct DataLoaderConfiguration {
  /// The loader's batch_size is the global batch, cut into num_processes slices (else it is per process).
  bool splitBatches = false;
  /// Top the final round up from the start of the data so every rank gets the same number of batches.
  bool evenBatches = true;
  /// Rank 0 reads every batch and sends each rank its slice. std::nullopt = Accelerate's default: on for
  /// iterable datasets, off for map-style ones.
  std::optional<bool> dispatchBatches;
  /// Accelerate's use_seedable_sampler. Fathom's shuffling is always seed-based (SeedableRandomSampler, seed +
  /// epoch), so every rank draws the same permutation without synchronizing RNG state; the flag is accepted for
  /// configuration compatibility and reported back, and has no other effect.
  bool useSeedableSampler = true;
};

/// Accelerate's GradientAccumulationPlugin fields beyond num_steps.
struct GradientAccumulationOptions {
  /// Force a sync (and an optimizer step) at the last batch of a prepared loader, whatever the counter says.
  bool syncWithDataloader = true;
  /// Under accumulate(), all-reduce gradients on every backward (the optimizer still steps only on syncs).
  bool syncEachBatch = false;
};

/// The constructor arguments of fathom::Accelerator, mirroring accelerate.Accelerator(...). Unset optionals
/// take their value from the environment `fathom launch` / `accelerate launch` sets, then Accelerate's default.
struct AcceleratorOptions {
  /// "no" | "fp16" | "bf16". std::nullopt: ACCELERATE_MIXED_PRECISION, else "no".
  std::optional<precision::MixedPrecision> mixedPrecision;
  /// Batches per optimizer step (>= 1; default 1). ACCELERATE_GRADIENT_ACCUMULATION_STEPS, when set, wins over
  /// this value, as in Accelerate (the launcher's --gradient_accumulation_steps overrides the code).
  std::optional<int> gradientAccumulationSteps;
  GradientAccumulationOptions gradientAccumulation;
  /// Run on the CPU even when a GPU is present (ACCELERATE_USE_CPU=true does the same).
  bool cpu = false;
  DataLoaderConfiguration dataLoader;
  /// Prepared schedulers step with the optimizer: num_processes times per sync step (once with split_batches)
  /// and not at all on accumulation steps or skipped (overflow) steps. false: every scheduler.step() steps.
  bool stepSchedulerWithOptimizer = true;
  /// DistributedDataParallelKwargs.
  parallel::DdpOptions ddp;
  /// FullyShardedDataParallelPlugin: prepared models are sharded with FSDP. std::nullopt: FSDP when
  /// ACCELERATE_USE_FSDP is true, with options from the FSDP_* variables (parallel::fsdpOptionsFromEnvironment).
  std::optional<parallel::FsdpOptions> fsdp;
  /// DeepSpeedPlugin's ZeRO settings: prepared models train with ZeRO stage 1, 2 or 3. std::nullopt: ZeRO when
  /// ACCELERATE_USE_DEEPSPEED is true, with options from ACCELERATE_DEEPSPEED_* (zeroOptionsFromEnvironment).
  std::optional<parallel::ZeroOptions> deepspeed;
  /// GradScalerKwargs (used with mixed precision fp16).
  precision::GradScalerOptions gradScaler;
  /// How the process group is joined (backend, rendezvous timeout); InitProcessGroupKwargs.
  runtime::JoinOptions processGroup;
  /// Experiment trackers initTrackers() creates (Accelerate's log_with): "tensorboard", "mlflow", "dvclive",
  /// "csv", "jsonl", user-registered names, or "all" (docs/trackers.md).
  std::vector<std::string> logWith;
  /// Root of the trackers' output (Accelerate's project_dir): MLflow's mlruns/, DVCLive's dvclive/.
  std::filesystem::path projectDir = ".";
  /// Checkpoint naming and rotation (ProjectConfiguration's automatic_checkpoint_naming, total_limit, iteration):
  /// saveState() / loadState(), docs/checkpoint.md.
  checkpoint::CheckpointOptions checkpoint;
  /// TensorBoard/CSV/JSONL output (Accelerate's logging_dir); empty = projectDir.
  std::filesystem::path loggingDir;
  /// The workspace initTrackers()'s built-in `sqlite` tracker writes when the program runs without `fathom launch`
  /// (under the launcher, points go to the launcher's workspace through its collector). docs/trackers.md.
  /// std::nullopt: resolved as every `fathom` command resolves it (config::resolveWorkspace): FATHOM_WORKSPACE, else
  /// the default configuration's fathom.workspace, else ./fathom.sqlite.
  std::optional<std::filesystem::path> workspace;
};

/// The options with every environment default applied (what the Accelerator actually runs with).
struct ResolvedAcceleratorOptions {
  precision::MixedPrecision mixedPrecision = precision::MixedPrecision::No;
  int gradientAccumulationSteps = 1;
  /// The FSDP options in force (given, or from the environment), or std::nullopt.
  std::optional<parallel::FsdpOptions> fsdp;
  /// The ZeRO options in force (given, or from the environment), or std::nullopt. Never both with fsdp.
  std::optional<parallel::ZeroOptions> zero;
  /// The workspace in force (given, or config::resolveWorkspace()).
  std::filesystem::path workspace;
  AcceleratorOptions raw;  ///< the options as given, for reporting
};

/// Fills the unset fields from `env` (ACCELERATE_MIXED_PRECISION, ACCELERATE_GRADIENT_ACCUMULATION_STEPS,
/// FATHOM_WORKSPACE) and validates everything at the front door: ConfigError naming the value for gradient
/// accumulation steps < 1, an unparsable environment value (naming the variable), fp8, invalid DDP / GradScaler
/// options, or a default configuration file that cannot be read (it may name the workspace).
ResolvedAcceleratorOptions resolveAcceleratorOptions(const AcceleratorOptions& options, const runtime::EnvLookup& env);

}  // namespace fathom::train
