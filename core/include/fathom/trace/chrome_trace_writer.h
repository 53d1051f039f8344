// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "fathom/trace/trace_event.h"
#include "fathom/trace/trace_file_sink.h"

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

namespace fathom::trace {

/// Streams a trace in Kineto's JSON object form (docs/traces.md), the layout Holistic Trace Analysis, Perfetto and
/// chrome://tracing all load:
///
///     {"schemaVersion":1,"deviceProperties":[...],<header.metadataJson's keys>,
///      "distributedInfo":{"backend":"gloo","rank":0,"world_size":2},"displayTimeUnit":"ms",
///      "baseTimeNanoseconds":N,"traceEvents":[
///     {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":2,"ts":0.000,"dur":1.000,"args":{...}},
///     ...
///     ],"traceName":"..."}
///
/// One event a line. `ts`/`dur` are microseconds relative to TraceHeader::baseTimeNs, printed from integer
/// nanoseconds with exactly three decimals (appendMicros). An event that starts before the base is clamped to
/// ts 0 and keeps its end (its `dur` shrinks, to 0 at most), so clamped spans still nest. Strings go through
/// appendJsonString (no `\u` escapes). Flow ends get `"bp":"e"`, instants their `"s"` scope, metadata events no
/// `cat`.
///
/// Memory is constant: one reusable line buffer and the sink's buffers; write() allocates nothing once warm.
/// Not thread-safe: one writer thread (the profiler's exporter).
class ChromeTraceWriter {
public:
  /// Creates the file (through a TraceFileSink: "<path>.partial" until finish()) and writes the header. Throws
  /// ConfigError for a bad header (negative rank, world size < 1, metadataJson not a JSON object or redefining a
  /// key the writer owns) and StorageError for I/O errors.
  ChromeTraceWriter(std::filesystem::path path, const TraceHeader& header, TraceFileOptions options = {});
  /// Abandons an unfinished file (removes the partial file).
  ~ChromeTraceWriter();
  ChromeTraceWriter(const ChromeTraceWriter&) = delete;
  ChromeTraceWriter& operator=(const ChromeTraceWriter&) = delete;

  /// Appends one event.
  void write(const TraceEvent& event);
  /// Appends one event given as JSON object text, written verbatim (the merge copies events this way). The caller
  /// vouches that it is one well-formed object on one line.
  void writeRaw(std::string_view eventJson);

  /// `process_name` metadata: the row group's title.
  void writeProcessName(std::uint32_t pid, std::string_view name);
  /// `process_labels` metadata: extra text beside the title.
  void writeProcessLabels(std::uint32_t pid, std::string_view labels);
  /// `process_sort_index` metadata: lower sorts higher.
  void writeProcessSortIndex(std::uint32_t pid, std::int64_t sortIndex);
  /// `thread_name` metadata: one row's title.
  void writeThreadName(std::uint32_t pid, std::uint64_t tid, std::string_view name);
  /// `thread_sort_index` metadata: lower sorts higher within the process.
  void writeThreadSortIndex(std::uint32_t pid, std::uint64_t tid, std::int64_t sortIndex);

  /// Closes traceEvents, writes `trailingKeysJson`'s members (a JSON object's text, e.g. {"fathomMerge":{...}};
  /// empty for none) and `traceName`, and finishes the sink (renames the file into place).
  void finish(std::string_view trailingKeysJson = {});
  /// Stops and removes the partial file.
  void abandon() noexcept;

  /// Events written so far.
  std::uint64_t eventCount() const { return m_events; }
  /// The underlying file.
  const TraceFileSink& sink() const { return m_sink; }

private:
  void beginEvent();
  void writeMetadataEvent(std::string_view name, std::uint32_t pid, std::uint64_t tid, const TraceArg& arg);
  void appendArgs(std::span<const TraceArg> args);

  TraceFileSink m_sink;
  std::int64_t m_baseNs = 0;
  std::string m_traceName;
  std::string m_line;  ///< the event being formatted; keeps its capacity
  std::uint64_t m_events = 0;
};

/// The members of `objectJson` (a JSON object's text) without the braces, for splicing into another object; empty
/// for "{}" or empty text. Throws ConfigError when it is not an object or defines one of `reserved`'s keys.
std::string objectMembersText(std::string_view objectJson, std::span<const std::string_view> reserved,
                              std::string_view what);

}  // namespace fathom::trace
