// SPDX-License-Identifier: Apache-2.0
// Fathom's spans (RecordFunction), memory category scopes and the hooks the Comm layer and the Accelerator call.
// Every entry point starts with one atomic load and returns when no profiler is recording.
#include <fathom/profile/annotations.h>

#include "profile/capture_session.h"
#include "profile/gpu_correlation.h"

#include <fathom/profile/clock.h>

#include <array>

namespace fathom::profile {

std::string_view toString(Phase phase) {
  static constexpr std::array<std::string_view, 6> kNames = {"none",           "forward",     "backward",
                                                             "optimizer_step", "data_loader", "checkpoint"};
  const auto index = static_cast<std::size_t>(phase);
  return index < kNames.size() ? kNames[index] : std::string_view("unknown");
}

bool isRecording() {
  return detail::collectingNow();
}

RecordFunction::RecordFunction(std::string_view name) {
  detail::CaptureSession* session = detail::CaptureSession::active();
  if (session == nullptr || !session->collecting())
    return;
  m_nameId = detail::InternedNames::instance().id(name);
  m_generation = session->generation();
  if (session->settings().withStack) {
    detail::ThreadCapture& thread = session->thread();
    std::lock_guard lock(thread.mutex);
    thread.openSpans.push_back(m_nameId);
  }
  m_startNs = nowNs();
}

RecordFunction::RecordFunction(std::string_view name, Phase phase) : RecordFunction(name) {
  // The phase is tracked whenever a session exists (not only while a window records): memory allocated now may
  // still be alive when a later window starts, and its category depends on the phase it was allocated in.
  if (detail::CaptureSession* session = detail::CaptureSession::active(); session != nullptr) {
    session->pushPhase(phase);
    m_phasePushed = true;
  }
}

RecordFunction::~RecordFunction() {
  detail::CaptureSession* session = detail::CaptureSession::active();
  if (session == nullptr)
    return;
  if (m_phasePushed)
    session->popPhase();
  if (m_startNs < 0)
    return;
  const std::int64_t end = nowNs();
  detail::ThreadCapture& thread = session->thread();
  std::lock_guard lock(thread.mutex);
  if (session->settings().withStack && !thread.openSpans.empty())
    thread.openSpans.pop_back();
  if (session->generation() != m_generation || !session->collecting())
    return;
  thread.events.push_back({m_startNs, end, 0, -1, m_nameId, 0, detail::CpuEventKind::Annotation});
}

MemoryCategoryScope::MemoryCategoryScope(MemoryCategory category) {
  detail::CaptureSession* session = detail::CaptureSession::active();
  if (session == nullptr) {
    m_previous = AllocatorEvent::kNoHint;
    return;
  }
  m_previous = session->memoryHint().exchange(static_cast<std::uint8_t>(category), std::memory_order_relaxed);
}

MemoryCategoryScope::~MemoryCategoryScope() {
  if (detail::CaptureSession* session = detail::CaptureSession::active(); session != nullptr)
    session->memoryHint().store(m_previous, std::memory_order_relaxed);
}

namespace hooks {

void setBasePhase(Phase phase) {
  if (detail::CaptureSession* session = detail::CaptureSession::active(); session != nullptr)
    session->setBasePhase(phase);
}

std::uint64_t beginCollectiveIssue() {
  detail::CaptureSession* session = detail::CaptureSession::active();
  if (session == nullptr || !session->collecting())
    return 0;
  const std::uint64_t id = session->nextExternalId();
  if (session->settings().cuda) {
    session->noteCollectiveIssue(id, session->thread().osTid);
    detail::pushGpuCorrelation(id);
    detail::enterCollectiveIssue();
  }
  return id;
}

void endCollectiveIssue(std::uint64_t externalId) {
  if (externalId == 0)
    return;
  detail::CaptureSession* session = detail::CaptureSession::active();
  if (session != nullptr && session->settings().cuda) {
    detail::leaveCollectiveIssue();
    detail::popGpuCorrelation();
  }
}

void collectiveFinished(const CollectiveSpan& span) {
  detail::CaptureSession* session = detail::CaptureSession::active();
  if (session == nullptr || !session->collecting())
    return;
  detail::ThreadCapture& thread = session->thread();
  std::lock_guard lock(thread.mutex);
  thread.collectives.push_back({std::string(span.kind), std::string(span.requested), std::string(span.op),
                                std::string(span.dtype), std::string(span.backend), std::string(span.label), span.bytes,
                                span.elements, span.step, span.groupSize, span.rank, span.sequence});
  const auto nameId = detail::InternedNames::instance().id(std::string("fathom::") + std::string(span.kind));
  thread.events.push_back({span.startNs, span.endNs, span.externalId, -1, nameId,
                           static_cast<std::uint32_t>(thread.collectives.size()), detail::CpuEventKind::Collective});
}

bool enterModule(std::string_view name) {
  detail::CaptureSession* session = detail::CaptureSession::active();
  if (session == nullptr || !session->collecting() || !session->settings().withModules)
    return false;
  detail::ThreadCapture& thread = session->thread();
  std::lock_guard lock(thread.mutex);
  thread.openModules.emplace_back(name);
  return true;
}

void exitModule(bool entered) {
  if (!entered)
    return;
  detail::CaptureSession* session = detail::CaptureSession::active();
  if (session == nullptr)
    return;
  detail::ThreadCapture& thread = session->thread();
  std::lock_guard lock(thread.mutex);
  if (!thread.openModules.empty())
    thread.openModules.pop_back();
}

}  // namespace hooks
}  // namespace fathom::profile
