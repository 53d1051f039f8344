// SPDX-License-Identifier: Apache-2.0
// Plain-socket clients of a TelemetryCollector for the tests that attack it (tst_telemetry_limits,
// tst_telemetry_attack), and what the test process holds (/proc/self: descriptors, threads, memory).
#pragma once

#include <telemetry/protocol.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

namespace fathom::test {

/// Entries in a /proc folder: open descriptors (/proc/self/fd) or threads (/proc/self/task) of this process.
inline std::size_t countEntries(const char* folder) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(folder)) {
    ++n;
  }
  return n;
}
inline std::size_t openDescriptors() {
  return countEntries("/proc/self/fd");
}
inline std::size_t threadCount() {
  return countEntries("/proc/self/task");
}

/// A field of /proc/self/status in KiB ("VmSize", "VmRSS").
inline std::int64_t statusKiB(const std::string& field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field + ":", 0) == 0) {
      return std::stoll(line.substr(field.size() + 1));
    }
  }
  return -1;
}

/// A blocking TCP connection to 127.0.0.1:port; -1 when connect fails.
inline int connectRaw(std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    if (fd >= 0) {
      ::close(fd);
    }
    return -1;
  }
  return fd;
}

inline bool sendRaw(int fd, const std::string& bytes) {
  return ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(bytes.size());
}

/// A hello frame with `token`.
inline std::string helloFrame(const std::string& token, int rank = 0) {
  std::string out;
  telemetry::protocol::FrameWriter(out).hello({telemetry::protocol::kVersion, rank, ::getpid(), token, "attacker"});
  return out;
}

/// A frame header announcing `length` bytes (type byte and body) and the type byte.
inline std::string frameHeader(std::uint32_t length, telemetry::protocol::FrameType type) {
  std::string out(4, '\0');
  std::memcpy(out.data(), &length, 4);
  out += static_cast<char>(type);
  return out;
}

/// What the collector answered on `fd` and whether it closed the connection, reading until it closes or
/// `timeout` passes (or, with `firstFrame`, until a whole first frame arrived).
struct Answer {
  std::string bytes;
  bool closed = false;
  /// The answer's first frame is of this type.
  bool is(telemetry::protocol::FrameType type) const {
    return bytes.size() > 4 && static_cast<std::uint8_t>(bytes[4]) == static_cast<std::uint8_t>(type);
  }
};
inline Answer readAnswer(int fd, std::chrono::milliseconds timeout, bool firstFrame = false) {
  Answer answer;
  const auto end = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (firstFrame && answer.bytes.size() >= 4) {
      std::uint32_t length = 0;
      std::memcpy(&length, answer.bytes.data(), 4);
      if (answer.bytes.size() >= 4 + std::size_t{length}) {
        return answer;
      }
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now());
    pollfd p{fd, POLLIN, 0};
    if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0) {
      return answer;
    }
    char buffer[4096];
    const ssize_t n = ::recv(fd, buffer, sizeof(buffer), MSG_DONTWAIT);
    if (n > 0) {
      answer.bytes.append(buffer, static_cast<std::size_t>(n));
    } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
      answer.closed = true;
      return answer;
    }
  }
}

}  // namespace fathom::test
