// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

namespace fathom::trace {

/// The bytes of a trace, read in chunks from a file or from memory, gunzipped on the fly when they start with the
/// gzip magic (1F 8B), whatever the name says. Concatenated gzip members are read as one stream (what `cat a.gz
/// b.gz` gives). Memory is constant: one input block and zlib's state.
class TraceInput {
public:
  /// Opens a file. Throws StorageError naming it when it cannot be opened.
  static TraceInput openFile(const std::filesystem::path& path);
  /// Reads `bytes` (e.g. a trace stored in the workspace); `name` is what error messages call it.
  static TraceInput fromBytes(std::string name, std::string bytes);

  TraceInput(TraceInput&&) noexcept;
  TraceInput& operator=(TraceInput&&) noexcept;
  ~TraceInput();

  /// Fills up to `capacity` bytes of `buffer` with the next (decompressed) bytes; returns how many, 0 only at the
  /// end. Throws StorageError naming the input on a read error, corrupt gzip data, or a gzip stream that ends
  /// early ("truncated").
  std::size_t read(char* buffer, std::size_t capacity);

  /// The file name or the name given to fromBytes().
  const std::string& name() const;
  /// Whether the input is gzip-compressed.
  bool compressed() const;
  /// Raw (possibly compressed) bytes consumed so far: progress against the file size.
  std::uint64_t rawBytesRead() const;

  /// Reads a prefix of a gzip stream (a trace still being written, stored chunk by chunk): a stream that ends inside
  /// its compressed data then ends quietly after the bytes it holds, and streamTruncated() says so, instead of
  /// read() throwing "truncated gzip stream". Corrupt data still throws. Set before the first read().
  void setAcceptTruncatedStream(bool accept);
  /// Whether the gzip stream ended early (only with setAcceptTruncatedStream(true)).
  bool streamTruncated() const;

private:
  struct Impl;
  explicit TraceInput(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> m_impl;
};

/// True when `bytes` start with the gzip magic 1F 8B.
bool isGzip(std::string_view bytes);

}  // namespace fathom::trace
