// SPDX-License-Identifier: Apache-2.0
// `fathom trace export --run`: which of a run's stored traces to write, and where. docs/traces.md, "fathom trace".
#pragma once

#include "trace_command.h"

#include <fathom/trace/trace_input.h>
#include <fathom/trace/trace_summary.h>

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace fathom::cli {

/// What `fathom trace export --run` was asked for.
struct RunExportRequest {
  std::string name;         ///< --name: one stored name; empty: choose
  std::optional<int> rank;  ///< --rank N
  bool allRanks = false;    ///< --rank all: one file per rank
  std::string output;       ///< -o: a file, or a directory (one that exists, or ends with '/'); empty: here
  /// --from/--to: only what meets this range (trace::exportTraceRange); nullopt: the whole trace, as stored
  std::optional<trace::TimeRange> range;
};

/// Writes the traces `request` selects from `run`, each as stored (gzip or not, as the output's name says) or, with a
/// range, the part that meets it (trace::exportTraceRange), and says
/// on stderr which it chose and where they went. The choice, when the request leaves it open:
/// - --rank N: that rank's trace (a merged trace is no rank's own, so it is left out unless --name names it);
/// - --rank all: every rank's trace, one file each in the output directory (created when missing);
/// - neither: the merged trace of every rank when the run stored one, else the lowest rank's trace;
/// - several traces that fit (windows, or names of different kinds): a ConfigError that lists them (pass --name).
/// Throws ConfigError for what cannot be chosen or an output that is a file where a directory is needed.
void exportRunTraces(const RunTraces& run, const RunExportRequest& request);

/// Writes `input`'s bytes to `output` (atomically), gzip-compressed or not as `output`'s name says (".gz"); when
/// `rawBytes` are the input's own bytes and the compression already matches, they are copied as they are.
void writeTraceFile(trace::TraceInput input, const std::filesystem::path& output, std::string_view rawBytes = {});

}  // namespace fathom::cli
