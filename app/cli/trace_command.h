// SPDX-License-Identifier: Apache-2.0
// `fathom trace`: what its commands need from outside the trace library. Everything in trace_command.cpp,
// trace_export.cpp and trace_report.cpp links Fathom::trace alone (the library fathom_cli_trace); the one thing that
// reads the workspace, opening a run's stored traces, comes in as OpenRunTraces (trace_workspace.cpp).
#pragma once

#include "command.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace fathom::cli {

/// One trace a run stored: a row of the workspace's traces.
struct StoredTrace {
  std::string name;  ///< as its writer named it, e.g. "profile_1.json", "merged/profile_merged.json.gz"
  int rank = 0;
  std::int64_t bytes = 0;
};

/// The traces of one run, and how to read them.
struct RunTraces {
  std::string label;                                    ///< "run 3 (gpt)", for messages
  std::vector<StoredTrace> traces;                      ///< by name, then rank
  std::function<std::string(const StoredTrace&)> read;  ///< one trace's stored bytes
};

/// Opens the run `run` (an id, or a name: its newest run) of the workspace file `workspace` (empty: the usual
/// resolution, FATHOM_WORKSPACE > the configuration > ./fathom.sqlite). Throws ConfigError for a missing workspace
/// or run.
using OpenRunTraces = std::function<RunTraces(const std::string& workspace, const std::string& run)>;

/// Registers `fathom trace export|merge|summary|validate`; `export --run` reads through `openRun`.
void addTraceCommand(CLI::App& root, CommandAction& action, OpenRunTraces openRun);

}  // namespace fathom::cli
