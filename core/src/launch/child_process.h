// SPDX-License-Identifier: Apache-2.0
// How the multi-node launch starts its transport processes. Private to core/launch.
#pragma once

#include <string>
#include <vector>

#include <sys/types.h>

namespace fathom::launch::detail {

/// Forks and execs `argv` (argv[0] a path) in a process group of its own, with `in`, `out`, `err` as its stdin,
/// stdout and stderr. Only async-signal-safe calls between fork and exec. Error when fork fails; an exec that fails
/// ends the child with exit code 127.
pid_t spawnInOwnGroup(const std::vector<std::string>& argv, int in, int out, int err);

/// Appends everything `fd` (non-blocking) has to read now to `text`. True while more may come (the read would
/// block or was interrupted); false at end of file or on an error, when the caller closes `fd`.
bool readAvailable(int fd, std::string& text);

}  // namespace fathom::launch::detail
