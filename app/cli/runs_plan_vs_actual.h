// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "command.h"

namespace fathom::cli {

/// Registers `fathom runs plan-vs-actual RUN [--json] [--compute]` under `runs` (runs_command.cpp's subcommand).
void addRunsPlanVsActual(CLI::App& runs, CommandAction& action);

}  // namespace fathom::cli
