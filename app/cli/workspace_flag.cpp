// SPDX-License-Identifier: Apache-2.0
#include "workspace_flag.h"

#include <fathom/common/error.h>
#include <fathom/config/config_resolver.h>

#include <filesystem>
#include <optional>

namespace fathom::cli {

CLI::Option* addWorkspaceOption(CLI::App& command, std::string& path) {
  return command.add_option("--workspace", path,
                            "The workspace file (default: FATHOM_WORKSPACE, else the config's fathom.workspace, else "
                            "./fathom.sqlite)");
}

store::Workspace openExistingWorkspace(const std::string& flag, bool reconcile) {
  const config::WorkspaceSetting setting = config::resolveWorkspace(flag.empty() ? std::nullopt : std::optional(flag));
  FATHOM_CHECK(std::filesystem::exists(setting.path), ConfigError, "no workspace at ", setting.path.string(),
               setting.source == config::ValueSource::Environment || setting.source == config::ValueSource::ConfigFile
                   ? " (from " + setting.origin + ")"
                   : "",
               " (pass --workspace PATH to read another file)");
  // A workspace this process cannot write (a read-only folder or file) is still read: read-only, without
  // reconcile(); a command that then writes fails naming the workspace and why.
  store::Workspace::Options options = store::Workspace::readerOptions(setting.path);
  options.reconcile = reconcile;
  return store::Workspace(setting.path, options);
}

}  // namespace fathom::cli
