// SPDX-License-Identifier: Apache-2.0
#include "comm_work.h"

#include <utility>

namespace fathom::parallel {

CommWork::~CommWork() {
  waitQuietly();
}

CommWork& CommWork::operator=(CommWork&& other) noexcept {
  if (this != &other) {
    waitQuietly();  // the collective held so far must drain before its handle goes
    m_call = std::move(other.m_call);
    m_work = std::move(other.m_work);
  }
  return *this;
}

void CommWork::wait() {
  if (!m_work.valid()) {
    return;
  }
  try {
    m_work.wait();
  } catch (...) {
    m_call = PendingCall();  // a failed collective is not recorded
    throw;
  }
  m_call.finish();
}

void CommWork::waitQuietly() noexcept {
  try {
    wait();
  } catch (...) {
    // Destruction or reassignment without wait(): the error has nowhere to go (documented in the header).
  }
}

}  // namespace fathom::parallel
