// SPDX-License-Identifier: Apache-2.0
#include "fathom/trace/trace_input.h"

#include "fathom/common/error.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>
#include <vector>

namespace fathom::trace {

namespace {
constexpr std::size_t kRawBlockBytes = std::size_t{256} << 10;
}  // namespace

bool isGzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1F &&
         static_cast<unsigned char>(bytes[1]) == 0x8B;
}

struct TraceInput::Impl {
  std::string name;
  int fd = -1;         ///< file input; -1 for memory input
  std::string memory;  ///< memory input
  std::size_t memoryAt = 0;
  bool gzip = false;
  std::vector<char> raw;     ///< the raw block being consumed (file input, or gzip over memory)
  std::size_t rawBegin = 0;  ///< plain input: first unconsumed byte of `raw`
  std::size_t rawEnd = 0;
  bool rawEof = false;
  std::uint64_t rawRead = 0;
  z_stream zs{};
  bool zsOpen = false;
  bool memberEnded = false;  ///< gzip: inflate reached the end of a member
  bool acceptTruncated = false;
  bool truncated = false;

  ~Impl() {
    if (zsOpen) {
      inflateEnd(&zs);
    }
    if (fd >= 0) {
      ::close(fd);
    }
  }

  /// Reads the next raw bytes into `raw` (replacing what was there). Sets rawEof at the end.
  void refillRaw() {
    rawBegin = 0;
    rawEnd = 0;
    if (fd < 0) {
      const std::size_t n = std::min(raw.size(), memory.size() - memoryAt);
      std::memcpy(raw.data(), memory.data() + memoryAt, n);
      memoryAt += n;
      rawEnd = n;
    } else {
      for (;;) {
        const ssize_t n = ::read(fd, raw.data(), raw.size());
        if (n < 0 && errno == EINTR) {
          continue;
        }
        if (n < 0) {
          throw StorageError("cannot read " + name + ": " + std::strerror(errno));
        }
        rawEnd = static_cast<std::size_t>(n);
        break;
      }
    }
    rawRead += rawEnd;
    rawEof = rawEnd == 0;
  }

  std::uint64_t compressedOffset() const { return rawRead - zs.avail_in; }

  std::size_t readPlain(char* buffer, std::size_t capacity) {
    if (rawBegin == rawEnd && !rawEof) {
      refillRaw();
    }
    const std::size_t n = std::min(capacity, rawEnd - rawBegin);
    std::memcpy(buffer, raw.data() + rawBegin, n);
    rawBegin += n;
    return n;
  }

  std::size_t readGzip(char* buffer, std::size_t capacity) {
    zs.next_out = reinterpret_cast<Bytef*>(buffer);
    zs.avail_out = static_cast<uInt>(std::min<std::size_t>(capacity, 1u << 30));
    const uInt wanted = zs.avail_out;
    while (zs.avail_out > 0) {
      if (zs.avail_in == 0 && !rawEof) {
        refillRaw();
        zs.next_in = reinterpret_cast<Bytef*>(raw.data());
        zs.avail_in = static_cast<uInt>(rawEnd);
      }
      if (memberEnded) {
        if (zs.avail_in == 0) {
          break;  // the clean end: the last member ended with the input
        }
        if (zs.next_in[0] != 0x1F) {
          throw StorageError(name + ": unexpected bytes after the end of the gzip stream at compressed byte " +
                             std::to_string(compressedOffset()));
        }
        inflateReset(&zs);  // another member follows (concatenated .gz files)
        memberEnded = false;
      }
      if (zs.avail_in == 0 && acceptTruncated) {
        truncated = true;  // a prefix of a stream still being written: what it held has been returned
        break;
      }
      if (zs.avail_in == 0) {
        throw StorageError(name + ": truncated gzip stream (the file ends after " + std::to_string(rawRead) +
                           " compressed bytes, inside the compressed data)");
      }
      const int rc = inflate(&zs, Z_NO_FLUSH);
      if (rc == Z_STREAM_END) {
        memberEnded = true;
      } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
        throw StorageError(name + ": corrupt gzip data at compressed byte " + std::to_string(compressedOffset()) +
                           ": " + (zs.msg ? zs.msg : "inflate failed"));
      }
    }
    return wanted - zs.avail_out;
  }
};

TraceInput::TraceInput(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {
  Impl& d = *m_impl;
  d.raw.resize(kRawBlockBytes);
  d.refillRaw();
  d.gzip = isGzip(std::string_view(d.raw.data(), d.rawEnd));
  if (d.gzip) {
    // windowBits 15 + 16: gzip framing only (the magic was checked above).
    if (inflateInit2(&d.zs, 15 + 16) != Z_OK) {
      throw StorageError(d.name + ": zlib inflateInit2 failed");
    }
    d.zsOpen = true;
    d.zs.next_in = reinterpret_cast<Bytef*>(d.raw.data());
    d.zs.avail_in = static_cast<uInt>(d.rawEnd);
  }
}

TraceInput TraceInput::openFile(const std::filesystem::path& path) {
  auto impl = std::make_unique<Impl>();
  impl->name = path.string();
  impl->fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (impl->fd < 0) {
    throw StorageError("cannot open " + impl->name + ": " + std::strerror(errno));
  }
  return TraceInput(std::move(impl));
}

TraceInput TraceInput::fromBytes(std::string name, std::string bytes) {
  auto impl = std::make_unique<Impl>();
  impl->name = std::move(name);
  impl->memory = std::move(bytes);
  return TraceInput(std::move(impl));
}

TraceInput::TraceInput(TraceInput&&) noexcept = default;
TraceInput& TraceInput::operator=(TraceInput&&) noexcept = default;
TraceInput::~TraceInput() = default;

std::size_t TraceInput::read(char* buffer, std::size_t capacity) {
  if (capacity == 0) {
    return 0;
  }
  return m_impl->gzip ? m_impl->readGzip(buffer, capacity) : m_impl->readPlain(buffer, capacity);
}

const std::string& TraceInput::name() const {
  return m_impl->name;
}

bool TraceInput::compressed() const {
  return m_impl->gzip;
}

std::uint64_t TraceInput::rawBytesRead() const {
  return m_impl->gzip ? m_impl->compressedOffset() : m_impl->rawRead - (m_impl->rawEnd - m_impl->rawBegin);
}

void TraceInput::setAcceptTruncatedStream(bool accept) {
  m_impl->acceptTruncated = accept;
}

bool TraceInput::streamTruncated() const {
  return m_impl->truncated;
}

}  // namespace fathom::trace
