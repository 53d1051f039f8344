// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/launch/launch_options.h>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fathom::launch {

/// What `fathom launch --hosts` tells each host's `fathom agent` (one JSON object, the agent's --spec argument):
/// the launch options with this host's machine rank, and where and with what the workers run. The options are
/// resolved once, on the launching machine (its flags, environment and config file); the agent reads no config.
struct AgentSpec {
  /// Every LaunchOptions field except runSpec (recorded by the launcher) and maxRestarts (no restart over SSH).
  LaunchOptions options;
  /// The agent changes to this directory before starting workers (DeepSpeed's runner does `cd $PWD` on each host);
  /// empty = stay in the login directory.
  std::string workingDirectory;
  /// Variables the agent sets in its own environment before starting workers (the launcher's FATHOM_*, NCCL_*,
  /// GLOO_*, TORCH_*, OMP_NUM_THREADS: forwardedEnvironment()).
  std::vector<std::pair<std::string, std::string>> environment;
  /// The launcher's Fathom version (BuildInfo::version): an agent of another version refuses the spec.
  std::string fathomVersion;
  /// The Unix socket on this host that the transport forwards to the launcher's telemetry collector (ssh -R), or
  /// empty. The agent waits for it to appear before it starts workers (the forwarding may be set up after the agent
  /// started, and a worker that cannot reach the collector fails), and removes it when it ends.
  std::string tunnelSocket;
};

/// The spec as one line of JSON.
std::string toJson(const AgentSpec& spec);
/// Reads toJson()'s output; ConfigError naming the key for anything missing or of the wrong type, and for options
/// that fail validate().
AgentSpec agentSpecFromJson(std::string_view json);

/// The "fathom_version" of a spec, read before anything else (a spec of another version may not parse); nothing
/// when `json` is not an object with that string.
std::optional<std::string> agentSpecVersion(std::string_view json);

/// The variables of `environ` that a multi-node launch forwards to every agent (see AgentSpec::environment).
std::vector<std::pair<std::string, std::string>> forwardedEnvironment();

}  // namespace fathom::launch
