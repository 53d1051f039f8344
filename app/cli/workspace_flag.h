// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/store/workspace.h>

#include <CLI/CLI.hpp>

#include <string>

namespace fathom::cli {

/// `--workspace PATH` of the subcommands that read a workspace (fathom runs …, fathom trace export --run), one help
/// text for all of them; the value is resolved by openExistingWorkspace().
CLI::Option* addWorkspaceOption(CLI::App& command, std::string& path);

/// Opens the workspace the flag names (flag > FATHOM_WORKSPACE > the config's fathom.workspace > ./fathom.sqlite,
/// config::resolveWorkspace) for reading. A ConfigError names the path, where it came from, and the flag, when there
/// is no file: reading never creates one. A workspace this process cannot write (Workspace::whyNotWritable()) is
/// opened read-only, and reconcile() skipped.
store::Workspace openExistingWorkspace(const std::string& flag, bool reconcile = true);

}  // namespace fathom::cli
