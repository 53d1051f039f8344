// SPDX-License-Identifier: Apache-2.0
#include "pending_call.h"
#include <fathom/parallel/comm_recorder.h>
#include <fathom/profile/annotations.h>

#include <utility>

namespace fathom::parallel {

PendingCall::PendingCall(PendingCall&& other) noexcept
    : m_recorder(std::exchange(other.m_recorder, nullptr)), m_record(std::move(other.m_record)),
      m_issueOpen(std::exchange(other.m_issueOpen, false)) {}

PendingCall& PendingCall::operator=(PendingCall&& other) noexcept {
  if (this != &other) {
    issued();
    if (m_recorder != nullptr) {
      m_recorder->abandon(m_record);
    }
    m_recorder = std::exchange(other.m_recorder, nullptr);
    m_record = std::move(other.m_record);
    m_issueOpen = std::exchange(other.m_issueOpen, false);
  }
  return *this;
}

PendingCall::~PendingCall() {
  issued();
  if (m_recorder != nullptr) {
    m_recorder->abandon(m_record);
  }
}

void PendingCall::issued() {
  if (m_issueOpen) {
    m_issueOpen = false;
    profile::hooks::endCollectiveIssue(m_record.externalId);
  }
}

void PendingCall::finish() {
  issued();
  if (m_recorder == nullptr) {
    return;
  }
  CommRecorder* recorder = std::exchange(m_recorder, nullptr);
  recorder->complete(std::move(m_record));
}

}  // namespace fathom::parallel
