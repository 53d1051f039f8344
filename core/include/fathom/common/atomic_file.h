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
  /// Write into an unnamed file (O_TMPFILE) that gets the temporary name only in commit(), just before the rename:
  /// a writer killed while writing (SIGKILL, a power loss) leaves no file behind. Where the file system has no
  /// O_TMPFILE the named temporary is used from the start.
  bool unnamedWhileWriting = false;
  /// Whether commit() may replace a file already at the final path. False: commit() publishes only where nothing is
  /// (renameat2 RENAME_NOREPLACE, or link + unlink where the file system lacks it) and otherwise fails with "it
  /// exists", the temporary removed: for files that must never overwrite another's (two runs' traces).
  bool replaceExisting = true;
};

/// Writes a file so that readers see the old file or the whole new one, never a part: bytes go to a temporary file
/// next to it, and commit() flushes them to disk (fsync), renames the temporary over the final path and makes the
/// rename durable (fsync of the directory, best effort). An error, an exception or destroying the object before
/// commit() removes the temporary: a failure leaves nothing under either name, and the previous file as it was.
/// Trace files (trace::TraceFileSink), safetensors files, `--stats_json`, config files and `fathom plan --output`
/// are written through it.
///
/// Errors throw StorageError naming the final path and the reason; a full disk and the file size limit (`ulimit
/// -f`, with SIGXFSZ ignored as Fathom's programs do) say so (writeFailureReason()). Not thread-safe: one writer.
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
  /// fsync, close, rename to path() (never over an existing file without AtomicFileOptions::replaceExisting), fsync
  /// the directory. Throws StorageError (after abandoning) on failure.
  void commit();
  /// Closes and removes the temporary; safe to call at any time, also after a failure or a commit (then a no-op).
  void abandon() noexcept;
  /// Abandons the file and throws StorageError("cannot write <what> <path>: <reason>"): for a writer's own failures
  /// (a compressor's error, say), so they read like the file's.
  [[noreturn]] void fail(std::string_view reason);

  /// Writes `contents` to `path` in one go: construct, write, commit (StorageError on failure, nothing left
  /// behind).
  static void writeWhole(const std::filesystem::path& path, std::string_view contents, AtomicFileOptions options = {});

  /// The final file name.
  const std::filesystem::path& path() const { return m_path; }
  /// "<path><temporarySuffix>" (with unnamedWhileWriting, the name it has only during commit()).
  const std::filesystem::path& temporaryPath() const { return m_temporary; }
  /// True while the bytes are in an unnamed file (unnamedWhileWriting on a file system that has O_TMPFILE).
  bool unnamed() const { return m_unnamed; }
  /// True after a successful commit().
  bool committed() const { return m_committed; }
  /// True while bytes can be written: created, not yet committed or abandoned.
  bool writable() const { return m_fd >= 0; }

private:
  /// Throws StorageError unless the file is open for writing.
  void checkWritable() const;
  /// Links the unnamed file to temporaryPath() (commit(), before the rename).
  void giveTemporaryName();
  /// The rename of commit() without AtomicFileOptions::replaceExisting.
  void publishWithoutReplacing();
  /// Abandons and throws with writeFailureReason(error).
  [[noreturn]] void failErrno(std::string_view what, int error);

  std::filesystem::path m_path;
  std::filesystem::path m_temporary;
  AtomicFileOptions m_options;
  int m_fd = -1;
  bool m_unnamed = false;  ///< the bytes are in an O_TMPFILE file that has no name yet
  bool m_committed = false;
  bool m_abandoned = false;
};

/// The reason a write of `path` failed with `error` (an errno value), for messages: "file size limit (ulimit -f)
/// reached while writing <path>" for EFBIG, "no space left on the device while writing <path>" for ENOSPC/EDQUOT,
/// "<path>'s folder is on a read-only file system" for EROFS, else "<strerror(error)>".
std::string writeFailureReason(int error, const std::filesystem::path& path);

/// fsyncs a directory, making the creations, renames and deletions of entries in it durable (what AtomicFile::commit
/// does for its file's directory, for callers that rename folders: checkpoint publishing). Throws StorageError
/// naming the directory and `what` it is when it cannot be opened or synced.
void syncDirectory(const std::filesystem::path& directory, std::string_view what = "directory");

}  // namespace fathom
