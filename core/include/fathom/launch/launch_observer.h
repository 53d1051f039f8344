// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/launch/worker_process.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace fathom::launch {

/// One worker of one attempt, as an observer sees it.
struct WorkerEvent {
  int rank = 0;       ///< global rank
  int localRank = 0;  ///< index on this machine
  int attempt = 0;    ///< 0 for the first attempt, then one per restart
  std::int64_t pid = 0;
  /// The host it runs on, as the multi-node launch names it (`--hosts`); empty: this machine.
  std::string host;
};

/// Hooks into LocalLauncher::run() and MultiNodeLauncher::run() (the workspace recorder uses them). Every call comes
/// from the thread running run(), which waits for it: keep them short and never throw.
class LaunchObserver {
public:
  virtual ~LaunchObserver() = default;
  /// Variables every worker gets on top of workerVariables() (the telemetry endpoint and token), asked once per
  /// attempt. They replace the launcher's own variables of the same name.
  virtual std::vector<std::pair<std::string, std::string>> workerEnvironment() { return {}; }
  /// The port of the launcher's telemetry collector on 127.0.0.1, which a multi-node launch carries to the other
  /// hosts; 0: none.
  virtual std::uint16_t telemetryPort() { return 0; }
  /// workerEnvironment() for workers on another host, which reach the collector at `endpoint` ("ADDRESS:PORT" or
  /// "unix:PATH") instead.
  virtual std::vector<std::pair<std::string, std::string>> remoteWorkerEnvironment(const std::string& /*endpoint*/) {
    return {};
  }
  /// A worker was spawned.
  virtual void workerStarted(const WorkerEvent& /*worker*/) {}
  /// A worker was reaped (every spawned worker is, unless run() throws).
  virtual void workerEnded(const WorkerEvent& /*worker*/, const ExitStatus& /*status*/) {}
};

}  // namespace fathom::launch
