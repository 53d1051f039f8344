// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <memory>

namespace fathom::runtime {

/// Counters of an AllocationTracker since its last start(). Byte counts are what the allocator was asked for
/// (LibTorch's CPU allocator rounds nothing up; its 64-byte alignment is not counted).
struct AllocationStats {
  std::int64_t currentBytes = 0;    ///< allocated minus freed since start()
  std::int64_t peakBytes = 0;       ///< highest currentBytes since start() or resetPeak()
  std::int64_t allocatedBytes = 0;  ///< sum of every allocation since start()
  std::int64_t allocations = 0;     ///< number of allocations since start()
  std::int64_t frees = 0;           ///< number of frees of blocks allocated since start()
};

/// Counts the tensor memory LibTorch allocates on the calling thread, from the allocator itself: while running,
/// it is installed as the thread's c10::MemoryReportingInfoBase (c10::ThreadLocalDebugInfo, kind
/// PROFILER_STATE), which LibTorch 1.13's CPU allocator (ProfiledCPUMemoryReporter) and CUDA caching allocator
/// call on every allocation (+bytes) and free (-bytes). This is what the LibTorch profiler's memory profiling
/// uses, so the numbers are the allocator's own, not an estimate from tensor shapes.
///
///     runtime::AllocationTracker tracker;
///     tracker.start();
///     at::Tensor out = model->forward(x);          // what forward keeps alive for backward stays allocated
///     std::int64_t held = tracker.currentBytes();  // bytes still allocated since start()
///     std::int64_t peak = tracker.peakBytes();     // high-water mark since start()
///     tracker.stop();
///
/// Rules:
/// - start() and stop() must run on the same thread (the install is thread-local and stacked); the destructor
///   stops a running tracker, so destroy it on that thread too. Allocations on other threads are seen only where
///   ATen propagates the thread-local state (at::launch, autograd's engine threads do; OpenMP intra-op workers
///   do not, but ATen allocates op outputs on the calling thread).
/// - Only blocks allocated after start() are counted: the allocator remembers a block's size only while a
///   tracker is installed, so a free of an older block is not reported (LibTorch logs "Memory block of unknown
///   size was allocated before the profiling started" once per 1000 such frees) and does not lower the count.
/// - Every device the allocators report is summed (CPU here; CUDA's caching allocator reports too).
/// - Do not run it inside the LibTorch autograd profiler's memory profiling: both use the PROFILER_STATE slot,
///   and the innermost one wins.
/// The counters are atomics, safe to read from another thread while running.
class AllocationTracker {
public:
  AllocationTracker();
  ~AllocationTracker();
  AllocationTracker(const AllocationTracker&) = delete;
  AllocationTracker& operator=(const AllocationTracker&) = delete;

  /// Resets every counter and installs the tracker on the calling thread. Throws fathom::ConfigError when
  /// already running.
  void start();
  /// Uninstalls it (same thread as start()); the counters keep their values. No-op when not running.
  void stop();
  bool isRunning() const;

  /// Bytes allocated minus bytes freed since start().
  std::int64_t currentBytes() const;
  /// High-water mark of currentBytes() since start() or the last resetPeak().
  std::int64_t peakBytes() const;
  /// Allocations since start().
  std::int64_t allocationCount() const;
  /// Sets the peak to the current value (to measure the peak of one phase).
  void resetPeak();
  /// All counters at once (each read atomically; not one snapshot while other threads allocate).
  AllocationStats stats() const;

private:
  class Reporter;
  std::shared_ptr<Reporter> m_reporter;
  struct Install;
  std::unique_ptr<Install> m_install;
};

}  // namespace fathom::runtime
