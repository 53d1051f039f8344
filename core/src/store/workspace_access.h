// SPDX-License-Identifier: Apache-2.0
// How a workspace file is opened (core/store internal): whether this process can write it and, for a reader, the
// SQLite URI that reads it without writing anything (docs/workspace.md, "Read-only workspaces").
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace fathom::store::access {

/// Workspace::whyNotWritable().
std::optional<std::string> whyNotWritable(const std::filesystem::path& path);

/// How a reader opens `path`: a "file:" URI with mode=ro, plus immutable=1 when SQLite could not create the -shm
/// file and there is no write-ahead log to read. Throws StorageError when there is a write-ahead log with frames
/// that cannot be read (no -shm file, and none can be created).
struct ReadOnlyOpen {
  std::string uri;
  bool immutable = false;
};
ReadOnlyOpen readOnlyOpen(const std::filesystem::path& path);

}  // namespace fathom::store::access
