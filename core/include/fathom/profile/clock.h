// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>

namespace fathom::profile {

/// The profiler's clock: nanoseconds of CLOCK_MONOTONIC (std::chrono::steady_clock on Linux). CPU spans, memory
/// events and, through CUPTI's timestamp callback, GPU activity records are all stamped with it, so they line up
/// without conversion. Every process of one host reads the same clock; a trace file converts it to wall-clock time
/// once, in its header (trace::TraceHeader::baseTimeUnixNs, from fathom::unixNowNs()).
std::int64_t nowNs();

}  // namespace fathom::profile
