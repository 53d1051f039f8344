// SPDX-License-Identifier: Apache-2.0
// The largest counts Fathom accepts at its front doors (configuration keys, flags). Values beyond them are refused
// with the key or flag, the value and the allowed range, before anything is spawned or computed.
#pragma once

#include <cstdint>
#include <limits>

namespace fathom::config {

/// Any count a RunSpec or LaunchOptions holds as `int` (the schema's default maximum for Int keys).
inline constexpr std::int64_t kMaxIntCount = std::numeric_limits<int>::max();
/// num_processes: the world size over all machines (torch.distributed ranks are int32; 2^20 is beyond any cluster).
/// How many of them one machine may run is the launcher's check (launch/process_limits.h).
inline constexpr std::int64_t kMaxProcesses = std::int64_t{1} << 20;
/// num_machines.
inline constexpr std::int64_t kMaxMachines = std::int64_t{1} << 16;

}  // namespace fathom::config
