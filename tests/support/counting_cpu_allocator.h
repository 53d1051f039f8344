// SPDX-License-Identifier: Apache-2.0
// A test-only global CPU allocator that counts the bytes LibTorch holds, on every thread.
#pragma once

#include <c10/core/Allocator.h>

#include <chrono>
#include <cstdint>

namespace fathom::test {

/// Wraps the CPU allocator installed when install() runs (c10's default, which still reports to the profiler's
/// ProfiledCPUMemoryReporter) and counts the bytes of every block it hands out until that block is freed, whatever
/// thread frees it: a collective's input copy dropped by a Gloo worker thread counts as freed too, unlike
/// runtime::AllocationTracker, which sees only its own thread's frees.
///
/// Install it before the tensors to be accounted for exist: blocks allocated earlier keep the inner allocator's
/// deleter and are never counted, either way (a storage also keeps the allocator it was created with, which the
/// flat parameters' free/gather cycle reuses). A window is two readings of liveBytes(); between them the count
/// moves by what was allocated minus what was freed, old blocks included.
///
/// raw_deleter() is provided (a block's context is its data pointer), so raw_allocate/raw_deallocate keep
/// working. The bookkeeping is one mutex-protected map: test workloads only.
class CountingCpuAllocator final : public c10::Allocator {
public:
  /// Installs the allocator (once per process; later calls return the same one). Not thread-safe against
  /// allocations running concurrently: call it first thing in a worker's main.
  static CountingCpuAllocator& install();

  c10::DataPtr allocate(std::size_t bytes) const override;
  c10::DeleterFnPtr raw_deleter() const override;

  /// Bytes of the blocks allocated through this allocator and not freed yet.
  std::int64_t liveBytes() const;
  /// liveBytes() once it has not moved for `quiet`: frees that a backend thread does after a collective's wait()
  /// returned (it drops its reference to the work a moment later) have then happened. Gives up after `limit` and
  /// returns the last reading.
  std::int64_t settledLiveBytes(std::chrono::milliseconds quiet = std::chrono::milliseconds(20),
                                std::chrono::milliseconds limit = std::chrono::milliseconds(2000)) const;

private:
  explicit CountingCpuAllocator(c10::Allocator* inner);
  c10::Allocator* m_inner;
};

}  // namespace fathom::test
