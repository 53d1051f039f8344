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
};

/// Hooks into LocalLauncher::run() (the workspace recorder uses them). Every call comes from the thread running
/// run(), which waits for it: keep them short and never throw.
class LaunchObserver {
public:
  virtual ~LaunchObserver() = default;
  /// Variables every worker gets on top of workerVariables() (the telemetry endpoint and token), asked once per
  /// attempt. They replace the launcher's own variables of the same name.
  virtual std::vector<std::pair<std::string, std::string>> workerEnvironment() { return {}; }
  /// A worker was spawned.
  virtual void workerStarted(const WorkerEvent& /*worker*/) {}
  /// A worker was reaped (every spawned worker is, unless run() throws).
  virtual void workerEnded(const WorkerEvent& /*worker*/, const ExitStatus& /*status*/) {}
};

}  // namespace fathom::launch
