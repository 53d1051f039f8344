// SPDX-License-Identifier: Apache-2.0
#include "fathom/trace/trace_file_sink.h"

#include "fathom/common/atomic_file.h"
#include "fathom/common/error.h"
#include "fathom/trace/trace_file_names.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace fathom::trace {

struct TraceFileSink::Impl {
  std::filesystem::path path;
  TraceFileOptions options;
  bool gzip = false;
  std::optional<AtomicFile> file;  ///< "<path>.partial" until finish() renames it
  std::vector<char> pending;       ///< bytes given to write() and not yet written out (uncompressed)
  std::size_t pendingUsed = 0;
  std::vector<char> deflated;  ///< deflate's output block (gzip only)
  z_stream zs{};
  bool zsOpen = false;
  std::uint64_t bytesIn = 0;
  std::uint64_t bytesOut = 0;
  bool finished = false;
  bool abandoned = false;

  void closeAndRemove() noexcept {
    if (zsOpen) {
      deflateEnd(&zs);
      zsOpen = false;
    }
    if (file) {
      file->abandon();
    }
    abandoned = !finished;
  }

  /// Runs a step of the file; an exception from it abandons the sink (the partial file is removed) and propagates.
  template <typename Step> void guarded(Step&& step) {
    try {
      step();
    } catch (...) {
      closeAndRemove();
      throw;
    }
  }

  [[noreturn]] void fail(const std::string& what) {
    closeAndRemove();
    throw StorageError("cannot write trace file " + path.string() + ": " + what);
  }

  void checkUsable() const {
    FATHOM_CHECK(!finished, StorageError, "trace file ", path.string(), " is already finished");
    FATHOM_CHECK(!abandoned, StorageError, "trace file ", file ? file->temporaryPath().string() : path.string(),
                 " was abandoned after an error");
  }

  /// Writes one block to disk and hands it to onChunk.
  void emit(const char* data, std::size_t size) {
    if (file) {
      guarded([&] { file->write(data, size); });
    }
    bytesOut += size;
    if (options.onChunk && size > 0) {
      guarded([&] { options.onChunk(std::string_view(data, size)); });
    }
  }

  /// Writes out the pending bytes; `final` also ends the gzip stream.
  void flush(bool final) {
    if (!gzip) {
      emit(pending.data(), pendingUsed);
      pendingUsed = 0;
      return;
    }
    zs.next_in = reinterpret_cast<Bytef*>(pending.data());
    zs.avail_in = static_cast<uInt>(pendingUsed);
    const int mode = final ? Z_FINISH : Z_NO_FLUSH;
    int rc = Z_OK;
    do {  // zlib's documented loop: until deflate leaves room in the output block
      zs.next_out = reinterpret_cast<Bytef*>(deflated.data());
      zs.avail_out = static_cast<uInt>(deflated.size());
      rc = deflate(&zs, mode);
      if (rc == Z_STREAM_ERROR) {
        fail("zlib deflate failed");
      }
      emit(deflated.data(), deflated.size() - zs.avail_out);
    } while (zs.avail_out == 0);
    if (final && rc != Z_STREAM_END) {
      fail("zlib did not end the gzip stream");
    }
    pendingUsed = 0;
  }
};

TraceFileSink::TraceFileSink(std::filesystem::path path, TraceFileOptions options) : m_impl(std::make_unique<Impl>()) {
  FATHOM_CHECK(!path.empty(), ConfigError, "trace file path is empty");
  FATHOM_CHECK(options.compressionLevel >= 0 && options.compressionLevel <= 9, ConfigError,
               "TraceFileOptions::compressionLevel must be 0..9, got ", options.compressionLevel);
  FATHOM_CHECK(options.bufferBytes >= 64 && options.bufferBytes <= (std::size_t{1} << 30), ConfigError,
               "TraceFileOptions::bufferBytes must be 64 B .. 1 GiB, got ", options.bufferBytes);
  Impl& d = *m_impl;
  d.gzip = options.gzip.value_or(path.extension() == ".gz");
  d.path = std::move(path);
  d.options = std::move(options);
  d.pending.resize(d.options.bufferBytes);
  if (d.gzip) {
    d.deflated.resize(d.options.bufferBytes);
    // windowBits 15 + 16: a gzip header and trailer instead of zlib's; memLevel 8 is zlib's default.
    if (deflateInit2(&d.zs, d.options.compressionLevel, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
      throw StorageError("cannot write trace file " + d.path.string() + ": zlib deflateInit2 failed");
    }
    d.zsOpen = true;
  }
  if (!d.options.noFile) {
    d.guarded([&d] {
      d.file.emplace(d.path, AtomicFileOptions{.temporarySuffix = std::string(kPartialTraceSuffix),
                                               .what = "trace file",
                                               .replaceExisting = d.options.replaceExisting});
    });
  }
}

TraceFileSink::~TraceFileSink() {
  abandon();
}

void TraceFileSink::write(std::string_view bytes) {
  Impl& d = *m_impl;
  d.checkUsable();
  d.bytesIn += bytes.size();
  while (!bytes.empty()) {
    const std::size_t room = d.pending.size() - d.pendingUsed;
    const std::size_t n = std::min(room, bytes.size());
    std::memcpy(d.pending.data() + d.pendingUsed, bytes.data(), n);
    d.pendingUsed += n;
    bytes.remove_prefix(n);
    if (d.pendingUsed == d.pending.size()) {
      d.flush(false);
    }
  }
}

void TraceFileSink::finish() {
  Impl& d = *m_impl;
  d.checkUsable();
  d.flush(true);
  if (d.zsOpen) {
    deflateEnd(&d.zs);
    d.zsOpen = false;
  }
  if (d.file) {
    d.guarded([&d] { d.file->commit(); });  // fsync, rename to path(), fsync the directory
  }
  d.finished = true;
}

void TraceFileSink::abandon() noexcept {
  if (m_impl) {
    m_impl->closeAndRemove();
  }
}

const std::filesystem::path& TraceFileSink::path() const {
  return m_impl->path;
}

bool TraceFileSink::gzip() const {
  return m_impl->gzip;
}

std::uint64_t TraceFileSink::bytesIn() const {
  return m_impl->bytesIn;
}

std::uint64_t TraceFileSink::bytesOut() const {
  return m_impl->bytesOut;
}

bool TraceFileSink::finished() const {
  return m_impl->finished;
}

}  // namespace fathom::trace
