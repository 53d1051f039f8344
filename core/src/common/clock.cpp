// SPDX-License-Identifier: Apache-2.0
#include <fathom/common/clock.h>

#include <chrono>
#include <ctime>

namespace fathom {

std::int64_t unixNowNs() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);  // vDSO: ~20 ns, no system call
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

double unixNowSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace fathom
