// SPDX-License-Identifier: Apache-2.0
#include <fathom/common/atomic_file.h>

#include <fathom/common/error.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <system_error>
#include <unistd.h>

namespace fathom {

AtomicFile::AtomicFile(std::filesystem::path path, AtomicFileOptions options)
    : m_path(std::move(path)), m_options(std::move(options)) {
  FATHOM_CHECK(!m_path.empty(), ConfigError, m_options.what, " path is empty");
  FATHOM_CHECK(!m_options.temporarySuffix.empty(), ConfigError, "AtomicFileOptions::temporarySuffix is empty");
  m_temporary = m_path;
  m_temporary += m_options.temporarySuffix;
  m_fd = ::open(m_temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (m_fd < 0) {
    const int error = errno;
    throw StorageError(detail::concat("cannot write ", m_options.what, " ", m_path.string(), ": cannot create ",
                                      m_temporary.string(), ": ", std::strerror(error)));
  }
}

AtomicFile::~AtomicFile() {
  abandon();
}

void AtomicFile::checkWritable() const {
  if (m_fd < 0) {
    throw StorageError(detail::concat("cannot write ", m_options.what, " ", m_path.string(), ": it is already ",
                                      m_committed ? "committed" : "abandoned"));
  }
}

void AtomicFile::write(const void* data, std::size_t size) {
  checkWritable();
  const auto* p = static_cast<const char*>(data);
  while (size > 0) {
    // Linux writes at most ~2 GiB per call; loop for larger blocks and partial writes.
    const ssize_t n = ::write(m_fd, p, std::min<std::size_t>(size, std::size_t{1} << 30));
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      failErrno("write failed", errno);
    }
    p += n;
    size -= static_cast<std::size_t>(n);
  }
}

void AtomicFile::commit() {
  checkWritable();
  if (::fsync(m_fd) != 0) {
    failErrno("fsync failed", errno);
  }
  const int fd = m_fd;
  m_fd = -1;
  if (::close(fd) != 0) {
    failErrno("close failed", errno);
  }
  if (::rename(m_temporary.c_str(), m_path.c_str()) != 0) {
    failErrno("cannot rename " + m_temporary.string() + " to it", errno);
  }
  m_committed = true;
  // Make the rename itself durable; best effort (some file systems refuse to fsync a directory).
  const std::filesystem::path dir = m_path.has_parent_path() ? m_path.parent_path() : std::filesystem::path(".");
  if (const int dirFd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dirFd >= 0) {
    ::fsync(dirFd);
    ::close(dirFd);
  }
}

void AtomicFile::abandon() noexcept {
  if (m_committed || m_abandoned) {
    return;
  }
  m_abandoned = true;
  if (m_fd >= 0) {
    ::close(m_fd);
    m_fd = -1;
  }
  std::error_code ignored;
  std::filesystem::remove(m_temporary, ignored);
}

void AtomicFile::fail(std::string_view reason) {
  abandon();
  throw StorageError(detail::concat("cannot write ", m_options.what, " ", m_path.string(), ": ", reason));
}

void AtomicFile::failErrno(std::string_view what, int error) {
  fail(std::string(what) + ": " + std::strerror(error));
}

void syncDirectory(const std::filesystem::path& directory, std::string_view what) {
  const int fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    const int error = errno;
    throw StorageError(detail::concat("cannot sync ", what, " ", directory.string(), ": ", std::strerror(error)));
  }
  const int rc = ::fsync(fd);
  const int error = errno;
  ::close(fd);
  if (rc != 0)
    throw StorageError(detail::concat("cannot sync ", what, " ", directory.string(), ": ", std::strerror(error)));
}

}  // namespace fathom
