// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fathom::trace {

/// The names of the trace files a profiled run writes (and streams to its workspace under the same names, relative
/// to the profile directory): one rule for the profiler that writes them and for the tools that pick among a run's
/// stored traces (`fathom trace export --run`). docs/traces.md, "File names".

/// The directory of one run's traces under the profile directory: "run_<id>" (the workspace's run id), so runs that
/// share a profile directory never write the same file. The names below are relative to it.
std::string runTraceDirectoryName(std::int64_t runId);

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

/// What a trace file is called while it is written (TraceFileSink, fathom::AtomicFile): "<name>.partial", renamed to
/// its name once whole and on disk. A file with this suffix is never a whole trace: its writer is still writing, or
/// died (a killed run leaves one).
inline constexpr std::string_view kPartialTraceSuffix = ".partial";

/// Whether `path` names a trace being written, or left by a writer that did not finish ("x.json.partial").
bool isPartialTraceFile(const std::filesystem::path& path);

/// The trace files of a directory (not recursive), each list in name order.
struct TraceDirectoryListing {
  std::vector<std::filesystem::path> traces;   ///< "*.json" and "*.json.gz"
  std::vector<std::filesystem::path> partial;  ///< "*.json.partial", "*.json.gz.partial": unfinished, never read
};

/// Lists `directory`'s traces, unfinished ones apart. Throws StorageError naming it when it cannot be read.
TraceDirectoryListing listTraceDirectory(const std::filesystem::path& directory);

}  // namespace fathom::trace
