// SPDX-License-Identifier: Apache-2.0
// `fathom agent --spec JSON`: one host's share of `fathom launch --hosts` (docs/launch.md, "Multi-node over SSH").
// Started by the launcher over ssh, never by hand: it runs this host's workers and stops them when its stdin (the
// SSH channel) closes.
#include "agent_command.h"

#include <fathom/launch/remote_agent.h>

#include <iostream>
#include <memory>

namespace fathom::cli {

void addAgentCommand(CLI::App& root, CommandAction& action) {
  auto spec = std::make_shared<std::string>();
  CLI::App* cmd = root.add_subcommand("agent", "Internal: one host's workers of `fathom launch --hosts`, started by "
                                               "the launcher over ssh (docs/launch.md)");
  cmd->group("Internal");
  cmd->add_option("--spec", *spec, "The launch for this host, as JSON (written by `fathom launch --hosts`)")
      ->required();
  cmd->callback([spec, &action] { action = [spec] { return launch::runAgentFromJson(*spec, std::cout, 0); }; });
}

}  // namespace fathom::cli
