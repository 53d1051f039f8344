// SPDX-License-Identifier: Apache-2.0
#include <fathom/common/atomic_file.h>

#include <fathom/common/error.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <system_error>
#include <unistd.h>

namespace fathom {
namespace {

std::filesystem::path folderOf(const std::filesystem::path& path) {
  return path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
}

}  // namespace

std::string writeFailureReason(int error, const std::filesystem::path& path) {
  switch (error) {
  case EFBIG: return "file size limit (ulimit -f) reached while writing " + path.string();
  case ENOSPC:
  case EDQUOT: return "no space left on the device (or the disk quota is used up) while writing " + path.string();
  case EROFS: return "the folder " + folderOf(path).string() + " is on a read-only file system";
  case EACCES:
  case EPERM: return "the folder " + folderOf(path).string() + " is not writable (" + std::strerror(error) + ")";
  default: return std::strerror(error);
  }
}

AtomicFile::AtomicFile(std::filesystem::path path, AtomicFileOptions options)
    : m_path(std::move(path)), m_options(std::move(options)) {
  FATHOM_CHECK(!m_path.empty(), ConfigError, m_options.what, " path is empty");
  FATHOM_CHECK(!m_options.temporarySuffix.empty(), ConfigError, "AtomicFileOptions::temporarySuffix is empty");
  m_temporary = m_path;
  m_temporary += m_options.temporarySuffix;
  if (m_options.unnamedWhileWriting) {
    m_fd = ::open(folderOf(m_path).c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
    m_unnamed = m_fd >= 0;
    // No O_TMPFILE on this file system (EOPNOTSUPP; EISDIR or EINVAL from older kernels): use the named temporary.
    // Any other error (a folder we cannot write) is reported as the named temporary's would be.
    if (m_fd < 0 && errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) {
      const int error = errno;
      throw StorageError(detail::concat("cannot write ", m_options.what, " ", m_path.string(), ": cannot create ",
                                        m_temporary.string(), ": ", writeFailureReason(error, m_temporary)));
    }
  }
  if (m_fd < 0) {
    m_fd = ::open(m_temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  }
  if (m_fd < 0) {
    const int error = errno;
    throw StorageError(detail::concat("cannot write ", m_options.what, " ", m_path.string(), ": cannot create ",
                                      m_temporary.string(), ": ", writeFailureReason(error, m_temporary)));
  }
}

AtomicFile::~AtomicFile() {
  abandon();
}

void AtomicFile::writeWhole(const std::filesystem::path& path, std::string_view contents, AtomicFileOptions options) {
  AtomicFile file(path, std::move(options));
  file.write(contents);
  file.commit();
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
    // Linux writes at most ~2 GiB per call; loop for larger blocks and partial writes. At the file size limit a
    // write is first cut short, then fails with EFBIG (SIGXFSZ is ignored by Fathom's programs, app/cli/main.cpp).
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
  // Invariant: the rename happens only after every byte reached the disk (fsync), so the final name never holds a
  // part of the file, even after a power loss.
  if (::fsync(m_fd) != 0) {
    failErrno("fsync failed", errno);
  }
  if (m_unnamed) {
    giveTemporaryName();
  }
  const int fd = m_fd;
  m_fd = -1;
  if (::close(fd) != 0) {
    failErrno("close failed", errno);
  }
  if (m_options.replaceExisting) {
    if (::rename(m_temporary.c_str(), m_path.c_str()) != 0) {
      failErrno("cannot rename " + m_temporary.string() + " to it", errno);
    }
  } else {
    publishWithoutReplacing();
  }
  m_committed = true;
  // Make the rename itself durable; best effort (some file systems refuse to fsync a directory). The file is
  // complete under its final name either way.
  if (const int dirFd = ::open(folderOf(m_path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dirFd >= 0) {
    ::fsync(dirFd);
    ::close(dirFd);
  }
}

void AtomicFile::giveTemporaryName() {
  // linkat() cannot replace a name: a stale temporary of the same name (a writer killed between this link and its
  // rename) goes first. Through /proc/self/fd, as AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH.
  std::error_code ignored;
  std::filesystem::remove(m_temporary, ignored);
  const std::string self = "/proc/self/fd/" + std::to_string(m_fd);
  if (::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, m_temporary.c_str(), AT_SYMLINK_FOLLOW) != 0) {
    failErrno("cannot name the finished file " + m_temporary.string(), errno);
  }
  m_unnamed = false;  // from here on abandon() removes the name
}

void AtomicFile::publishWithoutReplacing() {
  // Atomic test-and-rename: two writers of one path cannot both succeed, and neither replaces what is there.
  if (::renameat2(AT_FDCWD, m_temporary.c_str(), AT_FDCWD, m_path.c_str(), RENAME_NOREPLACE) == 0) {
    return;
  }
  int error = errno;
  if (error == EINVAL || error == ENOSYS) {  // a file system without RENAME_NOREPLACE: link() never replaces either
    if (::link(m_temporary.c_str(), m_path.c_str()) == 0) {
      ::unlink(m_temporary.c_str());
      return;
    }
    error = errno;
  }
  if (error == EEXIST) {
    fail("it exists, and this file never replaces another (remove it, or write elsewhere)");
  }
  failErrno("cannot rename " + m_temporary.string() + " to it", error);
}

void AtomicFile::abandon() noexcept {
  if (m_committed || m_abandoned) {
    return;
  }
  m_abandoned = true;
  if (m_fd >= 0) {
    ::close(m_fd);  // an unnamed file disappears with its last descriptor
    m_fd = -1;
  }
  if (!m_unnamed) {
    std::error_code ignored;
    std::filesystem::remove(m_temporary, ignored);
  }
}

void AtomicFile::fail(std::string_view reason) {
  abandon();
  throw StorageError(detail::concat("cannot write ", m_options.what, " ", m_path.string(), ": ", reason));
}

void AtomicFile::failErrno(std::string_view what, int error) {
  fail(error == EFBIG || error == ENOSPC || error == EDQUOT
           ? writeFailureReason(error, m_path)
           : std::string(what) + ": " + writeFailureReason(error, m_path));
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
