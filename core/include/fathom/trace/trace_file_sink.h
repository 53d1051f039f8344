// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>

namespace fathom::trace {

/// How a TraceFileSink writes its file.
struct TraceFileOptions {
  /// Compress with gzip (RFC 1952, what `.json.gz` readers expect). Unset: on when the path ends with ".gz".
  std::optional<bool> gzip;
  /// zlib level 1 (fastest) .. 9 (smallest). Level 1 keeps a profiler's export cheap; traces compress ~8x even so.
  int compressionLevel = 1;
  /// Bytes gathered before one write(2) (and, with gzip, before one deflate pass). Memory use is about twice this.
  std::size_t bufferBytes = std::size_t{1} << 20;
  /// Called with every block of bytes as it is written to disk (the compressed bytes with gzip), in order; the
  /// concatenation of all blocks is the finished file. The profiler streams a trace to the workspace with it while
  /// the trace is written. An exception thrown here aborts the sink like an I/O error.
  std::function<void(std::string_view)> onChunk;
  /// Whether finish() may replace a file already at the path (AtomicFileOptions::replaceExisting). The profiler's
  /// traces never replace another's: a StorageError "it exists" instead.
  bool replaceExisting = true;
  /// Write no file: the blocks go to onChunk only, and the path only names the trace in messages (a trace assembled
  /// in memory, as mergeTraceBytes does).
  bool noFile = false;
};

/// Writes a trace file, optionally gzip-compressed, atomically (fathom::AtomicFile): bytes go to "<path>.partial",
/// and finish() flushes it to disk and renames it to `path`. An I/O error, an exception, or destroying the sink
/// before finish() removes the partial file, so a failure never leaves a half-written trace under the final name.
///
/// Not thread-safe: one writer thread. Memory is constant (two buffers of TraceFileOptions::bufferBytes).
class TraceFileSink {
public:
  /// Creates "<path>.partial" (replacing a stale one). Throws ConfigError for bad options, StorageError naming the
  /// file when it cannot be created.
  explicit TraceFileSink(std::filesystem::path path, TraceFileOptions options = {});
  /// Abandons an unfinished file (removes the partial file).
  ~TraceFileSink();
  TraceFileSink(const TraceFileSink&) = delete;
  TraceFileSink& operator=(const TraceFileSink&) = delete;

  /// Appends bytes. Throws StorageError naming the file on an I/O error (the partial file is removed).
  void write(std::string_view bytes);
  /// Flushes, ends the gzip stream, syncs, closes and renames the partial file to path(). Throws StorageError on
  /// failure. Calling it twice is an error.
  void finish();
  /// Stops and removes the partial file; safe to call at any time, also after a failure.
  void abandon() noexcept;

  /// The final file name.
  const std::filesystem::path& path() const;
  /// Whether the output is gzip-compressed.
  bool gzip() const;
  /// Bytes given to write() so far.
  std::uint64_t bytesIn() const;
  /// Bytes written to disk so far (equal to bytesIn() without gzip, once flushed).
  std::uint64_t bytesOut() const;
  /// True after a successful finish().
  bool finished() const;

private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace fathom::trace
