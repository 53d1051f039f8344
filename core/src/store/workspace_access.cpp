// SPDX-License-Identifier: Apache-2.0
#include "workspace_access.h"

#include <fathom/common/error.h>

#include <cerrno>
#include <cstring>
#include <system_error>
#include <unistd.h>

namespace fathom::store::access {
namespace {

namespace fs = std::filesystem;

fs::path folderOf(const fs::path& path) {
  return path.has_parent_path() ? path.parent_path() : fs::path(".");
}

fs::path withSuffix(const fs::path& path, const char* suffix) {
  fs::path p = path;
  p += suffix;
  return p;
}

/// access(W_OK) of `path`: "" when writable, else the reason (errno's text). access() checks the real uid, which is
/// the effective one for Fathom's programs, and honours read-only mounts and dropped capabilities.
std::string writeDenied(const fs::path& path) {
  if (::access(path.c_str(), W_OK) == 0) {
    return {};
  }
  const int error = errno;
  return error == EROFS ? std::string("on a read-only file system")
                        : "not writable (" + std::string(std::strerror(error)) + ")";
}

/// RFC 3986 percent-encoding for a path in a "file:" URI ('?', '#', '%' and anything not plain ASCII).
std::string uriPath(const fs::path& path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const unsigned char c : path.string()) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || std::strchr("/-._~", c)) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

bool nonEmptyFile(const fs::path& path) {
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  return !ec && size > 0;
}

}  // namespace

std::optional<std::string> whyNotWritable(const fs::path& path) {
  std::error_code ec;
  const fs::path folder = folderOf(path);
  if (!fs::is_directory(folder, ec)) {
    return "the folder " + folder.string() + " does not exist";
  }
  const fs::path wal = withSuffix(path, "-wal");
  const fs::path shm = withSuffix(path, "-shm");
  // SQLite creates whichever of the three files is missing; a file that exists must be writable itself.
  const bool mustCreate = !fs::exists(path, ec) || !fs::exists(wal, ec) || !fs::exists(shm, ec);
  if (mustCreate) {
    if (std::string denied = writeDenied(folder); !denied.empty()) {
      return "the folder " + folder.string() + " is " + denied + ", and SQLite must create the workspace's journal " +
             "files " + wal.filename().string() + " and " + shm.filename().string() + " in it";
    }
  }
  for (const fs::path& file : {path, wal, shm}) {
    if (fs::exists(file, ec)) {
      if (std::string denied = writeDenied(file); !denied.empty()) {
        return "the file " + file.string() + " is " + denied;
      }
    }
  }
  return std::nullopt;
}

ReadOnlyOpen readOnlyOpen(const fs::path& path) {
  std::error_code ec;
  const fs::path absolute = fs::absolute(path, ec);
  ReadOnlyOpen open{"file:" + uriPath(ec ? path : absolute) + "?mode=ro", false};
  const fs::path folder = folderOf(path);
  const fs::path wal = withSuffix(path, "-wal");
  const fs::path shm = withSuffix(path, "-shm");
  if (fs::exists(shm, ec) || writeDenied(folder).empty()) {
    return open;  // SQLite reads the -shm file read-only, or creates it
  }
  if (nonEmptyFile(wal)) {
    // Without the -shm index the log's frames cannot be read, and skipping them would return old data.
    throw StorageError(path.string() + ": cannot read the workspace: its write-ahead log " + wal.string() +
                       " holds changes not yet in the file, its shared-memory index " + shm.filename().string() +
                       " is missing, and the folder " + folder.string() + " is " + writeDenied(folder) +
                       ", so SQLite cannot create it. Open the workspace once where its folder is writable (a "
                       "writer folds the log into the file), or copy the workspace and its -wal file to a writable "
                       "folder and read the copy");
  }
  // No log to read and nowhere to put the -shm file. Every connection in WAL mode keeps the -shm file while it is open,
  // so none is open now; and this process cannot write here. SQLite reads it as immutable (no locks, no -shm file).
  open.uri += "&immutable=1";
  open.immutable = true;
  return open;
}

}  // namespace fathom::store::access
