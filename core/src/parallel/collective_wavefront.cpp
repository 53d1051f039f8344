// SPDX-License-Identifier: Apache-2.0
#include <fathom/parallel/collective_wavefront.h>

namespace fathom::parallel {

CollectiveWavefront::CollectiveWavefront() : m_epoch(Clock::now()) {}

void CollectiveWavefront::entered(const CollectivePosition& call) {
  const auto now = Clock::now();
  const std::lock_guard lock(m_mutex);
  if (m_inFlight++ == 0) {
    m_busySince = now;
  }
  if (!m_state.entered || call.sequence >= m_state.entered->sequence) {
    m_state.entered = call;
  }
}

void CollectiveWavefront::leaveLocked(Clock::time_point now) {
  if (m_inFlight > 0 && --m_inFlight == 0) {
    m_busy += now - m_busySince;
  }
}

void CollectiveWavefront::finished(const CollectivePosition& call) {
  const auto now = Clock::now();
  const std::lock_guard lock(m_mutex);
  leaveLocked(now);
  if (!m_state.finished || call.sequence >= m_state.finished->sequence) {
    m_state.finished = call;
  }
}

void CollectiveWavefront::abandoned() {
  const auto now = Clock::now();
  const std::lock_guard lock(m_mutex);
  leaveLocked(now);
}

void CollectiveWavefront::markStep(std::int64_t step) {
  const auto now = Clock::now();
  const std::lock_guard lock(m_mutex);
  auto busy = m_busy;
  if (m_inFlight > 0) {
    busy += now - m_busySince;
  }
  m_state.step = step;
  m_state.workSecondsAtStep = std::chrono::duration<double>(now - m_epoch - busy).count();
}

WavefrontSnapshot CollectiveWavefront::snapshot() const {
  const std::lock_guard lock(m_mutex);
  return m_state;
}

}  // namespace fathom::parallel
