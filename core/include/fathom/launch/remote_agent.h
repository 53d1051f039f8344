// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/launch/agent_spec.h>

#include <ostream>

namespace fathom::launch {

/// `fathom agent`: one host's share of a multi-node launch, started by `fathom launch --hosts` over ssh. Sets the
/// spec's environment, changes to its working directory, and runs the host's workers with a LocalLauncher exactly
/// as a single-machine launch does (process groups, the ProcessGuardian, SIGTERM then SIGKILL on a failure). The
/// workers' stdout joins their stderr, so `events` (the agent's stdout, the SSH channel) carries only JSON lines:
///   {"event":"agent_started","pid":P,"machine_rank":M}
///   {"event":"agent_finished","exit_code":C,"rank":R|null,"local_rank":L|null,"status":"exit code 7"|null,
///    "interrupted_by":S|null}
/// When `stopFd` (the agent's stdin: the SSH channel) reads end of file or fails - the launcher closed it, died, or
/// the connection was lost - the agent stops its workers as SIGTERM to `fathom launch` would, and returns.
/// Returns the exit code (LaunchResult::exitCode). Throws ConfigError for a working directory that does not exist.
int runAgent(const AgentSpec& spec, std::ostream& events, int stopFd = 0);

}  // namespace fathom::launch
