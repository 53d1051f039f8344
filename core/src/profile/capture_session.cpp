// SPDX-License-Identifier: Apache-2.0
#include "profile/capture_session.h"

#include "profile/live_memory.h"

#include <fathom/common/error.h>
#include <fathom/profile/clock.h>

#include <pthread.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

namespace fathom::profile::detail {

std::atomic<CaptureSession*> CaptureSession::s_active{nullptr};

namespace {

/// Every session gets a serial number, so a thread's cached buffer of an earlier session (possibly at the same
/// address) is never reused.
std::atomic<std::uint64_t> g_sessionSerial{0};

struct ThreadSlot {
  std::uint64_t serial = 0;
  std::shared_ptr<ThreadCapture> capture;
};
thread_local ThreadSlot t_slot;

std::string currentThreadName() {
  char name[32] = {};
  if (prctl(PR_GET_NAME, name, 0, 0, 0) != 0)
    return {};
  return name;
}

constexpr std::size_t kReserveEvents = 1 << 14;

}  // namespace

// ---- CaptureSession ----------------------------------------------------------------------------------------------

CaptureSession::CaptureSession(const CaptureSettings& settings)
    : m_settings(settings), m_live(std::make_unique<LiveMemory>()) {
  CaptureSession* expected = nullptr;
  FATHOM_CHECK(s_active.compare_exchange_strong(expected, this), ProfilerError,
               "another fathom::profile::Profiler is already running in this process (one at a time, as in torch)");
  m_serial = g_sessionSerial.fetch_add(1) + 1;
  std::lock_guard lock(m_phaseMutex);
  m_phases.push_back({0, Phase::None, nowNs()});
}

CaptureSession::~CaptureSession() {
  m_collecting = false;
  s_active.store(nullptr, std::memory_order_release);
}

ThreadCapture& CaptureSession::thread() {
  if (t_slot.serial != m_serial || !t_slot.capture) {
    auto capture = std::make_shared<ThreadCapture>();
    capture->osTid = static_cast<std::uint64_t>(::syscall(SYS_gettid));
    capture->threadName = currentThreadName();
    capture->events.reserve(kReserveEvents);
    {
      std::lock_guard lock(m_threadsMutex);
      m_threads.push_back(capture);
    }
    t_slot = {m_serial, std::move(capture)};
  }
  return *t_slot.capture;
}

void CaptureSession::startCollecting(std::int64_t ns) {
  discard(ns);
  m_collecting.store(true, std::memory_order_release);
}

void CaptureSession::discard(std::int64_t ns) {
  // A new generation first: spans that began before now are dropped when they end.
  m_generation.fetch_add(1, std::memory_order_acq_rel);
  {
    std::lock_guard lock(m_threadsMutex);
    for (const auto& thread : m_threads) {
      std::lock_guard threadLock(thread->mutex);
      thread->events.clear();
      thread->extras.clear();
      thread->collectives.clear();
      thread->memory.clear();
    }
  }
  if (m_settings.profileMemory) {
    std::vector<LiveBlock> baseline = m_live->snapshot(phaseState().instance);
    std::lock_guard lock(m_phaseMutex);
    m_baseline = std::move(baseline);
  }
  std::lock_guard lock(m_phaseMutex);
  m_classifications.clear();
  m_issueThreads.clear();
  // Keep only the interval in force: the window starts inside it.
  if (m_phases.size() > 1)
    m_phases.erase(m_phases.begin(), m_phases.end() - 1);
  m_windowStartNs = ns;
}

CollectedCapture CaptureSession::collect(std::int64_t ns) {
  m_collecting.store(false, std::memory_order_release);
  m_generation.fetch_add(1, std::memory_order_acq_rel);
  CollectedCapture out;
  out.startNs = m_windowStartNs;
  out.endNs = ns;
  {
    std::lock_guard lock(m_threadsMutex);
    for (const auto& thread : m_threads) {
      auto copy = std::make_shared<ThreadCapture>();
      std::lock_guard threadLock(thread->mutex);
      copy->osTid = thread->osTid;
      copy->threadName = thread->threadName;
      copy->events.swap(thread->events);
      copy->extras.swap(thread->extras);
      copy->collectives.swap(thread->collectives);
      copy->memory.swap(thread->memory);
      thread->events.reserve(kReserveEvents);
      if (!copy->events.empty() || !copy->memory.empty())
        out.threads.push_back(std::move(copy));
    }
  }
  std::lock_guard lock(m_phaseMutex);
  out.phases = m_phases;
  out.classifications.swap(m_classifications);
  out.issueThreads.swap(m_issueThreads);
  out.baseline.swap(m_baseline);
  if (m_phases.size() > 1)
    m_phases.erase(m_phases.begin(), m_phases.end() - 1);
  return out;
}

// ---- phases ------------------------------------------------------------------------------------------------------

void CaptureSession::startInstanceLocked() {
  const Phase phase = m_phaseStack.back();
  const std::uint32_t instance = m_nextInstance++;
  m_phaseState.store((static_cast<std::uint64_t>(instance) << 8) | static_cast<std::uint64_t>(phase),
                     std::memory_order_relaxed);
  m_phases.push_back({instance, phase, nowNs()});
  // Outside a window only the interval in force matters (the next window starts inside it).
  if (!m_collecting.load(std::memory_order_relaxed) && m_phases.size() > 1)
    m_phases.erase(m_phases.begin(), m_phases.end() - 1);
}

void CaptureSession::pushPhase(Phase phase) {
  std::lock_guard lock(m_phaseMutex);
  m_phaseStack.push_back(phase);
  startInstanceLocked();
}

void CaptureSession::popPhase() {
  std::lock_guard lock(m_phaseMutex);
  if (m_phaseStack.size() > 1)
    m_phaseStack.pop_back();
  startInstanceLocked();
}

void CaptureSession::setBasePhase(Phase phase) {
  std::lock_guard lock(m_phaseMutex);
  if (m_phaseStack.front() == phase)
    return;
  m_phaseStack.front() = phase;
  // Under an open phase span the effective phase does not change (and its instance must not be split: whether
  // a block outlives the span decides its category).
  if (m_phaseStack.size() == 1)
    startInstanceLocked();
}

void CaptureSession::noteCollectiveIssue(std::uint64_t externalId, std::uint64_t osTid) {
  std::lock_guard lock(m_phaseMutex);
  m_issueThreads[externalId] = osTid;
}

void CaptureSession::classify(const std::vector<StorageClassification>& storages) {
  for (const StorageClassification& c : storages)
    m_live->classify(c);
  if (!m_collecting.load(std::memory_order_relaxed))
    return;
  std::lock_guard lock(m_phaseMutex);
  m_classifications.insert(m_classifications.end(), storages.begin(), storages.end());
}

}  // namespace fathom::profile::detail
