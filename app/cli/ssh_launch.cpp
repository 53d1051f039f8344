// SPDX-License-Identifier: Apache-2.0
#include "ssh_launch.h"

#include <fathom/common/error.h>
#include <fathom/launch/host_list.h>
#include <fathom/launch/ssh_transport.h>

#include <filesystem>
#include <iostream>

namespace fathom::cli {

void SshLaunchFlags::addTo(CLI::App& cmd) {
  m_cmd = &cmd;
  const char* group = "Multi-node over SSH";
  cmd.add_option("--hosts", m_hosts,
                 "Run on these hosts over ssh, one `fathom agent` each: h1,h2 (names as ssh knows them, ~/.ssh/config "
                 "aliases included); the first hosts the rendezvous")
      ->group(group);
  cmd.add_option("--hostfile", m_hostfile, "Hosts from a file of `host slots=N` lines (DeepSpeed's hostfile)")
      ->group(group);
  cmd.add_option("--ssh_config,--ssh-config", m_sshConfig,
                 "ssh configuration file (ssh -F FILE); default ~/.ssh/config")
      ->group(group);
  cmd.add_option("--remote_fathom,--remote-fathom", m_remoteFathom,
                 "Path of `fathom` on the hosts (default: this fathom's own path)")
      ->group(group);
  cmd.add_option("--ssh_connect_timeout,--ssh-connect-timeout", m_connectTimeout,
                 "Seconds to reach a host before it counts as unreachable (ssh's ConnectTimeout; default 10)")
      ->group(group);
  cmd.add_option("--rdzv_timeout,--rdzv-timeout", m_rendezvousTimeout,
                 "Seconds for every host to start its agent and workers; then the launch fails naming the hosts and "
                 "ranks that never joined (default 600)")
      ->group(group);
  cmd.add_option("--same_network,--same-network", m_sameNetwork,
                 "The workers send telemetry straight to ADDRESS (this machine's address as the hosts reach it) over "
                 "TCP with the run's token, instead of through each ssh connection")
      ->group(group);
}

bool SshLaunchFlags::given() const {
  return m_cmd != nullptr && (m_cmd->count("--hosts") > 0 || m_cmd->count("--hostfile") > 0);
}

launch::MultiNodeLauncher SshLaunchFlags::makeLauncher(launch::LaunchOptions options) const {
  FATHOM_CHECK(m_cmd->count("--hosts") == 0 || m_cmd->count("--hostfile") == 0, ConfigError,
               "give --hosts or --hostfile, not both");
  launch::MultiNodeOptions o;
  o.hosts = m_cmd->count("--hosts") > 0 ? launch::parseHostList(m_hosts) : launch::readHostfile(m_hostfile);
  // slots=N in the hostfile gives the total unless --num_processes is on the command line (then they must agree).
  if (o.hosts.front().slotCount > 0 && m_cmd->count("--num_processes") == 0) {
    options.numProcesses = o.hosts.front().slotCount * static_cast<int>(o.hosts.size());
  }
  o.launch = std::move(options);
  launch::SshTransportOptions ssh;
  ssh.sshConfig = m_sshConfig;
  if (!ssh.sshConfig.empty()) {
    FATHOM_CHECK(std::filesystem::is_regular_file(ssh.sshConfig), ConfigError, "--ssh_config ", m_sshConfig,
                 ": no such file");
  }
  ssh.connectTimeout = std::chrono::seconds(m_connectTimeout);
  std::error_code ec;
  o.remoteFathom =
      m_remoteFathom.empty() ? std::filesystem::read_symlink("/proc/self/exe", ec).string() : m_remoteFathom;
  FATHOM_CHECK(!o.remoteFathom.empty(), ConfigError, "cannot tell this fathom's path; give --remote_fathom PATH");
  FATHOM_CHECK(m_rendezvousTimeout >= 1, ConfigError, "--rdzv_timeout must be >= 1 second, got ", m_rendezvousTimeout);
  o.rendezvousTimeout = std::chrono::seconds(m_rendezvousTimeout);
  if (m_cmd->count("--same_network") > 0) {
    launch::validateHostName(m_sameNetwork, "--same_network");
    FATHOM_CHECK(m_sameNetwork.find('@') == std::string::npos, ConfigError, "--same_network takes an address, got ",
                 m_sameNetwork);
    o.telemetryAddress = m_sameNetwork;
  }
  o.workingDirectory = std::filesystem::current_path().string();
  return launch::MultiNodeLauncher(std::move(o), std::make_unique<launch::SshTransport>(std::move(ssh)));
}

void SshLaunchFlags::report(const launch::MultiNodeResult& result, bool quiet) {
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
