// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

namespace fathom {

/// How an AtomicFile names its temporary file and what its messages call the file.
struct AtomicFileOptions {
  /// The temporary file is "<path><temporarySuffix>", next to the final one (a rename never crosses file systems).
  std::string temporarySuffix = ".partial";
  /// What the file is, for messages: "cannot write <what> <path>: <reason>".
  std::string what = "file";
};

/// Writes a file so that readers see the old file or the whole new one, never a part: bytes go to a temporary file
/// next to it, and commit() flushes them to disk (fsync), renames the temporary over the final path and makes the
/// rename durable (fsync of the directory, best effort). An error, an exception or destroying the object before
/// commit() removes the temporary: a failure leaves nothing under either name. Trace files (trace::TraceFileSink)
/// and safetensors checkpoints are written through it.
///
/// Errors throw StorageError naming the final path and the reason. Not thread-safe: one writer.
class AtomicFile {
public:
  /// Creates the temporary file, replacing a stale one. Throws StorageError when it cannot be created (then
  /// nothing is removed: a file we could not create may belong to someone else).
  explicit AtomicFile(std::filesystem::path path, AtomicFileOptions options = {});
  /// Abandons an uncommitted file (removes the temporary).
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  /// Appends bytes (any size: large writes are split, partial writes resumed). Throws StorageError after abandoning
  /// the file on an I/O error, or when the file was already committed or abandoned.
  void write(const void* data, std::size_t size);
  void write(std::string_view bytes) { write(bytes.data(), bytes.size()); }
  /// fsync, close, rename to path(), fsync the directory. Throws StorageError (after abandoning) on failure.
  void commit();
  /// Closes and removes the temporary; safe to call at any time, also after a failure or a commit (then a no-op).
  void abandon() noexcept;
  /// Abandons the file and throws StorageError("cannot write <what> <path>: <reason>"): for a writer's own failures
  /// (a compressor's error, say), so they read like the file's.
  [[noreturn]] void fail(std::string_view reason);

  /// The final file name.
  const std::filesystem::path& path() const { return m_path; }
  /// "<path><temporarySuffix>".
  const std::filesystem::path& temporaryPath() const { return m_temporary; }
  /// True after a successful commit().
  bool committed() const { return m_committed; }
  /// True while bytes can be written: created, not yet committed or abandoned.
  bool writable() const { return m_fd >= 0; }

private:
  /// Throws StorageError unless the file is open for writing.
  void checkWritable() const;
  /// Abandons and throws with strerror(error).
  [[noreturn]] void failErrno(std::string_view what, int error);

  std::filesystem::path m_path;
  std::filesystem::path m_temporary;
  AtomicFileOptions m_options;
  int m_fd = -1;
  bool m_committed = false;
  bool m_abandoned = false;
};

/// fsyncs a directory, making the creations, renames and deletions of entries in it durable (what AtomicFile::commit
/// does for its file's directory, for callers that rename folders: checkpoint publishing). Throws StorageError
/// naming the directory and `what` it is when it cannot be opened or synced.
void syncDirectory(const std::filesystem::path& directory, std::string_view what = "directory");

}  // namespace fathom
