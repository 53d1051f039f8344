// SPDX-License-Identifier: Apache-2.0
#include "fathom/runtime/allocation_tracker.h"

#include "fathom/common/error.h"
#include "runtime/torch_compat.h"

#include <c10/core/Allocator.h>
#include <c10/util/ThreadLocalDebugInfo.h>

#include <atomic>

namespace fathom::runtime {

/// The c10 hook: the allocators call reportMemoryUsage(ptr, ±bytes, ...) while memoryProfilingEnabled().
class AllocationTracker::Reporter final : public c10::MemoryReportingInfoBase {
public:
  void reportMemoryUsage(void* /*ptr*/, std::int64_t size, compat::MemoryTotal /*totalAllocated*/,
                         compat::MemoryTotal /*totalReserved*/, c10::Device /*device*/) override {
    if (!enabled.load(std::memory_order_relaxed) || size == 0) {
      return;
    }
    const std::int64_t now = current.fetch_add(size, std::memory_order_relaxed) + size;
    if (size > 0) {
      allocated.fetch_add(size, std::memory_order_relaxed);
      allocations.fetch_add(1, std::memory_order_relaxed);
      std::int64_t seen = peak.load(std::memory_order_relaxed);
      while (now > seen && !peak.compare_exchange_weak(seen, now, std::memory_order_relaxed)) {
      }
    } else {
      frees.fetch_add(1, std::memory_order_relaxed);
    }
  }

  bool memoryProfilingEnabled() const override { return enabled.load(std::memory_order_relaxed); }

  void reset() {
    current = 0;
    peak = 0;
    allocated = 0;
    allocations = 0;
    frees = 0;
  }

  std::atomic<bool> enabled{false};
  std::atomic<std::int64_t> current{0};
  std::atomic<std::int64_t> peak{0};
  std::atomic<std::int64_t> allocated{0};
  std::atomic<std::int64_t> allocations{0};
  std::atomic<std::int64_t> frees{0};
};

struct AllocationTracker::Install {
  explicit Install(std::shared_ptr<c10::DebugInfoBase> info)
      : guard(c10::DebugInfoKind::PROFILER_STATE, std::move(info)) {}
  c10::DebugInfoGuard guard;
};

AllocationTracker::AllocationTracker() : m_reporter(std::make_shared<Reporter>()) {}

AllocationTracker::~AllocationTracker() {
  stop();
}

void AllocationTracker::start() {
  FATHOM_CHECK(!m_install, ConfigError, "AllocationTracker::start: already running");
  m_reporter->reset();
  m_reporter->enabled = true;
  m_install = std::make_unique<Install>(m_reporter);
}

void AllocationTracker::stop() {
  if (!m_install) {
    return;
  }
  m_reporter->enabled = false;
  m_install.reset();
}

bool AllocationTracker::isRunning() const {
  return m_install != nullptr;
}

std::int64_t AllocationTracker::currentBytes() const {
  return m_reporter->current.load();
}

std::int64_t AllocationTracker::peakBytes() const {
  return m_reporter->peak.load();
}

std::int64_t AllocationTracker::allocationCount() const {
  return m_reporter->allocations.load();
}

void AllocationTracker::resetPeak() {
  m_reporter->peak = m_reporter->current.load();
}

AllocationStats AllocationTracker::stats() const {
  return {.currentBytes = m_reporter->current.load(),
          .peakBytes = m_reporter->peak.load(),
          .allocatedBytes = m_reporter->allocated.load(),
          .allocations = m_reporter->allocations.load(),
          .frees = m_reporter->frees.load()};
}

}  // namespace fathom::runtime
