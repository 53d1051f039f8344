// SPDX-License-Identifier: Apache-2.0
// `fathom env`: what `accelerate env` prints, plus the distributed and GPU facts that decide what a run can use.
#include "command.h"

#include <fathom/runtime/environment.h>

#include <iostream>
#include <memory>

namespace fathom::cli {

namespace {
struct EnvFlags {
  bool json = false;
  bool skipGlooCheck = false;
};
}  // namespace

void addEnvCommand(CLI::App& root, CommandAction& action) {
  auto flags = std::make_shared<EnvFlags>();
  CLI::App* cmd = root.add_subcommand("env", "Print the environment: versions, cores, RAM, c10d backends, CUDA "
                                             "devices, CUPTI, Qt, and the default config (as `accelerate env`)");
  cmd->add_flag("--json", flags->json, "Print one JSON object instead of the paste-ready list");
  cmd->add_flag("--skip_gloo_check,--skip-gloo-check", flags->skipGlooCheck,
                "Report Gloo from compile-time support instead of forming a one-rank group");
  cmd->callback([flags, &action] {
    action = [flags] {
      runtime::EnvironmentOptions options;
      options.checkGloo = !flags->skipGlooCheck;
      const auto report = runtime::collectEnvironment(options);
      if (flags->json) {
        std::cout << runtime::formatEnvironmentJson(report) << '\n';
      } else {
        std::cout << runtime::formatEnvironmentText(report);
      }
      return 0;
    };
  });
}

}  // namespace fathom::cli
