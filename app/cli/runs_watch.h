// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "command.h"

namespace fathom::cli {

/// Registers `fathom runs watch RUN` on `runs` (the `fathom runs` subcommand): a live terminal view of a run, per
/// rank and with the run monitor's alerts, refreshed at most every second (docs/cli.md).
void addRunsWatchCommand(CLI::App& runs, CommandAction& action);

}  // namespace fathom::cli
