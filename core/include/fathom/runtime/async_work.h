// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <memory>

namespace fathom::runtime {

/// A collective issued by ProcessGroup's *Async methods and not yet waited for. The backend (Gloo's worker
/// threads, or NCCL's stream) moves the bytes in the background; wait() blocks until the result is in the
/// tensor the call was given, then applies any local post-processing the synchronous path applies too (the
/// division of ReduceOp::Avg, the copy out of a temporary for an all-gather into a non-contiguous output, the
/// slice of an all_reduce that stands in for a reduce_scatter). The caller's tensors must stay alive and
/// untouched until wait() returns; the result is in them only then, even when isCompleted() is already true.
///
/// Move-only. An empty (default-constructed or moved-from) handle is valid() == false; wait() on it does nothing.
/// Destroying a handle that was never waited for does not wait: the backend keeps its own reference to the
/// operation and finishes it, but the post-processing is skipped and errors are lost. Wait for every handle.
class AsyncWork {
public:
  AsyncWork();
  ~AsyncWork();
  AsyncWork(AsyncWork&& other) noexcept;
  AsyncWork& operator=(AsyncWork&& other) noexcept;
  AsyncWork(const AsyncWork&) = delete;
  AsyncWork& operator=(const AsyncWork&) = delete;

  /// Whether this handle refers to an issued collective that has not been waited for yet.
  bool valid() const;
  /// Whether the backend has finished (successfully or not). Never blocks; false for an empty handle.
  bool isCompleted() const;
  /// Blocks until the collective has finished and post-processes the result. Throws CommError naming the rank,
  /// the group and the operation when the backend failed or timed out. The handle is empty afterwards, also
  /// when it threw.
  void wait();

  struct Impl;  ///< defined in core/src/runtime/async_work_impl.h

private:
  friend class ProcessGroup;
  explicit AsyncWork(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> m_impl;
};

}  // namespace fathom::runtime
