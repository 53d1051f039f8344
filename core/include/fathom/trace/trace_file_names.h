// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace fathom::trace {

/// The names of the trace files a profiled run writes (and streams to its workspace under the same names, relative
/// to the profile directory): one rule for the profiler that writes them and for the tools that pick among a run's
/// stored traces (`fathom trace export --run`). docs/traces.md, "File names".

/// One rank's trace of a window: "profile_<rank>.json", or "profile_<rank>.json.gz" compressed.
std::string rankTraceFileName(int rank, bool gzip);

/// Every rank's trace of a window merged into one: "merged/profile_merged.json[.gz]".
std::string mergedTraceFileName(bool gzip);

/// Whether `name`, a stored trace's name ("merged/profile_merged.json.gz", "window_1/merged/profile_merged.json"),
/// is a merged trace: its file sits in a directory named "merged".
bool isMergedTraceName(std::string_view name);

/// What a stored trace's name says (the names above; any other name a program stored is a group of its own).
struct StoredTraceName {
  bool profile = false;       ///< one of the profiler's names: "[window_N/]profile_<R>.json[.gz]" or a merged one
  bool merged = false;        ///< the profiler's merged trace of every rank (isMergedTraceName)
  std::optional<int> window;  ///< N of "window_N/"; nullopt for a profile of one window and for other names
  /// The traces that belong on one timeline: every rank's trace of one window ("window_N", "" for a profile of one
  /// window), or, for another name, the traces of that name (one per rank).
  std::string group;
};

/// Parses a stored trace's name.
StoredTraceName parseStoredTraceName(std::string_view name);

}  // namespace fathom::trace
