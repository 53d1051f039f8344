// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "fathom/trace/trace_input.h"

#include <nlohmann/json_fwd.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

namespace fathom::trace {

/// Limits of a TraceReader.
struct TraceReaderOptions {
  /// Bytes read from the input per refill.
  std::size_t chunkBytes = std::size_t{1} << 20;
  /// The largest single event or top-level value accepted (the buffer grows to hold one); larger is an error.
  std::size_t maxValueBytes = std::size_t{256} << 20;
  /// Read a prefix of a trace (one still being written, stored chunk by chunk as it is written): when the input
  /// ends early (inside an event, between events, in the keys after traceEvents, inside the gzip stream), next()
  /// returns false after the last complete event instead of throwing "truncated", and truncatedTail() says so. An
  /// input that ends inside the top-level keys before traceEvents yields no events. Malformed text still throws.
  bool acceptTruncatedTail = false;
};

/// Reads a Chrome trace, `.json` or `.json.gz`, object form (`{"traceEvents":[...], ...}`) or array form
/// (`[...]`), in constant memory: a chunked scanner walks the top level and yields each element of `traceEvents`
/// as its raw JSON text, string- and escape-aware, without parsing it. Parse an event with parseEvent()
/// (nlohmann::json) or, faster and exactly, with TraceEventView.
///
/// The other top-level keys (distributedInfo, baseTimeNanoseconds, deviceProperties, ...) are parsed and kept in
/// metadata(): the ones before `traceEvents` once the constructor returns, all of them once next() has returned
/// false. An array-form file may lack its closing `]` (the format allows it, so traces of crashed processes still
/// load): unclosedArray() tells. A trailing comma before traceEvents' `]` is tolerated too (trailingComma()).
///
/// Errors throw StorageError naming the file, the byte offset (in the uncompressed text) and the line of what was
/// malformed; a file that ends early says "truncated". Memory: chunkBytes plus the largest event, plus metadata().
class TraceReader {
public:
  /// Opens `path` and reads up to the first event. Throws StorageError (unreadable, malformed, truncated) and
  /// ConfigError (bad options).
  explicit TraceReader(const std::filesystem::path& path, TraceReaderOptions options = {});
  /// Reads from `input` (e.g. TraceInput::fromBytes for a trace held in memory).
  explicit TraceReader(TraceInput input, TraceReaderOptions options = {});
  ~TraceReader();
  TraceReader(const TraceReader&) = delete;
  TraceReader& operator=(const TraceReader&) = delete;

  /// Moves to the next event; false after the last one (the rest of the file has then been read and checked).
  bool next();
  /// The current event's JSON text; valid until the next call to next().
  std::string_view event() const;
  /// The current event's 0-based index in traceEvents.
  std::uint64_t eventIndex() const;
  /// Events yielded so far.
  std::uint64_t eventCount() const;
  /// The current event's byte offset in the (uncompressed) text.
  std::uint64_t eventOffset() const;
  /// Parses the current event. Throws StorageError naming the file, the event and the offset when it is not JSON.
  nlohmann::json parseEvent() const;

  /// The top-level keys other than traceEvents, as a JSON object (empty for the array form).
  const nlohmann::json& metadata() const;
  /// Whether the file is the object form.
  bool objectForm() const;
  /// Array form without its closing `]`: accepted, reported here.
  bool unclosedArray() const;
  /// traceEvents ends with `,]`: not JSON, but Perfetto accepts it (google/perfetto#1822), so the reader does too.
  bool trailingComma() const;
  /// The file (or TraceInput) name used in messages.
  const std::string& name() const;
  /// Raw (possibly compressed) bytes consumed: progress against the file size.
  std::uint64_t rawBytesRead() const;
  /// Uncompressed bytes scanned so far.
  std::uint64_t bytesScanned() const;
  /// With TraceReaderOptions::acceptTruncatedTail: whether the input ended early (known once next() returned false).
  bool truncatedTail() const;
  /// Uncompressed bytes up to the end of the last complete event yielded (0 before the first): with a truncated
  /// tail, how much of the prefix was used.
  std::uint64_t completeBytes() const;

  /// "<name>: <what> at byte N (line L)", for errors found in the current event by a caller; `offsetInEvent` is
  /// relative to event().
  std::string describeInEvent(std::size_t offsetInEvent, std::string_view what) const;

  /// Reads a whole file and returns its top-level keys, events skipped (scanned, not parsed).
  static nlohmann::json readMetadata(const std::filesystem::path& path);

private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace fathom::trace
