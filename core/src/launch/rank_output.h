// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <deque>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace fathom::launch {

/// Which of a worker's streams a chunk came from.
enum class Stream { Stdout, Stderr };

/// Turns one rank's raw output into lines: each complete line goes to the console as "[rankN]: line" (stdout
/// lines to `stdoutFd`, stderr lines to `stderrFd`), optionally to that stream's log file without the prefix, and
/// into a bounded tail kept for the failure report. A line longer than 64 KiB is cut and emitted in pieces.
/// Not thread-safe; one launcher loop owns it.
class RankOutput {
public:
  struct Options {
    int rank = 0;
    int stdoutFd = 1;                 ///< console for the rank's stdout; -1 = not shown
    int stderrFd = 2;                 ///< console for the rank's stderr; -1 = not shown
    std::filesystem::path stdoutLog;  ///< empty = no log file for stdout
    std::filesystem::path stderrLog;  ///< empty = no log file for stderr
    std::size_t tailLines = 20;       ///< how many recent lines (both streams) tail() keeps
  };

  /// Creates the log files' directories and opens (truncates) the files; throws StorageError naming the path.
  explicit RankOutput(Options options);
  ~RankOutput();
  RankOutput(const RankOutput&) = delete;
  RankOutput& operator=(const RankOutput&) = delete;

  /// Feeds bytes read from the rank's `stream`.
  void append(Stream stream, std::string_view bytes);
  /// Emits a last line that had no newline (call at end of stream).
  void finish(Stream stream);
  /// The last lines (oldest first), without the "[rankN]: " prefix.
  std::vector<std::string> tail() const { return {m_tail.begin(), m_tail.end()}; }

private:
  void emit(Stream stream, std::string_view line);

  Options m_options;
  std::string m_prefix;
  std::string m_pending[2];
  int m_logFd[2] = {-1, -1};
  std::deque<std::string> m_tail;
};

/// Writes all of `text` to `fd`, retrying short writes and EINTR; gives up silently on other errors (a closed
/// console must not stop the launcher).
void writeAll(int fd, std::string_view text);

}  // namespace fathom::launch
