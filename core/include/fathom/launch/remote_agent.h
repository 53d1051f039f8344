// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/launch/agent_spec.h>

#include <ostream>
#include <string_view>

namespace fathom::launch {

/// `fathom agent`: one host's share of a multi-node launch, started by `fathom launch --hosts` over ssh. Sets the
/// spec's environment, changes to its working directory, and runs the host's workers with a LocalLauncher exactly
/// as a single-machine launch does (process groups, the ProcessGuardian, SIGTERM then SIGKILL on a failure). The
/// workers' stdout joins their stderr, so `events` (the agent's stdout, the SSH channel) carries only JSON lines:
///   {"event":"agent_started","pid":P,"machine_rank":M}
///   {"event":"worker_started","rank":R,"local_rank":L,"attempt":A,"pid":P}
///   {"event":"worker_ended","rank":R,"local_rank":L,"attempt":A,"pid":P,"status":{"signaled":B,"value":V}}
///   {"event":"agent_finished","exit_code":C,"rank":R|null,"local_rank":L|null,"status":"exit code 7"|null,
///    "interrupted_by":S|null}
/// When `stopFd` (the agent's stdin: the SSH channel) reads end of file or fails - the launcher closed it, died, or
/// the connection was lost - the agent stops its workers as SIGTERM to `fathom launch` would, and returns.
/// Returns the exit code (LaunchResult::exitCode). Throws ConfigError for a working directory that does not exist.
int runAgent(const AgentSpec& spec, std::ostream& events, int stopFd = 0);

/// What `fathom agent` exits with when it refuses a spec (agent_refused).
constexpr int kAgentRefused = 3;

/// `fathom agent --spec JSON`: the checks before runAgent(), each answered with one line
///   {"event":"agent_refused","reason":"version"|"port"|"tunnel","message":"…",…}
/// and kAgentRefused: the spec's fathom_version must be this build's version (read before anything else, so an
/// agent of another version refuses instead of misreading), on machine rank 0 the rendezvous port must be free on
/// every address, and the telemetry tunnel's socket (AgentSpec::tunnelSocket) must appear within 10 s.
/// ConfigError for a spec that does not parse.
int runAgentFromJson(std::string_view specJson, std::ostream& events, int stopFd = 0);

}  // namespace fathom::launch
