// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "train_loop.h"

#include <CLI/CLI.hpp>

#include <string>

namespace fathom::cli {

/// `fathom train --checkpointing_steps N|epoch --resume_from_checkpoint latest|DIR --save_total_limit K`: Accelerate's
/// examples/by_feature/checkpointing.py flags over Accelerator::saveState() / loadState() with automatic checkpoint
/// naming (`<project_dir>/checkpoints/checkpoint_<n>`, docs/checkpoint.md). The configuration has no keys for them
/// (Accelerate's ProjectConfiguration is not part of its config file; fathom.project_dir is, and --project_dir reads
/// it), so they are flags only.
struct TrainCheckpointFlags {
  std::string checkpointingSteps;
  std::string resumeFromCheckpoint;
  std::string saveTotalLimit;

  /// Registers the flags on `cmd` (underscore and dashed spellings).
  void add(CLI::App* cmd);
  /// Puts the flags given into `options` (TrainOptions::checkpointing, resumeFromCheckpoint,
  /// accelerator.checkpoint). ConfigError (a usage error, exit code 2) naming the flag and the value for a
  /// --checkpointing_steps that is neither a whole number >= 1 nor "epoch", a --save_total_limit that is not a whole
  /// number >= 1 or comes without --checkpointing_steps, and an empty --resume_from_checkpoint. Called in the
  /// command's action, like the other resolution that can fail with ConfigError.
  void apply(TrainOptions& options) const;

private:
  CLI::Option* m_steps = nullptr;
  CLI::Option* m_resume = nullptr;
  CLI::Option* m_limit = nullptr;
};

/// "epoch" or a whole number >= 1 → the schedule; ConfigError "--checkpointing_steps: ..." naming the value otherwise.
CheckpointingSteps parseCheckpointingSteps(const std::string& text);

}  // namespace fathom::cli
