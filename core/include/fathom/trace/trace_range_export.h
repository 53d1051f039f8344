// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "fathom/trace/trace_input.h"
#include "fathom/trace/trace_summary.h"

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace fathom::trace {

/// What exportTraceRange keeps of a trace.
struct TraceRangeExportOptions {
  /// The time range [startNs, endNs) on the trace's clock (ts * 1000, as TimeRange everywhere); nullopt: all of it.
  /// Must not be empty.
  std::optional<TimeRange> range;
  /// One rank: in a merged trace its rows (pids rank * kMergedPidStride + i), in a one-rank trace a check that the
  /// file is that rank's (the rule of `fathom trace summary --rank`). nullopt: every rank.
  std::optional<int> rank;
  /// Rows to keep, as "<pid>/<tid>" raw JSON texts (TimelineLane::key, the summary's row key); empty: every row.
  /// Counters and metadata events are per process: they are kept for the processes of these rows.
  std::vector<std::string> rows;
  /// gzip the output; unset: when its name ends with ".gz".
  std::optional<bool> gzip;
  /// Called after each pass's progress step with the fraction done (0..1, never decreasing); return false to cancel.
  std::function<bool(double)> onProgress;
  /// Set from another thread to cancel (checked as often as onProgress is called).
  const std::atomic<bool>* cancel = nullptr;
  /// Events between two progress calls.
  std::uint64_t progressEvery = 100'000;
};

/// What exportTraceRange wrote.
struct TraceRangeExportResult {
  std::filesystem::path output;
  bool cancelled = false;            ///< cancelled: nothing was written (the partial file is removed)
  std::uint64_t eventsRead = 0;      ///< elements of the input's traceEvents
  std::uint64_t eventsWritten = 0;   ///< elements of the output's traceEvents
  std::uint64_t slices = 0;          ///< X events written (launches included)
  std::uint64_t launchesAdded = 0;   ///< cuda_runtime/cuda_driver X events outside the range, kept for their GPU work
  std::uint64_t instants = 0;        ///< instant events written
  std::uint64_t counters = 0;        ///< counter samples written (the last one before the range included)
  std::uint64_t flowEvents = 0;      ///< s/t/f events written
  std::uint64_t flowsDropped = 0;    ///< flows (id, cat, name) with an event in the selection but a point outside it
  std::uint64_t metadataEvents = 0;  ///< M events written
  std::uint64_t bytesOut = 0;        ///< bytes on disk
};

/// Writes the part of a trace that meets a time range (and optionally one rank and some rows) as a Chrome trace that
/// Perfetto, chrome://tracing and `fathom trace validate` accept: the Studio's "Export range as Chrome trace…" and
/// `fathom trace export INPUT -o OUT --from US --to US [--rank R]` both call it.
///
/// What is kept, each event's text byte for byte (args intact, timestamps unchanged, so the export lines up with
/// the original and `fathom trace summary --from --to` gives the same numbers on both):
/// - complete (X) events that meet the range (start < end of range and end > its start; a zero-length one when it
///   lies in it): the rule of TraceSummaryOptions::range. They are not cut, so nesting stays as it was;
/// - the cuda_runtime/cuda_driver launch of every kernel, copy or set kept (same `args.correlation`), wherever it
///   lies: a GPU event without its launch breaks HTA's loader and the validator's `gpu-launch` rule;
/// - instants whose ts lies in the range; counter samples whose ts lies in it, plus each series' last sample before
///   it (so a counter shows its value from the range's start);
/// - a flow (s/t/f sharing id, cat and name) only when every one of its points binds to a kept slice: s, t and f with
///   `"bp":"e"` lie inside a kept X event of their row; a plain f lies in the range on a kept row. Otherwise all of its
///   points are dropped (flowsDropped), so no arrow dangles;
/// - every metadata (M) event of the kept processes (names, labels, sort indices);
/// - other phases (B/E, async, objects) when their ts lies in the range on a kept row;
/// - the top-level keys (distributedInfo, baseTimeNanoseconds, deviceProperties, a merge's fathomMerge, ...) as they
///   were, plus `fathomExport` {"source", "startNs", "endNs", "rank", "rows"} saying what was exported.
///
/// Reads the input twice (a first pass finds the launches and flows to keep), streaming; memory holds 24 bytes per
/// kept X event, 32 per launch outside the range and 24 per flow point, plus the flow keys. The output is written
/// atomically (TraceFileSink: "<out>.partial", fsync, rename); a cancel or an error leaves nothing under `output`.
/// Throws ConfigError for bad options or a rank the trace does not hold, StorageError naming the file for
/// unreadable or malformed input and for write errors.
TraceRangeExportResult exportTraceRange(const std::filesystem::path& input, const std::filesystem::path& output,
                                        const TraceRangeExportOptions& options = {});

/// The same for a trace not in a file (one stored in the workspace): `open` returns a fresh input each time (it is
/// called once per pass).
TraceRangeExportResult exportTraceRange(const std::function<TraceInput()>& open, const std::filesystem::path& output,
                                        const TraceRangeExportOptions& options = {});

}  // namespace fathom::trace
