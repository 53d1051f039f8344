// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/parallel/comm_kind.h>

#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

namespace fathom::parallel {

/// One collective call of a rank, as the hang detector compares it across ranks (docs/launch.md, "Hang and
/// straggler detection"). Free of LibTorch: the telemetry sender reads it, the wire format and the workspace carry it.
struct CollectivePosition {
  /// CommRecord::sequence: the call's index on this rank's recorder, counting every group the recorder serves. Ranks
  /// that run the same program issue the same sequence, so equal numbers are the same call on every rank.
  std::uint64_t sequence = 0;
  CommKind kind = CommKind::AllReduce;  ///< what ran on the wire
  std::string group = "world";          ///< the process group: "world" or a sub-group's name ("hybrid.shard.0")
  int groupSize = 1;                    ///< ranks in that group
  std::int64_t bytes = 0;               ///< whole-buffer bytes (CommRecord::bytes)

  bool operator==(const CollectivePosition&) const = default;
};

/// A rank's collective wavefront at one moment: the last call it entered, the last it finished, and its own work.
struct WavefrontSnapshot {
  std::optional<CollectivePosition> entered;   ///< the call begun last (the highest sequence begun)
  std::optional<CollectivePosition> finished;  ///< the finished call with the highest sequence
  std::int64_t step = 0;                       ///< the step the recorder counts under (Comm::markStep)
  /// Seconds this rank spent with no collective in flight, from the recorder's creation to the latest markStep():
  /// its own work (compute, data loading, sleeping). In synchronous training every rank's wall time per step is the
  /// same (the fast ones wait inside the collectives), so the straggler detector compares this instead:
  /// Δ workSecondsAtStep / Δ step between two snapshots is the rank's own time per step.
  double workSecondsAtStep = 0;

  bool operator==(const WavefrontSnapshot&) const = default;
};

/// The thread-safe wavefront of one rank's CommRecorder: updated by the recorder as calls begin and finish (on the
/// training thread, or a backend thread for asynchronous calls), read by the telemetry sender's I/O thread whenever
/// it sends a heartbeat, so a rank blocked inside a collective still reports where it is. One small mutex; every
/// operation is O(1) and copies at most one short group name.
class CollectiveWavefront {
public:
  CollectiveWavefront();

  /// A call was begun (its sequence is the highest so far).
  void entered(const CollectivePosition& call);
  /// A call finished; `finished` moves only forward (asynchronous calls may finish out of order).
  void finished(const CollectivePosition& call);
  /// A begun call will never finish (it threw): its time stops counting as in flight; `finished` stays.
  void abandoned();
  /// The recorder's step moved to `step`: stamps workSecondsAtStep.
  void markStep(std::int64_t step);

  WavefrontSnapshot snapshot() const;

private:
  using Clock = std::chrono::steady_clock;
  /// The busy (in-flight) time closes while no call is in flight.
  void leaveLocked(Clock::time_point now);

  mutable std::mutex m_mutex;
  WavefrontSnapshot m_state;
  int m_inFlight = 0;
  Clock::time_point m_epoch;
  Clock::time_point m_busySince;
  Clock::duration m_busy{0};  ///< closed intervals during which at least one call was in flight
};

}  // namespace fathom::parallel
