// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/common/log.h>
#include <fathom/parallel/collective_wavefront.h>
#include <fathom/store/records.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace fathom::telemetry {

/// One memory reading of a rank, stored as the metrics memory/allocated_bytes, memory/reserved_bytes and
/// memory/peak_allocated_bytes.
struct MemorySample {
  double wallTime = 0;
  std::int64_t step = 0;
  std::int64_t allocatedBytes = 0;
  std::int64_t reservedBytes = 0;
  std::int64_t peakAllocatedBytes = 0;
};

/// Where a sender connects and who it is.
struct TelemetryEndpoint {
  std::string host = "127.0.0.1";
  std::uint16_t port = 0;
  std::string token;
  int rank = 0;
  /// Non-empty: the collector is a Unix socket here (on another host than the launcher's: its port forwarded by
  /// ssh -R), and host and port are unused.
  std::string unixPath;

  /// From FATHOM_TELEMETRY_ENDPOINT, FATHOM_TELEMETRY_TOKEN and RANK (0 when unset), as `fathom launch` sets
  /// them. Nothing when FATHOM_TELEMETRY_ENDPOINT is unset (a program started without the launcher); ConfigError
  /// naming the variable when one is malformed or the token is missing.
  static std::optional<TelemetryEndpoint> fromEnvironment();
};

struct SenderOptions {
  /// A metrics frame is sealed and queued at this many points ...
  std::size_t batchPoints = 4096;
  /// ... or when its first point is this old (the I/O thread seals it), so a quiet trainer's points still flow.
  std::chrono::milliseconds flushInterval{200};
  /// Sealed frames waiting for the socket. When full, the calls that queue (addMetric and the others) block
  /// until the collector takes more: a slow disk slows the trainer instead of losing points.
  std::size_t maxQueuedFrames = 32;
  /// A heartbeat frame this often, whatever else is sent (it carries the collective wavefront the launcher's run
  /// monitor compares, read on the I/O thread, so a rank blocked in a collective still reports); zero: none.
  std::chrono::milliseconds heartbeatInterval{1'000};
  /// Connecting and the hello/welcome exchange.
  std::chrono::milliseconds connectTimeout{10'000};
  /// flush() and close() wait this long for the collector's acknowledgement.
  std::chrono::milliseconds ackTimeout{120'000};
  /// Called on the I/O thread after every ack, with the total of acknowledged points (metric points; a memory
  /// sample counts 3). Must be quick and must not call the sender. flush() and close() return only after the
  /// callback of the ack they waited for has run.
  std::function<void(std::uint64_t)> onAcknowledged;
};

/// The worker side of live telemetry (docs/workspace.md, "Telemetry"): connects to the launcher's collector,
/// batches metric points into frames, and sends them from a background I/O thread, which also reads the
/// collector's acks and sends heartbeats. Every frame carries a sequence number; a point is acknowledged once the
/// collector has committed it to the workspace.
///
/// Not thread-safe: one thread calls it (the I/O thread is internal). Errors of the connection (the collector
/// gone, a refusal) surface as fathom::CommError from the next call.
class TelemetrySender {
public:
  /// Connects and exchanges hello/welcome. CommError when the collector cannot be reached or refuses (the
  /// message carries its reason, e.g. "wrong token").
  explicit TelemetrySender(const TelemetryEndpoint& endpoint, SenderOptions options = {});
  /// close(), swallowing (and logging) its errors.
  ~TelemetrySender();
  TelemetrySender(const TelemetrySender&) = delete;
  TelemetrySender& operator=(const TelemetrySender&) = delete;

  /// The run id the collector's welcome named.
  std::int64_t runId() const;
  int rank() const;

  /// Adds one point to the current metrics frame (sealed at batchPoints or flushInterval).
  void addMetric(std::int64_t step, double wallTime, std::string_view key, double value);
  void sendMemory(const MemorySample& sample);
  void sendLog(LogLevel level, std::string_view text, double time);
  /// One chunk of the trace `name`; chunks of a name are stored in the order sent.
  void sendTrace(std::string_view name, std::string_view bytes, double time);
  /// A file the run produced (stored as an artifact of the run).
  void sendArtifact(const store::Artifact& artifact, double time);
  /// The setup this process trains with (rank 0's replaces the strategy and precision the launcher recorded).
  void sendSetup(const store::RunSetup& setup);
  /// A device map this rank dispatched a model with (bigmodel::DispatchRecord's JSON), stored with the run.
  void sendDeviceMap(std::string_view recordJson, double time);
  /// The step heartbeats report (the latest step the trainer logged, by default).
  void setStep(std::int64_t step);
  /// From now on every heartbeat carries this rank's collective wavefront (the Accelerator passes its Comm
  /// recorder's). The I/O thread reads it; the sender shares its ownership. nullptr stops it.
  void watchCollectives(std::shared_ptr<const parallel::CollectiveWavefront> wavefront);

  /// Seals the current frame and waits until everything sent so far is acknowledged. CommError on a broken
  /// connection or after ackTimeout.
  void flush();
  /// flush(), a bye frame, its acknowledgement, and the end of the connection. Idempotent.
  void close();

  /// Points queued so far (metric points; a memory sample counts 3).
  std::uint64_t sentPoints() const;
  /// Points the collector acknowledged (committed).
  std::uint64_t acknowledgedPoints() const;

private:
  class Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace fathom::telemetry
