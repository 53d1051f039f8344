// SPDX-License-Identifier: Apache-2.0
#include "ssh_launch.h"

#include <fathom/common/error.h>
#include <fathom/launch/host_list.h>
#include <fathom/launch/launch_config.h>
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
  cmd.add_option("--ssh_connect_timeout,--ssh-connect-timeout", m_connectTimeout,
                 "Seconds to reach a host before it counts as unreachable (ssh's ConnectTimeout; default 10)")
      ->group(group);
}

bool SshLaunchFlags::given(const config::RunSpec& spec) const {
  const bool flags = m_cmd != nullptr && (m_cmd->count("--hosts") > 0 || m_cmd->count("--hostfile") > 0);
  const bool configured =
      spec.fathom.launcher == config::Launcher::Ssh && (!spec.fathom.hosts.empty() || spec.fathom.hostfile.has_value());
  return flags || configured;
}

launch::MultiNodeLauncher SshLaunchFlags::makeLauncher(launch::LaunchOptions options, const config::RunSpec& spec,
                                                       const MultiNodeFlags& multiNode) const {
  FATHOM_CHECK(m_cmd->count("--hosts") == 0 || m_cmd->count("--hostfile") == 0, ConfigError,
               "give --hosts or --hostfile, not both");
  launch::MultiNodeOptions o;
  if (m_cmd->count("--hosts") > 0) {
    o.hosts = launch::parseHostList(m_hosts);
  } else if (m_cmd->count("--hostfile") > 0) {
    o.hosts = launch::readHostfile(m_hostfile);
  } else {
    o.hosts = launch::hostsFromRunSpec(spec);
    o.hostsFlag = "fathom.hosts / fathom.hostfile";
    // A configuration written for Accelerate's per-machine launch names the first host as main_process_ip; for a
    // launch over ssh that means "the first host", which ssh resolves (its HostName), as when it is not given.
    const std::string& first = spec.fathom.hosts.empty() ? std::string() : spec.fathom.hosts.front();
    if (!first.empty() && options.mainProcessIp == first) {
      options.mainProcessIp.clear();
    }
  }
  FATHOM_CHECK(!o.hosts.empty(), ConfigError, o.hostsFlag, ": no host given");
  // slots=N in the hostfile gives the total unless --num_processes is on the command line (then they must agree).
  if (o.hosts.front().slotCount > 0 && m_cmd->count("--num_processes") == 0) {
    options.numProcesses = o.hosts.front().slotCount * static_cast<int>(o.hosts.size());
  }
  launch::setMultiNodeTopology(options, spec, static_cast<int>(o.hosts.size()));
  o.launch = std::move(options);
  launch::SshTransportOptions ssh;
  ssh.sshConfig = !m_sshConfig.empty() ? m_sshConfig : spec.fathom.sshConfig.value_or("");
  if (!ssh.sshConfig.empty()) {
    FATHOM_CHECK(std::filesystem::is_regular_file(ssh.sshConfig), ConfigError,
                 m_sshConfig.empty() ? "fathom.ssh_config " : "--ssh_config ", ssh.sshConfig.string(),
                 ": no such file");
  }
  ssh.connectTimeout = std::chrono::seconds(m_connectTimeout);
  multiNode.applyTo(o);
  return launch::MultiNodeLauncher(std::move(o), std::make_unique<launch::SshTransport>(std::move(ssh)));
}

}  // namespace fathom::cli
