// SPDX-License-Identifier: Apache-2.0
#include <fathom/runtime/async_work.h>

#include "runtime/async_work_impl.h"

#include <fathom/common/error.h>

#include <c10/util/Exception.h>

#include <utility>

namespace fathom::runtime {

AsyncWork::AsyncWork() = default;
AsyncWork::AsyncWork(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
AsyncWork::~AsyncWork() = default;
AsyncWork::AsyncWork(AsyncWork&& other) noexcept = default;
AsyncWork& AsyncWork::operator=(AsyncWork&& other) noexcept = default;

bool AsyncWork::valid() const {
  return m_impl != nullptr;
}

bool AsyncWork::isCompleted() const {
  return m_impl != nullptr && m_impl->work->isCompleted();
}

void AsyncWork::wait() {
  if (!m_impl) {
    return;
  }
  // Empty afterwards whatever happens: a failed collective cannot be waited for twice.
  const std::unique_ptr<Impl> impl = std::move(m_impl);
  try {
    impl->work->wait();
  } catch (const c10::Error& e) {
    throw CommError(detail::concat(impl->where, ": ", impl->what, " failed: ", e.what_without_backtrace()));
  } catch (const std::exception& e) {
    throw CommError(detail::concat(impl->where, ": ", impl->what, " failed: ", e.what()));
  }
  if (impl->divisor > 1) {
    impl->tensor.div_(impl->divisor);
  }
  if (impl->complete) {
    impl->complete();
  }
}

}  // namespace fathom::runtime
