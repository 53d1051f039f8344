// SPDX-License-Identifier: Apache-2.0
#include <fathom/parallel/comm_recorder.h>

#include "pending_call.h"

#include <fathom/common/error.h>
#include <fathom/profile/annotations.h>

#include <utility>

namespace fathom::parallel {
namespace {
CollectivePosition positionOf(const CommRecord& record) {
  return {record.sequence, record.kind, record.group, record.groupSize, record.bytes};
}
}  // namespace

CommRecorder::CommRecorder(const CommRecorderOptions& options)
    : m_options(options), m_epoch(std::chrono::steady_clock::now()) {
  FATHOM_CHECK(options.capacity >= 1, ConfigError, "comm record capacity must be >= 1, got ", options.capacity);
  FATHOM_CHECK(options.maxSteps >= 1, ConfigError, "comm maxSteps must be >= 1, got ", options.maxSteps);
  m_ring.resize(options.capacity);
  m_steps.push_back(StepTotals{.step = 0, .byKind = {}, .byRequested = {}});
}

CommNanos CommRecorder::now() const {
  return {std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - m_epoch).count()};
}

PendingCall CommRecorder::begin(CommRecord draft) {
  draft.sequence = m_nextSequence.fetch_add(1, std::memory_order_relaxed);
  draft.step = m_currentStep.load(std::memory_order_relaxed);
  draft.start = now();
  // While a profiler records: a correlation id, pushed to CUPTI until the call is issued (PendingCall::issued).
  draft.externalId = profile::hooks::beginCollectiveIssue();
  m_wavefront->entered(positionOf(draft));
  return PendingCall(this, std::move(draft));
}

void CommRecorder::complete(CommRecord&& record) {
  record.duration = {now().value - record.start.value};
  m_wavefront->finished(positionOf(record));
  if (record.externalId != 0)
    reportToProfiler(record);
  const std::lock_guard lock(m_mutex);
  storeLocked(std::move(record));
}

namespace {
std::string_view reduceOpName(runtime::ReduceOp op) {
  switch (op) {
  case runtime::ReduceOp::Sum: return "sum";
  case runtime::ReduceOp::Avg: return "avg";
  case runtime::ReduceOp::Max: return "max";
  case runtime::ReduceOp::Min: return "min";
  case runtime::ReduceOp::Product: return "product";
  }
  return "unknown";
}
}  // namespace

void CommRecorder::reportToProfiler(const CommRecord& record) const {
  // The recorder's clock is steady_clock from its epoch; the profiler's is steady_clock's own count (nowNs()).
  const std::int64_t epoch = std::chrono::duration_cast<std::chrono::nanoseconds>(m_epoch.time_since_epoch()).count();
  const std::string dtype = record.dtype == c10::ScalarType::Undefined ? std::string() : c10::toString(record.dtype);
  profile::hooks::CollectiveSpan span;
  span.kind = toString(record.kind);
  span.requested = toString(record.requested);
  span.op = record.op ? reduceOpName(*record.op) : std::string_view();
  span.dtype = dtype;
  span.label = record.label;
  span.startNs = epoch + record.start.value;
  span.endNs = epoch + record.start.value + record.duration.value;
  span.bytes = record.bytes;
  span.elements = record.elements;
  span.groupSize = record.groupSize;
  span.rank = record.rank;
  span.sequence = record.sequence;
  span.step = record.step;
  span.externalId = record.externalId;
  profile::hooks::collectiveFinished(span);
}

void CommRecorder::abandon(const CommRecord& /*record*/) {
  m_wavefront->abandoned();
}

void CommRecorder::append(CommRecord record) {
  record.sequence = m_nextSequence.fetch_add(1, std::memory_order_relaxed);
  const std::lock_guard lock(m_mutex);
  record.step = m_currentStep.load(std::memory_order_relaxed);
  storeLocked(std::move(record));
}

void CommRecorder::storeLocked(CommRecord&& record) {
  // Totals first: they are kept per step, independently of the ring. A call that started in an older step counts
  // there (found from the back: almost always the current step).
  for (auto it = m_steps.rbegin(); it != m_steps.rend(); ++it) {
    if (it->step == record.step) {
      for (KindTotals* k : {&it->byKind[static_cast<std::size_t>(record.kind)],
                            &it->byRequested[static_cast<std::size_t>(record.requested)]}) {
        ++k->count;
        k->bytes += record.bytes;
        k->duration.value += record.duration.value;
      }
      break;
    }
    if (it->step < record.step) {
      break;
    }
  }
  if (m_size == m_options.capacity) {
    m_ring[m_head] = std::move(record);
    m_head = (m_head + 1) % m_options.capacity;
    ++m_dropped;
  } else {
    m_ring[(m_head + m_size) % m_options.capacity] = std::move(record);
    ++m_size;
  }
}

void CommRecorder::markStep(std::int64_t step) {
  const std::lock_guard lock(m_mutex);
  const std::int64_t current = m_currentStep.load(std::memory_order_relaxed);
  FATHOM_CHECK(step >= current, ConfigError, "markStep(", step, ") would go back: the current step is ", current);
  if (step == current) {
    return;
  }
  m_steps.push_back(StepTotals{.step = step, .byKind = {}, .byRequested = {}});
  while (m_steps.size() > m_options.maxSteps) {
    m_steps.pop_front();
  }
  m_currentStep.store(step, std::memory_order_relaxed);
  m_wavefront->markStep(step);
}

void CommRecorder::resumeAt(std::int64_t step) {
  FATHOM_CHECK(step >= 0, ConfigError, "resumeAt(", step, "): steps start at 0");
  {
    const std::lock_guard lock(m_mutex);
    if (step < m_currentStep.load(std::memory_order_relaxed)) {
      std::erase_if(m_steps, [step](const StepTotals& s) { return s.step >= step; });
      m_steps.push_back(StepTotals{.step = step, .byKind = {}, .byRequested = {}});
      m_currentStep.store(step, std::memory_order_relaxed);
      m_wavefront->markStep(step);
      return;
    }
  }
  markStep(step);
}

std::int64_t CommRecorder::currentStep() const {
  return m_currentStep.load(std::memory_order_relaxed);
}

std::vector<CommRecord> CommRecorder::records() const {
  const std::lock_guard lock(m_mutex);
  std::vector<CommRecord> out;
  out.reserve(m_size);
  for (std::size_t i = 0; i < m_size; ++i) {
    out.push_back(m_ring[(m_head + i) % m_options.capacity]);
  }
  return out;
}

std::size_t CommRecorder::size() const {
  const std::lock_guard lock(m_mutex);
  return m_size;
}

std::uint64_t CommRecorder::droppedRecords() const {
  const std::lock_guard lock(m_mutex);
  return m_dropped;
}

std::optional<StepTotals> CommRecorder::stepTotals(std::int64_t step) const {
  const std::lock_guard lock(m_mutex);
  for (const StepTotals& s : m_steps) {
    if (s.step == step) {
      return s;
    }
  }
  return std::nullopt;
}

std::vector<StepTotals> CommRecorder::allStepTotals() const {
  const std::lock_guard lock(m_mutex);
  return {m_steps.begin(), m_steps.end()};
}

void CommRecorder::reset() {
  const std::lock_guard lock(m_mutex);
  for (std::size_t i = 0; i < m_size; ++i) {
    m_ring[(m_head + i) % m_options.capacity] = CommRecord{};
  }
  m_head = 0;
  m_size = 0;
  m_dropped = 0;
  m_steps.clear();
  m_steps.push_back(StepTotals{.step = 0, .byKind = {}, .byRequested = {}});
  m_currentStep.store(0, std::memory_order_relaxed);
}

}  // namespace fathom::parallel
