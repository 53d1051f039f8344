// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/parallel/collective_wavefront.h>
#include <fathom/parallel/comm_record.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace fathom::parallel {

/// The handle of a begun call (core/src/parallel/pending_call.h): internal to the Comm layer, which begins and
/// finishes every call itself; only its white-box test includes the definition.
class PendingCall;

/// Capacities of a CommRecorder.
struct CommRecorderOptions {
  /// Records kept; when full, the oldest is dropped (and counted). Must be >= 1.
  std::size_t capacity = 65536;
  /// Steps whose totals are kept; when exceeded, the oldest step's totals are dropped. Must be >= 1.
  std::size_t maxSteps = 4096;
};

/// A bounded, thread-safe store of CommRecords and of per-step, per-kind totals. Totals are accumulated as
/// records arrive, so they stay exact for the steps kept even after the record ring has overwritten the calls
/// they came from. Every member may be called from any thread; appends take one uncontended mutex and copy the
/// record into a preallocated ring (no allocation unless the label outgrows the small-string buffer).
class CommRecorder {
public:
  /// Throws ConfigError for a zero capacity or maxSteps. The epoch (time zero) is now.
  explicit CommRecorder(const CommRecorderOptions& options = {});

  /// Nanoseconds since the epoch on the steady clock.
  CommNanos now() const;
  /// Starts a call: stamps `draft` with a sequence number, the current step and the start time. Internal to
  /// core/parallel (the handle's type is defined in core/src/parallel/pending_call.h); others append().
  PendingCall begin(CommRecord draft);
  /// Stores a finished record as is, except for `sequence` and `step`, which the recorder assigns.
  void append(CommRecord record);

  /// Starts step `step`: later calls are counted under it. Steps must not go backwards (ConfigError naming both
  /// values); marking the current step again does nothing. Before the first mark the current step is 0.
  void markStep(std::int64_t step);
  /// Continues at step `step` after a checkpoint was loaded (step >= 0; ConfigError otherwise): forward, as
  /// markStep; backward (an earlier checkpoint), the totals of `step` and later are forgotten, since those steps run
  /// again, and later calls are counted under `step`. The records kept keep their steps.
  void resumeAt(std::int64_t step);
  /// The step calls are currently counted under.
  std::int64_t currentStep() const;

  /// The records kept, oldest first.
  std::vector<CommRecord> records() const;
  /// Number of records kept (<= capacity()).
  std::size_t size() const;
  /// Records dropped because the ring was full, since construction or the last reset().
  std::uint64_t droppedRecords() const;
  /// Maximum number of records kept.
  std::size_t capacity() const { return m_options.capacity; }

  /// Totals of `step`, or std::nullopt when no such step was marked or it has been dropped.
  std::optional<StepTotals> stepTotals(std::int64_t step) const;
  /// Totals of every step kept, oldest first (the current step last, even when it has no calls yet).
  std::vector<StepTotals> allStepTotals() const;

  /// Forgets every record and total and returns to step 0. Sequence numbers keep counting; the epoch stays.
  void reset();

  /// The last call begun and the last finished, kept current by begin() and the handle's finish(): what this rank
  /// reports with its heartbeats (the telemetry sender holds this handle and reads it from its own thread).
  std::shared_ptr<const CollectiveWavefront> wavefront() const { return m_wavefront; }

private:
  friend class PendingCall;
  void complete(CommRecord&& record);
  /// A begun call whose handle died unfinished (the collective threw).
  void abandon(const CommRecord& record);
  /// Hands a finished record that a profiler correlated to it (as a Fathom collective span).
  void reportToProfiler(const CommRecord& record) const;
  void storeLocked(CommRecord&& record);

  CommRecorderOptions m_options;
  std::chrono::steady_clock::time_point m_epoch;
  std::atomic<std::uint64_t> m_nextSequence{0};
  std::atomic<std::int64_t> m_currentStep{0};

  mutable std::mutex m_mutex;
  std::vector<CommRecord> m_ring;  ///< preallocated to capacity
  std::size_t m_head = 0;          ///< index of the oldest record
  std::size_t m_size = 0;          ///< records kept
  std::uint64_t m_dropped = 0;
  std::deque<StepTotals> m_steps;  ///< oldest first; back() is the current step
  std::shared_ptr<CollectiveWavefront> m_wavefront = std::make_shared<CollectiveWavefront>();  ///< never null
};

}  // namespace fathom::parallel
