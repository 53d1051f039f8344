// SPDX-License-Identifier: Apache-2.0
#include "train_resume.h"

#include <fathom/checkpoint/checkpoint_folder.h>
#include <fathom/common/error.h>

#include <algorithm>
#include <string>

namespace fathom::cli {
namespace {

/// "checkpoint_0 … checkpoint_7 (3 folders)": what a checkpoints folder holds, for messages.
std::string describe(const std::vector<std::filesystem::path>& checkpoints) {
  std::string text = checkpoints.front().filename().string();
  if (checkpoints.size() > 1)
    text += " … " + checkpoints.back().filename().string();
  return text + " (" + std::to_string(checkpoints.size()) + (checkpoints.size() == 1 ? " folder)" : " folders)");
}

ResumePoint readResumePoint(const std::filesystem::path& folder) {
  const checkpoint::Manifest manifest = checkpoint::readManifest(folder);
  const auto it = manifest.info.find("optimizer_steps");
  std::int64_t step = 0;
  try {
    FATHOM_CHECK(it != manifest.info.end(), ConfigError, "no optimizer_steps");
    std::size_t used = 0;
    step = std::stoll(it->second, &used);
    FATHOM_CHECK(used == it->second.size() && step >= 0, ConfigError, "bad optimizer_steps");
  } catch (const std::exception&) {
    throw ConfigError(
        detail::concat("--resume_from_checkpoint: ", (folder / checkpoint::kManifestFile).string(),
                       " has no whole number optimizer_steps in its info (not saved by `fathom train`?)"));
  }
  return {std::filesystem::absolute(folder).lexically_normal(), step};
}

}  // namespace

std::filesystem::path trainCheckpointsFolder(const TrainOptions& options) {
  return options.accelerator.projectDir / "checkpoints";
}

std::optional<ResumePoint> checkTrainCheckpoints(const TrainOptions& options) {
  const std::filesystem::path parent = trainCheckpointsFolder(options);
  if (!options.resumeFromCheckpoint) {
    if (options.checkpointing) {
      const auto existing = checkpoint::listCheckpoints(parent);
      FATHOM_CHECK(existing.empty(), ConfigError, "--checkpointing_steps: ", parent.string(), " already holds ",
                   describe(existing),
                   " of an earlier run; continue it with --resume_from_checkpoint latest, or choose another "
                   "--project_dir");
    }
    return std::nullopt;
  }
  const std::string& requested = *options.resumeFromCheckpoint;
  std::filesystem::path folder;
  if (requested == "latest") {
    const auto all = checkpoint::listCheckpoints(parent);
    FATHOM_CHECK(!all.empty(), ConfigError, "--resume_from_checkpoint latest: no checkpoint in ", parent.string(),
                 " (looked for checkpoint_<n> folders holding a ", checkpoint::kManifestFile,
                 "; --project_dir chooses the folder)");
    folder = all.back();
  } else {
    folder = requested;
    std::error_code ec;
    FATHOM_CHECK(std::filesystem::is_directory(folder, ec), ConfigError, "--resume_from_checkpoint '", requested,
                 "': ", std::filesystem::exists(folder, ec) ? "not a folder" : "no such folder");
    FATHOM_CHECK(std::filesystem::exists(folder / checkpoint::kManifestFile, ec), ConfigError,
                 "--resume_from_checkpoint '", requested, "': holds no checkpoint (no ", checkpoint::kManifestFile,
                 "; a checkpoint is complete once its manifest is written)");
  }
  ResumePoint resume = readResumePoint(folder);
  FATHOM_CHECK(resume.step < options.steps, ConfigError, "--steps ", options.steps, ": ", resume.folder.string(),
               " was saved after step ", resume.step,
               ", and --steps counts from the start of training: nothing is left to train (give --steps > ",
               resume.step, ")");
  return resume;
}

std::int64_t resumeTraining(Accelerator& accelerator, const TrainOptions& options, const ResumePoint& resume) {
  accelerator.loadState(resume.folder);
  const auto existing = checkpoint::listCheckpoints(trainCheckpointsFolder(options));
  if (!existing.empty()) {
    const auto highest = checkpoint::checkpointNumber(existing.back());
    if (highest && *highest + 1 > accelerator.saveIteration())
      accelerator.setSaveIteration(static_cast<int>(*highest + 1));
  }
  return accelerator.optimizerSteps();
}

bool checkpointDue(const TrainOptions& options, std::int64_t step, bool epochEnds) {
  if (!options.checkpointing)
    return false;
  const CheckpointingSteps& every = *options.checkpointing;
  return (every.everySteps > 0 && step % every.everySteps == 0) || (every.everyEpoch && epochEnds);
}

}  // namespace fathom::cli
