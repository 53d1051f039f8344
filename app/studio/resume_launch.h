// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>
#include <QStringList>

#include <string>
#include <vector>

namespace fathom::studio {

/// `command` (a run's fathom.command) resuming from the checkpoint folder `checkpoint`: --resume_from_checkpoint
/// CHECKPOINT, and for `fathom train` --project_dir set to the folder that holds CHECKPOINT's `checkpoints/`, so the
/// resumed run's own checkpoints continue beside it. Either flag already in the command (underscore or dashed, with a
/// separate value or `=value`) is replaced, not repeated. A user's program gets --resume_from_checkpoint only
/// (Accelerate's checkpointing example's flag).
QStringList resumeCommand(const std::vector<std::string>& command, const QString& checkpoint);

/// What "Resume from this checkpoint" launches: a configuration file and the command after it.
struct ResumeLaunch {
  QString configPath;
  QStringList command;
};

/// Writes run `runId`'s stored specification `runSpec` (YAML, store::RunInfo::runSpec) to
/// `folder`/run_<id>_resume.yaml, whole or not at all, and returns it with resumeCommand() of its fathom.command.
/// ConfigError when the specification does not parse or names no command; StorageError when the file cannot be
/// written.
ResumeLaunch prepareResume(qint64 runId, const QString& runSpec, const QString& checkpoint, const QString& folder);

}  // namespace fathom::studio
