// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/store/workspace.h>
#include <fathom/telemetry/run_monitor.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace fathom::telemetry {

struct CollectorOptions {
  /// The ingest queue between the connections and the writer holds at most this many metric points (other frames
  /// count as one point each). A full queue stops the connections' readers, so senders block: backpressure, never
  /// a drop.
  std::size_t queuePoints = 200'000;
  /// The writer commits at most this many points per transaction (it takes whatever is queued, up to this).
  std::size_t maxPointsPerCommit = 50'000;
  /// A new connection must send its hello within this time.
  std::chrono::milliseconds helloTimeout{5'000};
  /// stop() waits this long for connected senders to say bye or hang up before it closes their connections.
  std::chrono::milliseconds drainTimeout{10'000};
  /// The token senders must present; empty = a new random one (64 hex digits).
  std::string token;
  /// Hang and straggler detection over the heartbeats' collective wavefronts (docs/launch.md); the writer thread
  /// runs it after every commit (at least every 50 ms) and stores its alerts in the workspace.
  MonitorOptions monitor;
  /// Called on the writer thread after an alert was stored (raised: resolvedAt empty) or resolved. Must be quick
  /// and must not call the collector; `fathom launch` prints it and may stop the group.
  std::function<void(const store::AlertRow&)> onAlert;
};

/// Counters of a collector, readable at any time.
struct CollectorStats {
  std::uint64_t pointsCommitted = 0;  ///< metric points (memory samples count 3) in committed transactions
  std::uint64_t framesCommitted = 0;  ///< data frames committed (and acknowledged to their senders)
  std::uint64_t commits = 0;          ///< transactions
  double commitSeconds = 0;           ///< time spent in Workspace::append
  std::uint64_t connectionsAccepted = 0;
  std::uint64_t connectionsRefused = 0;  ///< wrong token, wrong version, no hello, not the protocol
  std::uint64_t protocolErrors = 0;      ///< accepted connections closed for a malformed frame
};

/// The launcher side of live telemetry (docs/workspace.md, "Telemetry"): listens on 127.0.0.1 (a port the kernel
/// picks), accepts senders that present the run's token, and is the only writer of the workspace while the run
/// lives. Every connection has a reader thread that decodes frames into a bounded queue; one writer thread
/// commits what is queued in one transaction at a time and then acknowledges, per connection, the highest sequence
/// number committed. So an acknowledged point is on disk (in the WAL) before its sender hears of it.
///
/// A connection whose hello carries a wrong token or protocol version is answered with a Refused frame, closed,
/// and recorded as a warning event of the run (rank -1). Threading: the public calls are thread-safe;
/// workspace() only after stop().
class TelemetryCollector {
public:
  /// Takes the workspace (the caller must not write it until stop()) and starts listening. CommError when no
  /// socket can be opened.
  TelemetryCollector(store::Workspace workspace, store::RunId run, CollectorOptions options = {});
  /// Calls stop().
  ~TelemetryCollector();
  TelemetryCollector(const TelemetryCollector&) = delete;
  TelemetryCollector& operator=(const TelemetryCollector&) = delete;

  /// "127.0.0.1:PORT".
  std::string endpoint() const;
  std::uint16_t port() const;
  const std::string& token() const;
  store::RunId run() const;

  /// FATHOM_TELEMETRY_ENDPOINT, FATHOM_TELEMETRY_TOKEN and FATHOM_RUN_ID for the workers.
  std::vector<std::pair<std::string, std::string>> workerEnvironment() const;

  /// Queues a rank row (the launcher records host, pid and exit codes this way, through the one writer).
  void recordRank(const store::RankInfo& rank);
  /// Queues an event of the run (rank -1 for the launcher's own).
  void recordEvent(const store::EventRecord& event);

  /// Stops accepting, lets connected senders finish (up to drainTimeout), commits everything queued, and joins
  /// every thread. Idempotent. Rethrows the writer's StorageError, if the workspace failed.
  void stop();

  /// The workspace, for the launcher's final writes. Only after stop().
  store::Workspace& workspace();

  CollectorStats stats() const;

private:
  class Impl;
  std::unique_ptr<Impl> m_impl;
};

/// 32 random bytes as 64 lower-case hex digits (std::random_device, the kernel's generator on Linux).
std::string randomToken();

}  // namespace fathom::telemetry
