// SPDX-License-Identifier: Apache-2.0
#include <fathom/parallel/comm_recorder.h>
#include <fathom/parallel/pending_call.h>

#include <utility>

namespace fathom::parallel {

PendingCall::PendingCall(PendingCall&& other) noexcept
    : m_recorder(std::exchange(other.m_recorder, nullptr)), m_record(std::move(other.m_record)) {}

PendingCall& PendingCall::operator=(PendingCall&& other) noexcept {
  if (this != &other) {
    m_recorder = std::exchange(other.m_recorder, nullptr);
    m_record = std::move(other.m_record);
  }
  return *this;
}

void PendingCall::finish() {
  if (m_recorder == nullptr) {
    return;
  }
  CommRecorder* recorder = std::exchange(m_recorder, nullptr);
  recorder->complete(std::move(m_record));
}

}  // namespace fathom::parallel
