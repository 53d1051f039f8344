// SPDX-License-Identifier: Apache-2.0
#include <fathom/common/output_location.h>

#include <fathom/common/atomic_file.h>
#include <fathom/common/error.h>

#include <atomic>
#include <cerrno>
#include <fcntl.h>
#include <system_error>
#include <unistd.h>

namespace fathom {
namespace {

namespace fs = std::filesystem;

/// Creates, writes one byte to and removes a probe file in `folder`; the reason it failed, if it did.
std::optional<std::string> probeFolder(const fs::path& folder) {
  static std::atomic<unsigned> counter{0};
  const fs::path probe =
      folder / (".fathom-write-probe-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    const int error = errno;
    if (error == EACCES || error == EPERM || error == EROFS) {
      return writeFailureReason(error, probe);  // "the folder F is not writable (...)" / "... read-only file system"
    }
    return "cannot create a file in the folder " + folder.string() + ": " + writeFailureReason(error, probe);
  }
  int error = 0;
  const char byte = 0;
  for (;;) {
    const ssize_t n = ::write(fd, &byte, 1);
    if (n == 1) {
      break;
    }
    if (n < 0 && errno == EINTR) {
      continue;
    }
    error = n < 0 ? errno : EFBIG;
    break;
  }
  ::close(fd);
  ::unlink(probe.c_str());
  if (error != 0) {
    return "a test write in the folder " + folder.string() + " failed: " + writeFailureReason(error, probe);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> outputLocationProblem(const OutputLocation& location) {
  std::error_code ec;
  const fs::path& path = location.path;
  if (path.empty()) {
    return std::string("the path is empty");
  }
  const fs::file_status status = fs::status(path, ec);
  if (location.kind == OutputLocation::Kind::File) {
    if (fs::is_directory(status)) {
      return std::string("it is a folder");
    }
    const fs::path folder = path.has_parent_path() ? path.parent_path() : fs::path(".");
    const fs::file_status folderStatus = fs::status(folder, ec);
    if (!fs::exists(folderStatus)) {
      return "the folder " + folder.string() + " does not exist";
    }
    if (!fs::is_directory(folderStatus)) {
      return "its folder " + folder.string() + " is not a folder";
    }
    return probeFolder(folder);
  }
  if (fs::exists(status)) {
    if (!fs::is_directory(status)) {
      return std::string("it exists and is not a folder");
    }
    return probeFolder(path);
  }
  // Missing: it will be created, so its nearest existing ancestor must take new entries.
  fs::path ancestor = fs::absolute(path, ec).parent_path();
  while (!ancestor.empty() && !fs::exists(ancestor, ec)) {
    if (ancestor == ancestor.parent_path()) {
      break;
    }
    ancestor = ancestor.parent_path();
  }
  if (!fs::is_directory(ancestor, ec)) {
    return "it cannot be created: " + ancestor.string() + " is not a folder";
  }
  if (auto problem = probeFolder(ancestor)) {
    return "it cannot be created: " + *problem;
  }
  return std::nullopt;
}

void checkOutputLocations(std::span<const OutputLocation> locations) {
  for (const OutputLocation& location : locations) {
    if (auto problem = outputLocationProblem(location)) {
      throw StorageError(detail::concat("cannot write ", location.what, " ", location.path.string(), ": ", *problem,
                                        " (checked before starting, so nothing was lost)"));
    }
  }
}

}  // namespace fathom
