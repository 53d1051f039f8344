// SPDX-License-Identifier: Apache-2.0
#include "cli_app.h"

#include "agent_command.h"
#include "command.h"

#include <fathom/common/build_info.h>
#include <fathom/common/error.h>

#include <iostream>

namespace fathom::cli {
namespace {

std::string versionText() {
  const auto& b = buildInfo();
  return "fathom " + b.version + " (git " + b.gitRevision + ", LibTorch " + b.libtorchVersion + ", " +
         (b.qtVersion.empty() ? std::string("CLI-only build") : "Qt " + b.qtVersion) + ")";
}

}  // namespace

int run(int argc, char** argv) {
  CLI::App app{"Fathom: distributed PyTorch training for C++ programs, with a planner and a profiler.", "fathom"};
  app.require_subcommand(0, 1);
  app.set_version_flag("--version", versionText(), "Print the version and exit");
  app.footer("Run `fathom <command> --help` for a command's flags. Docs: docs/cli.md");

  CommandAction action;
  addEnvCommand(app, action);
  addPlanCommand(app, action);
  addEstimateMemoryCommand(app, action);
  addLaunchCommand(app, action);
  addTestCommand(app, action);
  addConfigCommand(app, action);
  addShardCommand(app, action);
  addTrainCommand(app, action);
  addRunsCommand(app, action);
  addTraceCommand(app, action);
  addAgentCommand(app, action);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  if (!action) {
    std::cout << app.help();
    return 0;
  }
  try {
    return action();
  } catch (const ConfigError& e) {
    std::cerr << "fathom: error: " << e.what() << '\n';
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "fathom: error: " << e.what() << '\n';
    return 1;
  }
}

}  // namespace fathom::cli
