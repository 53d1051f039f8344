// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "fathom/trace/trace_file_sink.h"
#include "fathom/trace/trace_reader.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace fathom::trace {

/// Rows of rank R get pids R * kMergedPidStride + i (i = the pid's first-seen index within that rank's file), so
/// "2003" reads as rank 2, row 3.
inline constexpr std::uint32_t kMergedPidStride = 1000;
/// The rank a merged trace's pid belongs to: the inverse of the numbering above.
constexpr int mergedRankOf(std::int64_t pid) {
  return static_cast<int>(pid / kMergedPidStride);
}
/// Merged process_sort_index values are R * kMergedSortStride + (the file's own index, or the first-seen index):
/// rank 0's rows above rank 1's, each rank's own order kept inside its block.
inline constexpr std::int64_t kMergedSortStride = 1'000'000;

/// Ranks are below this (distributedInfo.rank or TraceMergeOptions::ranks), so merged ids and sort indices fit.
inline constexpr int kMaxMergeRank = 1'000'000;

/// How mergeTraces writes its output.
struct TraceMergeOptions {
  /// The output file (gzip when its name ends with ".gz", unless `file.gzip` says otherwise).
  TraceFileOptions file;
  /// `traceName` of the merged file; empty: the output's file name.
  std::string traceName;
  /// Called every `progressEvery` events written (and once at the end) with the count so far.
  std::function<void(std::uint64_t)> onProgress;
  std::uint64_t progressEvery = 10'000'000;  ///< >= 1
  /// How the inputs are read. With `reader.acceptTruncatedTail` an input may be a prefix of a trace still being
  /// written (a live run's stored chunks): it contributes its complete events, and one that ends before its header
  /// (the keys before traceEvents) is complete is left out (TraceMergeResult::skipped) instead of refused.
  TraceReaderOptions reader;
  /// Several inputs may have the same rank: they are windows of one run's profile (each rank writes one trace per
  /// window; the windows of a rank do not overlap in time). Each is shifted by its own base time, and a rank's rows
  /// continue across its windows: a pid keeps the merged pid (and name) it got in that rank's earlier window. Off,
  /// a repeated rank is refused.
  bool windowsOfOneRank = false;
  /// The rank of each input, in the order given; empty: each input's own distributedInfo.rank. For traces that
  /// record no rank (PyTorch's legacy export_chrome_trace, a torch.profiler run without a process group), and to lay
  /// traces of different runs side by side as ranks (two runs' rank 0). One per input, each in [0, kMaxMergeRank);
  /// it overrides the rank a file records (world_size and backend are still read from it).
  std::vector<int> ranks;
};

/// A trace held in memory (e.g. stored in the workspace, store::Workspace::traceData): its bytes as written, gzip or
/// not, and the name messages and fathomMerge call it.
struct TraceBytes {
  std::string name;
  std::string bytes;
};

/// What happened to one input.
struct TraceMergeInput {
  std::filesystem::path path;   ///< the input file (mergeTraceBytes: the input's name)
  int rank = 0;                 ///< its distributedInfo.rank
  std::int64_t baseTimeNs = 0;  ///< its baseTimeNanoseconds (0 when no input has one)
  std::int64_t shiftNs = 0;     ///< added to each of its timestamps: baseTimeNs - the merged base
  std::uint64_t events = 0;     ///< events copied from it
  /// Its pids (as written in the file: `4242`, `"Spans"`) and the merged pids they became, in first-seen order.
  std::vector<std::pair<std::string, std::uint32_t>> pids;
};

/// What mergeTraces wrote.
struct TraceMergeResult {
  std::vector<TraceMergeInput> inputs;  ///< sorted by rank
  std::uint64_t events = 0;             ///< events written (the inputs' plus the synthesized row names)
  std::int64_t baseTimeNs = 0;          ///< the merged baseTimeNanoseconds: the earliest input's
  int worldSize = 1;                    ///< max(world_size of the inputs, highest rank + 1)
  /// Inputs left out because they end before their header is complete (only with reader.acceptTruncatedTail).
  std::vector<std::string> skipped;
  /// Inputs that ended early (prefixes read with reader.acceptTruncatedTail): their complete events were merged.
  std::size_t truncatedInputs = 0;
};

/// Merges one trace per rank into one multi-rank file for Perfetto and chrome://tracing, streaming in constant
/// memory (one input open at a time; events are copied member by member, `args` byte for byte where nothing in
/// them changes). Rules (docs/traces.md, "Merge"):
///
/// - Every input needs an integer distributedInfo.rank >= 0, or its rank in options.ranks; ranks must be unique.
/// - PyTorch's legacy events (process "CPU functions", no `cat`) get the `cat` Kineto gives them (`cpu_op`, or
///   `user_annotation` for torch's own ranges), since their process loses that name in the merge.
/// - Wall-clock alignment: the merged baseTimeNanoseconds is the earliest input's; each rank's `ts` is shifted by
///   (its base - merged base), in integer nanoseconds parsed exactly from the 3-decimal microsecond text. Either all
///   inputs carry baseTimeNanoseconds or none does (then timestamps are taken as already comparable).
/// - pids: R * kMergedPidStride + first-seen index; `process_name` becomes "rank R · <name>",
///   `process_sort_index` R * kMergedSortStride + index, and pids the file never named get both.
/// - Flow `id`s and the correlation-like args `correlation`, `External id` and
///   `wait_on_cuda_event_record_corr_id` become id * worldSize + R, so flows and CPU-GPU links stay unique across
///   ranks. Hex-string ids (which Perfetto accepts) are remapped too and written as numbers.
/// - distributedInfo of the merged file: {"backend", "rank": the lowest rank, "world_size", "ranks": [...]}. Tools
///   that need an int rank still load it, but Holistic Trace Analysis wants one file per rank: feed it the inputs.
/// - After traceEvents, "fathomMerge" records each input's file, rank, base, shift, pid map, deviceProperties and
///   other top-level keys.
///
/// Throws ConfigError for unusable inputs (no rank, duplicate ranks, options.ranks not one per input, mixed base
/// times, no inputs) and StorageError for unreadable or malformed files and I/O errors; the output is then not
/// created.
TraceMergeResult mergeTraces(std::span<const std::filesystem::path> inputs, const std::filesystem::path& output,
                             const TraceMergeOptions& options = {});

/// mergeTraces over traces held in memory, the merged trace returned as its text (gzip-compressed only when
/// options.file.gzip says so; no file is written, options.file.onChunk still sees every block). The same rules and
/// the same code as mergeTraces: the Studio shows several ranks' stored traces as this merge, so its timeline is the
/// one `fathom trace merge` gives. `result`, when given, receives what mergeTraces returns.
std::string mergeTraceBytes(std::span<const TraceBytes> inputs, const TraceMergeOptions& options = {},
                            TraceMergeResult* result = nullptr);

}  // namespace fathom::trace
