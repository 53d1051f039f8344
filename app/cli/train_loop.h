// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/models/model_factory.h>
#include <fathom/profile/profiler_options.h>
#include <fathom/runtime/process_state.h>
#include <fathom/train/accelerator_options.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace fathom::cli {

/// --checkpointing_steps: when `fathom train` saves the training state (Accelerator::saveState()).
struct CheckpointingSteps {
  std::int64_t everySteps = 0;  ///< after every N-th optimizer step (N >= 1); 0: not by steps
  bool everyEpoch = false;      ///< after the optimizer step that ends an epoch
};

/// Everything `fathom train` is asked to do (flags in train_command.cpp).
struct TrainOptions {
  models::ModelRequest model;
  models::DatasetRequest dataset;
  std::int64_t steps = 100;         ///< optimizer steps (each consumes gradient_accumulation_steps batches)
  std::int64_t batchSize = 8;       ///< per process, as in Accelerate
  double lr = 1e-3;                 ///< learning rate
  std::string optimizer = "adamw";  ///< adamw | sgd
  double weightDecay = 0.01;        ///< AdamW's decoupled weight decay
  std::uint64_t seed = 0;           ///< model init and shuffle seed
  bool shuffle = false;             ///< seeded shuffling per epoch
  bool dropLast = false;            ///< drop the last incomplete batch
  double maxGradNorm = 0.0;         ///< clip the gradient norm on sync steps; 0 = off
  std::int64_t logEvery = 10;       ///< log every N optimizer steps; 0 = only the summary
  bool json = false;                ///< JSON lines instead of text
  std::optional<std::filesystem::path> saveFinal;  ///< write the final parameters (.safetensors)
  std::optional<std::filesystem::path> statsJson;  ///< write bytes and per-step collectives (train_stats.h)
  /// --profile: record with fathom::profile::Profiler (Accelerator::profile), one step() per optimizer step.
  std::optional<profile::ProfilerOptions> profile;
  /// --checkpointing_steps: save into <accelerator.projectDir>/checkpoints/checkpoint_<n> (automatic naming,
  /// accelerator.checkpoint.totalLimit for --save_total_limit).
  std::optional<CheckpointingSteps> checkpointing;
  /// --resume_from_checkpoint: "latest" or a checkpoint folder, loaded after prepare() (train_resume.h).
  std::optional<std::string> resumeFromCheckpoint;
  train::AcceleratorOptions accelerator;
};

/// Runs the training loop with fathom::Accelerator's public API only (this file is meant to be read as an
/// example). Returns the process exit code.
int runTraining(const TrainOptions& options);

/// The options `fathom train ARGUMENTS` trains with when the launcher's variables are `env`: the same flags, parse
/// and resolution as the command itself (train_command.cpp; train_plan.h plans a run from them). ConfigError
/// "fathom train: ..." for arguments it rejects.
TrainOptions parseTrainArguments(const std::vector<std::string>& arguments, const runtime::EnvLookup& env);

}  // namespace fathom::cli
