// SPDX-License-Identifier: Apache-2.0
#include "rank_output.h"

#include <fathom/common/error.h>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace fathom::launch {
namespace {

constexpr std::size_t kMaxLine = 64 * 1024;

int openLog(const std::filesystem::path& path) {
  if (path.empty()) {
    return -1;
  }
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  FATHOM_CHECK(!ec, StorageError, "cannot create the log directory ", path.parent_path().string(), ": ", ec.message());
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  FATHOM_CHECK(fd >= 0, StorageError, "cannot open the log file ", path.string(), ": ", std::strerror(errno));
  return fd;
}

}  // namespace

void writeAll(int fd, std::string_view text) {
  while (fd >= 0 && !text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      return;
    }
    text.remove_prefix(static_cast<std::size_t>(n));
  }
}

RankOutput::RankOutput(Options options) : m_options(std::move(options)) {
  m_prefix = "[rank" + std::to_string(m_options.rank) + "]: ";
  m_logFd[0] = openLog(m_options.stdoutLog);
  try {
    m_logFd[1] = openLog(m_options.stderrLog);
  } catch (...) {
    ::close(m_logFd[0]);
    throw;
  }
}

RankOutput::~RankOutput() {
  for (int fd : m_logFd) {
    if (fd >= 0) {
      ::close(fd);
    }
  }
}

void RankOutput::append(Stream stream, std::string_view bytes) {
  std::string& pending = m_pending[static_cast<int>(stream)];
  while (!bytes.empty()) {
    const auto newline = bytes.find('\n');
    if (newline == std::string_view::npos) {
      pending.append(bytes);
      if (pending.size() >= kMaxLine) {
        emit(stream, pending);
        pending.clear();
      }
      return;
    }
    if (pending.empty()) {
      emit(stream, bytes.substr(0, newline));
    } else {
      pending.append(bytes.substr(0, newline));
      emit(stream, pending);
      pending.clear();
    }
    bytes.remove_prefix(newline + 1);
  }
}

void RankOutput::finish(Stream stream) {
  std::string& pending = m_pending[static_cast<int>(stream)];
  if (!pending.empty()) {
    emit(stream, pending);
    pending.clear();
  }
}

void RankOutput::emit(Stream stream, std::string_view line) {
  if (!line.empty() && line.back() == '\r') {
    line.remove_suffix(1);
  }
  const int console = stream == Stream::Stdout ? m_options.stdoutFd : m_options.stderrFd;
  if (console >= 0) {
    std::string text;
    text.reserve(m_prefix.size() + line.size() + 1);
    text.append(m_prefix).append(line).push_back('\n');
    writeAll(console, text);
  }
  if (const int log = m_logFd[static_cast<int>(stream)]; log >= 0) {
    std::string text(line);
    text.push_back('\n');
    writeAll(log, text);
  }
  if (m_options.tailLines > 0) {
    m_tail.emplace_back(line);
    while (m_tail.size() > m_options.tailLines) {
      m_tail.pop_front();
    }
  }
}

}  // namespace fathom::launch
