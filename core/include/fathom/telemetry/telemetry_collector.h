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
  /// A new connection must have sent its whole hello within this time of being accepted (one deadline for the
  /// whole hello, however the bytes trickle in); then it is dropped.
  std::chrono::milliseconds helloTimeout{5'000};
  /// The ranks expected to connect (`fathom launch` sets its local world size); 0: unknown. Sizes maxConnections'
  /// default.
  std::size_t expectedRanks = 0;
  /// Connections accepted but not yet welcomed (no complete hello yet) held at once. A connection beyond it makes
  /// room by dropping the oldest such connection (a real rank sends its hello within milliseconds of connecting),
  /// so a flood of silent connections cannot keep a rank out for long.
  std::size_t maxPendingConnections = 64;
  /// Connections open at once, welcomed and pending together; a new one beyond it is refused (welcomed
  /// connections are never disturbed). 0: maxPendingConnections + 4 per expected rank (+ 256 when expectedRanks
  /// is 0): see effectiveMaxConnections().
  std::size_t maxConnections = 0;
  /// Refused connections are reported without flooding: the first with its peer and reason (a stderr line and a
  /// warning event), then at most one stderr line per interval with the counts by reason, and at stop() one
  /// warning event with the run's totals (docs/workspace.md, "Limits").
  std::chrono::milliseconds refusalSummaryInterval{10'000};
  /// stop() waits this long for connected senders to say bye or hang up before it closes their connections.
  std::chrono::milliseconds drainTimeout{10'000};
  /// Where the collector listens: 127.0.0.1 (only this machine's workers, and ssh tunnels, reach it), or "0.0.0.0"
  /// when workers on other hosts connect directly (`fathom launch --same_network`); the token guards it either way.
  std::string listenAddress = "127.0.0.1";
  /// The token senders must present; empty = a new random one (64 hex digits).
  std::string token;
  /// Hang and straggler detection over the heartbeats' collective wavefronts (docs/launch.md); the writer thread
  /// runs it after every commit (at least every 50 ms) and stores its alerts in the workspace.
  MonitorOptions monitor;
  /// Called on the writer thread after an alert was stored (raised: resolvedAt empty) or resolved. Must be quick
  /// and must not call the collector; `fathom launch` prints it and may stop the group.
  std::function<void(const store::AlertRow&)> onAlert;

  /// maxConnections, or its default when it is 0.
  std::size_t effectiveMaxConnections() const;
};

/// Refused connections by reason.
struct RefusalCounts {
  std::uint64_t wrongToken = 0;
  std::uint64_t wrongVersion = 0;  ///< a hello of another protocol version
  std::uint64_t malformed = 0;     ///< not a hello, not this protocol, or a hello over protocol::kMaxHelloBytes
  std::uint64_t noHello = 0;       ///< hung up or ran out of helloTimeout before a complete hello
  std::uint64_t overLimit = 0;     ///< beyond maxPendingConnections or maxConnections
  std::uint64_t total() const { return wrongToken + wrongVersion + malformed + noHello + overLimit; }
};

/// Counters of a collector, readable at any time.
struct CollectorStats {
  std::uint64_t pointsCommitted = 0;  ///< metric points (memory samples count 3) in committed transactions
  std::uint64_t framesCommitted = 0;  ///< data frames committed (and acknowledged to their senders)
  std::uint64_t commits = 0;          ///< transactions
  double commitSeconds = 0;           ///< time spent in Workspace::append
  std::uint64_t connectionsAccepted = 0;
  std::uint64_t connectionsRefused = 0;  ///< wrong token, wrong version, no hello, not the protocol, over a limit
  RefusalCounts refused;                 ///< connectionsRefused by reason
  std::uint64_t protocolErrors = 0;      ///< accepted connections closed for a malformed frame
  std::uint64_t acceptBackoffs = 0;      ///< times accept() failed for want of descriptors/memory and paused
  std::size_t openConnections = 0;       ///< welcomed connections now open (their readers not yet joined)
  std::size_t pendingConnections = 0;    ///< accepted connections now waiting for their hello
};

/// The launcher side of live telemetry (docs/workspace.md, "Telemetry"): listens on 127.0.0.1 (a port the kernel
/// picks), accepts senders that present the run's token, and is the only writer of the workspace while the run
/// lives. Every welcomed connection has a reader thread that decodes frames into a bounded queue; one writer thread
/// commits what is queued in one transaction at a time and then acknowledges, per connection, the highest sequence
/// number committed. So an acknowledged point is on disk (in the WAL) before its sender hears of it.
///
/// Connections that have not presented the token cost no thread and little memory: one accept thread reads every
/// hello (at most protocol::kMaxHelloBytes, under one helloTimeout deadline) with poll(), and only a welcomed
/// connection gets a reader thread; a reader that ends is joined and its descriptor closed at once. A connection
/// whose hello carries a wrong token or protocol version, is not a hello, comes too late or is over a limit is
/// answered with a Refused frame (where it can take one) and closed; refusals are counted and reported at a bounded
/// rate (refusalSummaryInterval). At the process's descriptor limit the accept thread pauses (up to 1 s) instead
/// of spinning. Threading: the public calls are thread-safe; workspace() only after stop().
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

  /// FATHOM_TELEMETRY_ENDPOINT, FATHOM_TELEMETRY_TOKEN and FATHOM_RUN_ID for the workers; the endpoint is
  /// endpoint() unless the workers reach the collector another way (`endpointSeenByWorkers`: another host's
  /// "ADDRESS:PORT", or "unix:PATH" of an ssh tunnel).
  std::vector<std::pair<std::string, std::string>>
  workerEnvironment(const std::string& endpointSeenByWorkers = {}) const;

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
