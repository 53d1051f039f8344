// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>

namespace fathom {

/// The wall clock (CLOCK_REALTIME) in nanoseconds since the Unix epoch. For instants that other programs read as
/// calendar time: a trace's baseTimeNanoseconds, a workspace row's time. Not monotonic (NTP may step it): measure
/// durations with std::chrono::steady_clock or the profiler's clock (fathom/profile/clock.h).
std::int64_t unixNowNs();

/// The wall clock in seconds since the Unix epoch, with sub-microsecond resolution: the `wall_time` of metrics,
/// events, heartbeats and run rows (what TensorBoard, MLflow and the workspace store).
double unixNowSeconds();

}  // namespace fathom
