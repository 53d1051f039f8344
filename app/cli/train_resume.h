// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "train_loop.h"

#include <fathom/train/accelerator.h>

#include <cstdint>
#include <filesystem>
#include <optional>

namespace fathom::cli {

/// The checkpoint `fathom train --resume_from_checkpoint` continues from, resolved before training starts.
struct ResumePoint {
  std::filesystem::path folder;  ///< the checkpoint folder, absolute
  std::int64_t step = 0;         ///< the optimizer steps taken when it was saved (manifest.json "optimizer_steps")
};

/// `<project_dir>/checkpoints`: where `fathom train` saves its checkpoints (Accelerator::saveState()'s automatic
/// naming) and where "latest" looks.
std::filesystem::path trainCheckpointsFolder(const TrainOptions& options);

/// The checkpoint checks of the front door, before anything is built or trained (ConfigError naming the flag and the
/// value; readManifest()'s StorageError naming the file for a malformed manifest.json):
/// --resume_from_checkpoint latest needs a published checkpoint_<n> in trainCheckpointsFolder() (the message says
/// where it looked), a DIR must exist and hold a published checkpoint (manifest.json), and --steps must lie beyond
/// the checkpoint's step (--steps counts from the start of training). A fresh run (no --resume_from_checkpoint)
/// with --checkpointing_steps is refused when the checkpoints folder already holds checkpoints: it would number its
/// own from 0 beside them, and rotation and "latest" would mix the two runs (Accelerate refuses the same at its
/// first save_state). Returns the resolved checkpoint when resuming.
std::optional<ResumePoint> checkTrainCheckpoints(const TrainOptions& options);

/// After prepare(): Accelerator::loadState(resume.folder), then numbers the next checkpoint after every one in the
/// checkpoints folder (resuming from an older checkpoint must not collide with newer ones). Returns the optimizer
/// step training continues from. Collective.
std::int64_t resumeTraining(Accelerator& accelerator, const TrainOptions& options, const ResumePoint& resume);

/// Whether optimizer step `step` (just taken) is followed by a checkpoint; `epochEnds`: it consumed the epoch's
/// last batch.
bool checkpointDue(const TrainOptions& options, std::int64_t step, bool epochEnds);

}  // namespace fathom::cli
