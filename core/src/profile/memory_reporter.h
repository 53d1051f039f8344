// SPDX-License-Identifier: Apache-2.0
// Allocation and free events from LibTorch's allocators. Private to core/profile.
#pragma once

#include <memory>

namespace fathom::profile::detail {

class CaptureSession;

/// Installs itself as the calling thread's c10::MemoryReportingInfoBase (ThreadLocalDebugInfo, PROFILER_STATE,
/// the slot torch.profiler's profile_memory uses) for as long as it lives: LibTorch's CPU allocator and CUDA
/// caching allocator then report every allocation (+bytes) and free (-bytes) made on this thread and on the
/// threads ATen propagates its thread-local state to (autograd's engine threads). Each report updates the
/// session's live blocks and, while a window collects, is appended to the reporting thread's buffer with the
/// current phase instance and category hint. Create and destroy it on the same thread (the install is stacked).
class MemoryReporter {
public:
  explicit MemoryReporter(CaptureSession& session);
  ~MemoryReporter();
  MemoryReporter(const MemoryReporter&) = delete;
  MemoryReporter& operator=(const MemoryReporter&) = delete;

private:
  struct Install;
  std::unique_ptr<Install> m_install;
};

}  // namespace fathom::profile::detail
