// SPDX-License-Identifier: Apache-2.0
#include "fathom/profile/trace_event.h"

#include <array>
#include <ctime>

namespace fathom::profile {

namespace {
std::int64_t readClock(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);  // vDSO: ~20 ns, no system call
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

constexpr std::array<std::string_view, kTraceCategoryCount> kCategoryNames = {"cpu_op",
                                                                              "user_annotation",
                                                                              "gpu_user_annotation",
                                                                              "kernel",
                                                                              "gpu_memcpy",
                                                                              "gpu_memset",
                                                                              "cuda_runtime",
                                                                              "cuda_driver",
                                                                              "cuda_sync",
                                                                              "overhead",
                                                                              "cpu_instant_event",
                                                                              "ac2g",
                                                                              "memory",
                                                                              "Trace"};
}  // namespace

std::int64_t nowNs() {
  return readClock(CLOCK_MONOTONIC);
}

std::int64_t unixNowNs() {
  return readClock(CLOCK_REALTIME);
}

std::string_view toString(TraceCategory category) {
  const auto index = static_cast<std::size_t>(category);
  return index < kCategoryNames.size() ? kCategoryNames[index] : std::string_view("unknown");
}

}  // namespace fathom::profile
