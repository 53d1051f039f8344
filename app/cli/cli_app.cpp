// SPDX-License-Identifier: Apache-2.0
#include "cli_app.h"

#include "agent_command.h"
#include "command.h"

#include <fathom/common/build_info.h>
#include <fathom/common/error.h>
#include <fathom/common/terminal_text.h>

#include <iostream>
#include <optional>
#include <sstream>

namespace fathom::cli {
namespace {

std::string versionText() {
  const auto& b = buildInfo();
  return "fathom " + b.version + " (git " + b.gitRevision + ", LibTorch " + b.libtorchVersion + ", " +
         (b.qtVersion.empty() ? std::string("CLI-only build") : "Qt " + b.qtVersion) + ")";
}

/// Every argument must be UTF-8: Fathom keeps arguments as text (JSON lines, the workspace, YAML), and a byte like
/// 0xFF used to fail deep inside with a JSON library's message. This names the argument instead, and the flag it
/// belongs to.
std::optional<std::string> invalidArgument(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg(argv[i]);
    if (const auto offset = invalidUtf8Offset(arg)) {
      const std::string_view previous = i > 1 ? std::string_view(argv[i - 1]) : std::string_view();
      const bool value = previous.starts_with("-") && arg.find('=') == std::string_view::npos;
      return detail::concat("argument ", i, " '", terminalSafe(arg), "'",
                            value ? detail::concat(" (the value of ", terminalSafe(previous), ")") : std::string(),
                            " is not valid UTF-8 (byte ", *offset + 1,
                            "): Fathom reads and records arguments as UTF-8 "
                            "text; pass the name in UTF-8 (rename the file if its name is not)");
    }
  }
  return std::nullopt;
}

/// An error message on the terminal: the message may quote keys, values, paths and a rank's output, so its control
/// characters are escaped (its own line breaks kept).
void printError(std::string_view message) {
  std::cerr << "fathom: error: " << terminalSafe(message, LineBreaks::Keep) << '\n';
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
  addDeviceMapCommand(app, action);
  addCalibrateCommand(app, action);
  addAgentCommand(app, action);

  if (const auto bad = invalidArgument(argc, argv)) {
    printError(*bad);
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11's messages quote the arguments: print them terminal-safe too.
    std::ostringstream out;
    std::ostringstream err;
    const int code = app.exit(e, out, err);
    std::cout << terminalSafe(out.str(), LineBreaks::Keep);
    std::cerr << terminalSafe(err.str(), LineBreaks::Keep);
    return code;
  }
  if (!action) {
    std::cout << app.help();
    return 0;
  }
  try {
    return action();
  } catch (const ConfigError& e) {
    printError(e.what());
    return 2;
  } catch (const std::exception& e) {
    printError(e.what());
    return 1;
  }
}

}  // namespace fathom::cli
