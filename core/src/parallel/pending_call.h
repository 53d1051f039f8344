// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/parallel/comm_record.h>

namespace fathom::parallel {

class CommRecorder;

/// A collective that has started and not yet finished: the handle that separates issuing a call from
/// completing it, so asynchronous (overlapped) collectives record the same way as synchronous ones. Created
/// by CommRecorder::begin, which stamps the start time, sequence number and current step. finish() stamps the
/// duration and stores the record; a handle destroyed unfinished (the collective threw) records nothing.
/// Move-only; not thread-safe itself (finish it on one thread), while the recorder it feeds is.
class PendingCall {
public:
  PendingCall() = default;
  PendingCall(PendingCall&& other) noexcept;
  PendingCall& operator=(PendingCall&& other) noexcept;
  PendingCall(const PendingCall&) = delete;
  PendingCall& operator=(const PendingCall&) = delete;
  /// An active handle dies only when its collective threw: the recorder hears of it (the wavefront's in-flight
  /// time ends) and records nothing.
  ~PendingCall();

  /// The record being built; callers may amend what ran (kind, bytes) before finish().
  CommRecord& record() { return m_record; }
  /// The record being built.
  const CommRecord& record() const { return m_record; }
  /// Whether finish() may still be called (begun and not yet finished).
  bool active() const { return m_recorder != nullptr; }
  /// The collective has been handed to the process group (an asynchronous one is in flight): closes the profiler's
  /// correlation scope opened by begin, so later GPU work on this thread is not attributed to it. Idempotent;
  /// finish() and the destructor call it too.
  void issued();
  /// Stamps the duration (now - start) and stores the record. No effect on an inactive handle.
  void finish();

private:
  friend class CommRecorder;
  PendingCall(CommRecorder* recorder, CommRecord record)
      : m_recorder(recorder), m_record(std::move(record)), m_issueOpen(m_record.externalId != 0) {}

  CommRecorder* m_recorder = nullptr;
  CommRecord m_record;
  bool m_issueOpen = false;  ///< the profiler's correlation id is pushed and not yet popped
};

}  // namespace fathom::parallel
