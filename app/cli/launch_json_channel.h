// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/launch/launch_observer.h>
#include <fathom/telemetry/launch_events.h>

#include <mutex>
#include <ostream>
#include <string>

namespace fathom::cli {

/// `fathom launch --json`: the launch's events (fathom/telemetry/launch_events.h) as JSON lines on `out`, one
/// flushed line each. As a LaunchObserver it stands in front of the run's recorder: every hook is passed on to
/// `inner` first, then the worker's start or end is written.
class LaunchJsonChannel : public launch::LaunchObserver {
public:
  LaunchJsonChannel(launch::LaunchObserver& inner, std::ostream& out) : m_inner(inner), m_out(out) {}

  /// Writes `event` as one line.
  void write(const telemetry::LaunchEvent& event);
  /// Writes one ready line (an alert, telemetry::alertJsonLine). Thread-safe with write(): the collector's writer
  /// thread reports alerts while the launcher's thread reports ranks.
  void writeLine(const std::string& line);

  std::vector<std::pair<std::string, std::string>> workerEnvironment() override { return m_inner.workerEnvironment(); }
  std::uint16_t telemetryPort() override { return m_inner.telemetryPort(); }
  std::vector<std::pair<std::string, std::string>> remoteWorkerEnvironment(const std::string& endpoint) override {
    return m_inner.remoteWorkerEnvironment(endpoint);
  }
  void workerStarted(const launch::WorkerEvent& worker) override;
  void workerEnded(const launch::WorkerEvent& worker, const launch::ExitStatus& status) override;

private:
  launch::LaunchObserver& m_inner;
  std::ostream& m_out;
  std::mutex m_mutex;  ///< one whole line at a time
};

}  // namespace fathom::cli
