// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/launch/launch_options.h>
#include <fathom/launch/multi_node_launcher.h>

#include <CLI/CLI.hpp>

#include <string>

namespace fathom::cli {

/// `fathom launch`'s multi-node flags over SSH: --hosts, --hostfile, --ssh_config, --remote_fathom,
/// --ssh_connect_timeout, --rdzv_timeout, --same_network (docs/launch.md, "Multi-node over SSH").
class SshLaunchFlags {
public:
  void addTo(CLI::App& cmd);
  /// True when --hosts or --hostfile was given: the launch goes over SSH.
  bool given() const;
  /// The launcher for `options` (resolved as for one machine; numProcesses the total) on the hosts, over ssh.
  /// Throws ConfigError for bad flags.
  launch::MultiNodeLauncher makeLauncher(launch::LaunchOptions options) const;
  /// Prints what a finished multi-node launch came to (the failing host and its last lines, the teardown time).
  static void report(const launch::MultiNodeResult& result, bool quiet);

private:
  CLI::App* m_cmd = nullptr;
  std::string m_hosts;
  std::string m_hostfile;
  std::string m_sshConfig;
  std::string m_remoteFathom;
  int m_connectTimeout = 10;
  int m_rendezvousTimeout = 600;
  std::string m_sameNetwork;
};

}  // namespace fathom::cli
