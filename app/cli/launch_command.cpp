// SPDX-License-Identifier: Apache-2.0
// `fathom launch [flags] PROGRAM [ARGS...]`: `accelerate launch` for any executable, on one machine's share of a
// group. Flags keep Accelerate's spellings (underscores; the dashed forms are accepted too).
#include "command.h"
#include "launch_flags.h"

#include <fathom/common/error.h>
#include <fathom/launch/local_launcher.h>
#include <fathom/telemetry/launch_recorder.h>

#include <iostream>
#include <memory>

namespace fathom::cli {

void addLaunchCommand(CLI::App& root, CommandAction& action) {
  auto flags = std::make_shared<LaunchFlags>();
  CLI::App* cmd = root.add_subcommand("launch", "Run PROGRAM [ARGS...] as a group of processes with RANK, WORLD_SIZE, "
                                                "MASTER_ADDR/PORT and Accelerate's variables set (as `accelerate "
                                                "launch`); see docs/launch.md");
  cmd->prefix_command();  // everything from PROGRAM on belongs to PROGRAM
  flags->addTo(*cmd, LaunchFlags::Scope::Launch);
  cmd->footer("PROGRAM is any executable: a C++ program, `fathom train`, a shell script. Flags after PROGRAM are "
              "PROGRAM's own.");
  cmd->callback([flags, cmd, &action] {
    std::vector<std::string> command = cmd->remaining();
    action = [flags, command] {
      // CLI11 hands an unknown flag before PROGRAM to PROGRAM's arguments; say what it is instead.
      FATHOM_CHECK(command.empty() || command.front().empty() || command.front()[0] != '-', ConfigError,
                   "unknown flag ", command.front(), " for `fathom launch` (see `fathom launch --help`)");
      std::vector<std::string> notes;
      config::WorkspaceSetting workspace;
      launch::LaunchOptions options = flags->resolve(&notes, &workspace);
      options.command = command;
      LaunchFlags::printNotes("launch", notes, options);
      launch::LocalLauncher launcher(std::move(options));
      // Records the run and collects the workers' telemetry; destroyed by an exception, it marks the run failed.
      telemetry::LaunchRecorder recorder(workspace.path, launcher.options());
      if (!launcher.options().quiet) {
        std::cerr << "fathom launch: run " << recorder.run().value << " in " << workspace.path.string() << "\n";
      }
      const launch::LaunchResult result = launcher.run(&recorder);
      recorder.finish(result.exitCode);
      if (result.attempts > 1 && result.exitCode == 0 && !launcher.options().quiet) {
        std::cerr << "fathom launch: succeeded after " << result.attempts - 1 << " restart(s)\n";
      }
      return result.exitCode;
    };
  });
}

}  // namespace fathom::cli
