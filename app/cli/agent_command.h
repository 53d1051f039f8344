// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "command.h"

namespace fathom::cli {

/// `fathom agent` (agent_command.cpp). Declared here rather than in command.h, which every command includes.
void addAgentCommand(CLI::App& root, CommandAction& action);

}  // namespace fathom::cli
