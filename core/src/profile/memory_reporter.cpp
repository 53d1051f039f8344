// SPDX-License-Identifier: Apache-2.0
#include "profile/memory_reporter.h"

#include "profile/capture_session.h"
#include "profile/live_memory.h"
#include "runtime/torch_compat.h"

#include <fathom/profile/clock.h>

#include <c10/core/Allocator.h>
#include <c10/util/ThreadLocalDebugInfo.h>

namespace fathom::profile::detail {

namespace {

class Reporter final : public c10::MemoryReportingInfoBase {
public:
  explicit Reporter(CaptureSession& session) : m_session(session) {}

  void reportMemoryUsage(void* ptr, std::int64_t bytes, compat::MemoryTotal totalAllocated,
                         compat::MemoryTotal totalReserved, c10::Device device) override {
    if (bytes == 0)
      return;
    const CaptureSession::PhaseState phase = m_session.phaseState();
    AllocatorEvent event;
    event.ns = nowNs();
    event.ptr = reinterpret_cast<std::uintptr_t>(ptr);
    event.bytes = bytes;
    event.totalAllocated = static_cast<std::int64_t>(totalAllocated);
    event.totalReserved = static_cast<std::int64_t>(totalReserved);
    event.phaseInstance = phase.instance;
    event.device = {static_cast<std::uint8_t>(device.type()), static_cast<std::int16_t>(device.index())};
    event.hint = m_session.memoryHint().load(std::memory_order_relaxed);
    if (bytes > 0) {
      m_session.liveMemory().allocated(event, phase.phase);
    } else {
      m_session.liveMemory().freed(event.ptr);
    }
    if (!m_session.collecting())
      return;
    ThreadCapture& thread = m_session.thread();
    std::lock_guard lock(thread.mutex);
    thread.memory.push_back(event);
  }

  bool memoryProfilingEnabled() const override { return true; }

private:
  CaptureSession& m_session;
};

}  // namespace

struct MemoryReporter::Install {
  explicit Install(std::shared_ptr<c10::DebugInfoBase> info)
      : guard(c10::DebugInfoKind::PROFILER_STATE, std::move(info)) {}
  c10::DebugInfoGuard guard;
};

MemoryReporter::MemoryReporter(CaptureSession& session)
    : m_install(std::make_unique<Install>(std::make_shared<Reporter>(session))) {}

MemoryReporter::~MemoryReporter() = default;

}  // namespace fathom::profile::detail
