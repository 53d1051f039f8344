// SPDX-License-Identifier: Apache-2.0
#include "train_checkpoint_flags.h"

#include <fathom/common/error.h>
#include <fathom/common/terminal_text.h>

#include <charconv>
#include <limits>

namespace fathom::cli {

namespace {

/// A whole number in [1, high] from `text`, else ConfigError "<flag>: ..." naming the value (`orWhat`: the other
/// spelling the flag accepts, for the message).
std::int64_t wholeNumber(const char* flag, const std::string& text, std::int64_t high, const char* orWhat = "") {
  std::int64_t value = 0;
  const char* first = text.data() + (text.size() > 1 && text.front() == '+' ? 1 : 0);
  const char* last = text.data() + text.size();
  const auto [end, error] = std::from_chars(first, last, value);
  const bool tooLarge = error == std::errc::result_out_of_range;
  FATHOM_CHECK((error == std::errc() || tooLarge) && end == last && first != last, ConfigError, flag, ": '",
               terminalSafe(text), "' is not a whole number", orWhat);
  FATHOM_CHECK(!tooLarge && value >= 1 && value <= high, ConfigError, flag, ": ", terminalSafe(text),
               " is out of range (allowed 1..", high, ")", orWhat);
  return value;
}

}  // namespace

CheckpointingSteps parseCheckpointingSteps(const std::string& text) {
  if (text == "epoch")
    return {.everySteps = 0, .everyEpoch = true};
  return {.everySteps =
              wholeNumber("--checkpointing_steps", text, std::numeric_limits<std::int64_t>::max(), " or 'epoch'"),
          .everyEpoch = false};
}

void TrainCheckpointFlags::add(CLI::App* cmd) {
  const std::string group = "Checkpoints (docs/checkpoint.md)";
  m_steps = cmd->add_option("--checkpointing_steps,--checkpointing-steps", checkpointingSteps,
                            "Save the training state (Accelerator::saveState) every N optimizer steps, or 'epoch': "
                            "after the step that ends each epoch; into <project_dir>/checkpoints/checkpoint_<n>, n = "
                            "0, 1, ...")
                ->group(group);
  m_resume = cmd->add_option("--resume_from_checkpoint,--resume-from-checkpoint", resumeFromCheckpoint,
                             "Resume from a checkpoint folder, or 'latest': the highest checkpoint_<n> under "
                             "<project_dir>/checkpoints. --steps still counts from the start of training")
                 ->group(group);
  m_limit = cmd->add_option("--save_total_limit,--save-total-limit", saveTotalLimit,
                            "Keep at most K checkpoints (K >= 1): after each new one is published the oldest are "
                            "deleted")
                ->group(group);
}

void TrainCheckpointFlags::apply(TrainOptions& options) const {
  if (m_steps != nullptr && m_steps->count() > 0)
    options.checkpointing = parseCheckpointingSteps(checkpointingSteps);
  if (m_limit != nullptr && m_limit->count() > 0) {
    const auto limit = wholeNumber("--save_total_limit", saveTotalLimit, std::numeric_limits<int>::max());
    FATHOM_CHECK(options.checkpointing.has_value(), ConfigError, "--save_total_limit: ", limit,
                 " needs --checkpointing_steps (nothing is saved)");
    options.accelerator.checkpoint.totalLimit = static_cast<int>(limit);
  }
  if (m_resume != nullptr && m_resume->count() > 0) {
    FATHOM_CHECK(!resumeFromCheckpoint.empty(), ConfigError,
                 "--resume_from_checkpoint: '' names no folder (give 'latest' or a checkpoint folder)");
    options.resumeFromCheckpoint = resumeFromCheckpoint;
  }
  // The CLI always numbers its checkpoints (Accelerate's automatic_checkpoint_naming); "latest" needs it too.
  options.accelerator.checkpoint.automaticCheckpointNaming = true;
}

}  // namespace fathom::cli
