// SPDX-License-Identifier: Apache-2.0
// Small process helpers of the multi-node launch (MultiNodeLauncher and its transports). Private to core/launch.
#pragma once

#include <string>
#include <vector>

#include <sys/types.h>

namespace fathom::launch::detail {

/// Forks and execs `argv` (argv[0] a path) in a process group of its own, with `in`, `out`, `err` as its stdin,
/// stdout and stderr. Only async-signal-safe calls between fork and exec. Error when fork fails; an exec that fails
/// ends the child with exit code 127.
pid_t spawnInOwnGroup(const std::vector<std::string>& argv, int in, int out, int err);

/// Runs `argv` (argv[0] a path) with stdin and stderr on /dev/null and returns its stdout, or nothing unless it
/// exits 0. Blocks until it ends; reaps it. For programs whose output is meant for programs (`ssh -G`,
/// `scontrol show hostnames`).
std::string captureOutput(const std::vector<std::string>& argv);

}  // namespace fathom::launch::detail
