// SPDX-License-Identifier: Apache-2.0
#include <fathom/profile/clock.h>

#include <ctime>

namespace fathom::profile {

std::int64_t nowNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);  // vDSO: ~20 ns, no system call
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace fathom::profile
