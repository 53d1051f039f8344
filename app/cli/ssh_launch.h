// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/launch/launch_options.h>

#include <CLI/CLI.hpp>

#include <string>

namespace fathom::cli {

/// `fathom launch`'s multi-node flags: --hosts, --hostfile, --ssh_config, --remote_fathom, --ssh_connect_timeout
/// (docs/launch.md, "Multi-node over SSH").
class SshLaunchFlags {
public:
  void addTo(CLI::App& cmd);
  /// True when --hosts or --hostfile was given: the launch goes over SSH.
  bool given() const;
  /// Runs `options` (resolved as for one machine; numProcesses the total) on the hosts with launch::SshLauncher;
  /// returns the exit code. Throws ConfigError for bad flags.
  int run(launch::LaunchOptions options) const;

private:
  CLI::App* m_cmd = nullptr;
  std::string m_hosts;
  std::string m_hostfile;
  std::string m_sshConfig;
  std::string m_remoteFathom;
  int m_connectTimeout = 10;
};

}  // namespace fathom::cli
