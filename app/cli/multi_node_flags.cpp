// SPDX-License-Identifier: Apache-2.0
#include "multi_node_flags.h"

#include <fathom/common/error.h>

#include <filesystem>
#include <iostream>

#include <arpa/inet.h>

namespace fathom::cli {

void MultiNodeFlags::addTo(CLI::App& cmd) {
  m_cmd = &cmd;
  const char* group = "Multi-node (over SSH or SLURM)";
  cmd.add_option("--remote_fathom,--remote-fathom", m_remoteFathom,
                 "Path of `fathom` on the hosts or nodes (default: this fathom's own path)")
      ->group(group);
  cmd.add_option("--rdzv_timeout,--rdzv-timeout", m_rendezvousTimeout,
                 "Seconds for every host to start its agent and workers; then the launch fails naming the hosts and "
                 "ranks that never joined (default 600)")
      ->group(group);
  cmd.add_option("--same_network,--same-network", m_sameNetwork,
                 "The workers send telemetry straight to ADDRESS (this machine's IPv4 address as the hosts reach it) "
                 "over TCP with the run's token, instead of through each ssh connection (SLURM: the default is this "
                 "machine's address on the route to the first node)")
      ->group(group);
}

bool MultiNodeFlags::sameNetwork() const {
  return m_cmd != nullptr && m_cmd->count("--same_network") > 0;
}

std::string MultiNodeFlags::thisFathom() {
  std::error_code ec;
  const std::string self = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  FATHOM_CHECK(!self.empty(), ConfigError,
               "cannot tell this fathom's path (/proc/self/exe); give --remote_fathom PATH");
  return self;
}

void MultiNodeFlags::applyTo(launch::MultiNodeOptions& o) const {
  o.remoteFathom = m_remoteFathom.empty() ? thisFathom() : m_remoteFathom;
  FATHOM_CHECK(m_rendezvousTimeout >= 1, ConfigError, "--rdzv_timeout must be >= 1 second, got ", m_rendezvousTimeout);
  o.rendezvousTimeout = std::chrono::seconds(m_rendezvousTimeout);
  if (sameNetwork()) {
    // The workers' telemetry endpoint takes an IPv4 address, not a name: checked here, before any worker fails on it.
    in_addr parsed{};
    FATHOM_CHECK(::inet_pton(AF_INET, m_sameNetwork.c_str(), &parsed) == 1, ConfigError,
                 "--same_network takes this machine's IPv4 address as the hosts reach it, got ", m_sameNetwork);
    o.telemetryAddress = m_sameNetwork;
  }
  o.workingDirectory = std::filesystem::current_path().string();
}

void MultiNodeFlags::report(const launch::MultiNodeResult& result, bool quiet) {
  if (result.failure) {
    const launch::HostFailure& f = *result.failure;
    std::cerr << "fathom launch: failed on host " << f.host << " (machine " << f.machineRank << ")"
              << (f.rank ? ", rank " + std::to_string(*f.rank) : std::string()) << ": " << f.reason << " (exit code "
              << f.exitCode << ")\n";
    if (!quiet && !f.lastLines.empty()) {
      std::cerr << "fathom launch: last lines from " << f.host << ":\n";
      for (const std::string& line : f.lastLines) {
        std::cerr << "  " << line << "\n";
      }
    }
  }
  if (!quiet && result.teardown.count() > 0) {
    std::cerr << "fathom launch: every host stopped in " << result.teardown.count() << " ms\n";
  }
}

}  // namespace fathom::cli
