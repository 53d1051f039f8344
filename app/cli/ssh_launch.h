// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "multi_node_flags.h"

#include <fathom/config/run_spec.h>
#include <fathom/launch/launch_options.h>
#include <fathom/launch/multi_node_launcher.h>

#include <CLI/CLI.hpp>

#include <string>

namespace fathom::cli {

/// `fathom launch`'s flags for a launch over SSH: --hosts, --hostfile, --ssh_config, --ssh_connect_timeout (with
/// the multi-node flags of MultiNodeFlags; docs/launch.md, "Multi-node over SSH").
class SshLaunchFlags {
public:
  void addTo(CLI::App& cmd);
  /// True when the launch goes over SSH: --hosts or --hostfile was given, or the configuration says
  /// `fathom.launcher: ssh` and names hosts (`fathom.hosts` or `fathom.hostfile`).
  bool given(const config::RunSpec& spec) const;
  /// The launcher for `options` (resolved as for one machine; numProcesses the total) on the hosts, over ssh. The
  /// flags win over the configuration's `fathom.hosts` / `hostfile` / `ssh_user` / `ssh_config`. Throws ConfigError
  /// for bad flags.
  launch::MultiNodeLauncher makeLauncher(launch::LaunchOptions options, const config::RunSpec& spec,
                                         const MultiNodeFlags& multiNode) const;

private:
  CLI::App* m_cmd = nullptr;
  std::string m_hosts;
  std::string m_hostfile;
  std::string m_sshConfig;
  int m_connectTimeout = 10;
};

}  // namespace fathom::cli
