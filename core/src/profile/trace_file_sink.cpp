// SPDX-License-Identifier: Apache-2.0
#include "fathom/profile/trace_file_sink.h"

#include "fathom/common/error.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <system_error>
#include <unistd.h>
#include <vector>

namespace fathom::profile {

struct TraceFileSink::Impl {
  std::filesystem::path path;
  std::filesystem::path partial;
  TraceFileOptions options;
  bool gzip = false;
  int fd = -1;
  std::vector<char> pending;  ///< bytes given to write() and not yet written out (uncompressed)
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
    if (fd >= 0) {
      ::close(fd);
      fd = -1;
    }
    if (!finished && !abandoned) {
      std::error_code ignored;
      std::filesystem::remove(partial, ignored);
    }
    abandoned = !finished;
  }

  [[noreturn]] void fail(const std::string& what) {
    closeAndRemove();
    throw StorageError("cannot write trace file " + partial.string() + ": " + what);
  }

  void checkUsable() const {
    FATHOM_CHECK(!finished, StorageError, "trace file ", path.string(), " is already finished");
    FATHOM_CHECK(!abandoned, StorageError, "trace file ", partial.string(), " was abandoned after an error");
  }

  /// Writes one block to disk and hands it to onChunk.
  void emit(const char* data, std::size_t size) {
    std::size_t done = 0;
    while (done < size) {
      const ssize_t n = ::write(fd, data + done, size - done);
      if (n < 0) {
        if (errno == EINTR) {
          continue;
        }
        fail(std::strerror(errno));
      }
      done += static_cast<std::size_t>(n);
    }
    bytesOut += size;
    if (options.onChunk && size > 0) {
      try {
        options.onChunk(std::string_view(data, size));
      } catch (...) {
        closeAndRemove();
        throw;
      }
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
  d.partial = d.path;
  d.partial += ".partial";
  d.options = std::move(options);
  d.pending.resize(d.options.bufferBytes);
  if (d.gzip) {
    d.deflated.resize(d.options.bufferBytes);
    // windowBits 15 + 16: a gzip header and trailer instead of zlib's; memLevel 8 is zlib's default.
    if (deflateInit2(&d.zs, d.options.compressionLevel, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
      throw StorageError("cannot write trace file " + d.partial.string() + ": zlib deflateInit2 failed");
    }
    d.zsOpen = true;
  }
  d.fd = ::open(d.partial.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (d.fd < 0) {
    const int error = errno;
    d.closeAndRemove();
    throw StorageError("cannot create trace file " + d.partial.string() + ": " + std::strerror(error));
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
  const int fd = d.fd;
  d.fd = -1;
  if (::close(fd) != 0) {
    d.fail(std::strerror(errno));
  }
  std::error_code error;
  std::filesystem::rename(d.partial, d.path, error);
  if (error) {
    d.fail("cannot rename it to " + d.path.string() + ": " + error.message());
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

}  // namespace fathom::profile
