// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "pending_call.h"
#include <fathom/runtime/async_work.h>

namespace fathom::parallel {

/// An asynchronous collective issued through Comm (Comm::allReduceAsync, Comm::broadcastAsync): the backend's
/// work plus the record that was begun when the call was issued. wait() blocks until the result is in the
/// tensor, then finishes the record, so its `start` is the issue time and its `duration` runs from issue to the
/// moment wait() observed completion (an upper bound on the wire time when the caller waits late).
///
/// Move-only. Destroying a CommWork that was never waited for waits in the destructor and swallows any error
/// (the collective was issued on every rank and must drain before its tensor may be reused); such a call is
/// recorded when it succeeded. Wait explicitly to see errors.
class CommWork {
public:
  CommWork() = default;
  /// Takes over an issued call: what the issue launched is done, so the profiler's correlation scope closes.
  CommWork(PendingCall call, runtime::AsyncWork work) : m_call(std::move(call)), m_work(std::move(work)) {
    m_call.issued();
  }
  ~CommWork();
  CommWork(CommWork&& other) noexcept = default;
  CommWork& operator=(CommWork&& other) noexcept;
  CommWork(const CommWork&) = delete;
  CommWork& operator=(const CommWork&) = delete;

  /// Whether a collective is attached and not yet waited for.
  bool valid() const { return m_work.valid(); }
  /// Whether the backend has finished; never blocks. False for an empty handle.
  bool isCompleted() const { return m_work.isCompleted(); }
  /// Blocks until the result is available, then records the call. Throws CommError (runtime::AsyncWork::wait)
  /// when the collective failed; a failed call is not recorded. Empty afterwards; waiting again does nothing.
  void wait();
  /// The record being built (start, kind, bytes, label), before and until wait().
  const CommRecord& record() const { return m_call.record(); }

private:
  void waitQuietly() noexcept;

  PendingCall m_call;
  runtime::AsyncWork m_work;
};

}  // namespace fathom::parallel
