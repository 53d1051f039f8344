// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/launch/multi_node_launcher.h>

#include <CLI/CLI.hpp>

#include <string>

namespace fathom::cli {

/// `fathom launch`'s flags for every multi-node launch, over ssh (SshLaunchFlags) or srun (SlurmLaunchFlags):
/// --remote_fathom, --rdzv_timeout, --same_network (docs/launch.md, "Multi-node over SSH").
class MultiNodeFlags {
public:
  void addTo(CLI::App& cmd);
  /// Sets what these flags decide in `options`: the `fathom` the hosts run (this fathom's own path unless
  /// --remote_fathom), the rendezvous timeout, the telemetry address (--same_network: an IPv4 address, the
  /// workers' endpoint takes no name) and the working directory (this one). ConfigError naming the flag for a bad
  /// value.
  void applyTo(launch::MultiNodeOptions& options) const;
  /// True when --same_network was given.
  bool sameNetwork() const;
  /// Prints what a finished multi-node launch came to (the failing host and its last lines, the teardown time).
  static void report(const launch::MultiNodeResult& result, bool quiet);
  /// This fathom's own path (/proc/self/exe): what the hosts run by default. ConfigError when it cannot be told.
  static std::string thisFathom();

private:
  CLI::App* m_cmd = nullptr;
  std::string m_remoteFathom;
  int m_rendezvousTimeout = 600;
  std::string m_sameNetwork;
};

}  // namespace fathom::cli
