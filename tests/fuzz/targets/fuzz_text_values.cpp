// SPDX-License-Identifier: Apache-2.0
// The small parsers of outside text, one per first byte of the input (the rest is the text):
//   0 `--profile_schedule` (ProfileSchedule::parse), validated, and the action of a few steps (first, last, huge);
//   1 a stored trace's name (parseStoredTraceName: artifact rows, folders of traces);
//   2 FATHOM_TELEMETRY_ENDPOINT (net::parseEndpoint: what a worker connects to);
//   3 a line of `fathom launch --json`'s event stream (parseLaunchEvent), written back and read again;
//   4 a `fathom train` command line stored with a run (modelRequestFromArguments; one word a line);
//   5 a worker's environment (workerSettingsFromEnvironment: FATHOM_TRACKERS, FATHOM_PROFILER__*; NAME=VALUE lines);
//   6 a line of `squeue -h -O State:|,exit_code:|` (SlurmJobState::fromSqueue), and the exit code it gives;
//   7 `sacct -n -P -X -o State,ExitCode` output (SlurmJobState::fromSacct), and the exit code it gives.
// Oracle: ConfigError (and CommError) are good answers; anything else escaping, or a sanitizer report, is a finding.
#include "fuzz_input.h"

#include "telemetry/socket.h"

#include <fathom/common/error.h>
#include <fathom/config/run_spec.h>
#include <fathom/launch/slurm_job_state.h>
#include <fathom/models/builtin_model.h>
#include <fathom/profile/profiler_options.h>
#include <fathom/telemetry/launch_events.h>
#include <fathom/trace/trace_file_names.h>

#include <cstdio>
#include <cstdlib>
#include <limits>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fathom;
  if (size == 0) {
    return 0;
  }
  const std::string_view text = fuzz::text(data + 1, size - 1);
  try {
    switch (data[0] % 8) {
    case 0: {
      const profile::ProfileSchedule schedule = profile::ProfileSchedule::parse(text);
      schedule.validate();
      for (const std::int64_t step :
           {std::int64_t{0}, std::int64_t{1}, std::int64_t{1} << 31, std::numeric_limits<std::int64_t>::max()}) {
        schedule.action(step);
      }
      break;
    }
    case 1: trace::parseStoredTraceName(text); break;
    case 2: telemetry::net::parseEndpoint(text); break;
    case 3:
      if (const auto event = telemetry::parseLaunchEvent(text)) {
        if (!telemetry::parseLaunchEvent(telemetry::toJsonLine(*event))) {
          std::fprintf(stderr, "a launch event does not read back from its own JSON line\n");
          std::abort();
        }
      }
      break;
    case 4: {
      const std::vector<std::string> words = fuzz::split(text, '\n');
      models::modelRequestFromArguments(words);
      break;
    }
    case 5: config::workerSettingsFromEnvironment(fuzz::keyValues(text)); break;
    case 6:
    case 7: {
      const auto state =
          data[0] % 8 == 6 ? launch::SlurmJobState::fromSqueue(text) : launch::SlurmJobState::fromSacct(text);
      if (state && state->ended()) {
        state->exitCode();
      }
      break;
    }
    }
  } catch (const Error&) {
  }
  return 0;
}
