// SPDX-License-Identifier: Apache-2.0
#include "launch_json_channel.h"

namespace fathom::cli {

void LaunchJsonChannel::write(const telemetry::LaunchEvent& event) {
  writeLine(telemetry::toJsonLine(event));
}

void LaunchJsonChannel::writeLine(const std::string& line) {
  // A closed or full stdout must not stop the launch: the stream's error state is the caller's to read.
  const std::lock_guard lock(m_mutex);
  m_out << line << '\n';
  m_out.flush();
}

void LaunchJsonChannel::workerStarted(const launch::WorkerEvent& worker) {
  m_inner.workerStarted(worker);
  write(telemetry::RankStarted{worker.rank, worker.localRank, worker.attempt, worker.pid});
}

void LaunchJsonChannel::workerEnded(const launch::WorkerEvent& worker, const launch::ExitStatus& status) {
  m_inner.workerEnded(worker, status);
  write(telemetry::RankEnded{worker.rank, worker.localRank, worker.attempt, worker.pid, status.shellCode(),
                             status.signaled ? std::optional<int>(status.value) : std::nullopt});
}

}  // namespace fathom::cli
