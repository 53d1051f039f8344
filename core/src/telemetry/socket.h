// SPDX-License-Identifier: Apache-2.0
// POSIX TCP sockets for the telemetry link (Linux): an owning descriptor and the blocking helpers both ends share.
#pragma once

#include "protocol.h"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace fathom::telemetry::net {

/// Owns one file descriptor (closed on destruction). Movable, not copyable.
class Socket {
public:
  Socket() = default;
  explicit Socket(int fd) : m_fd(fd) {}
  ~Socket() { reset(); }
  Socket(Socket&& other) noexcept : m_fd(std::exchange(other.m_fd, -1)) {}
  Socket& operator=(Socket&& other) noexcept {
    if (this != &other) {
      reset();
      m_fd = std::exchange(other.m_fd, -1);
    }
    return *this;
  }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;

  int fd() const { return m_fd; }
  bool valid() const { return m_fd >= 0; }
  void reset();

private:
  int m_fd = -1;
};

/// A listening socket with a port the kernel picks.
struct Listener {
  Socket socket;
  std::uint16_t port = 0;
};
/// Listens on `address` (an IPv4 address: "127.0.0.1", or "0.0.0.0" for every address). ConfigError for an address
/// that is not one, CommError when it cannot be bound.
Listener listenOn(const std::string& address);

/// Where a sender connects: an IPv4 address and port, or a Unix socket (the collector's port forwarded by ssh -R to
/// another host).
struct Endpoint {
  std::string host;
  std::uint16_t port = 0;
  std::string unixPath;  ///< non-empty: a Unix socket; host and port unused

  /// "ADDRESS:PORT" or "unix:PATH", as parseEndpoint() reads it.
  std::string text() const;
};

/// Connects to `endpoint`, waiting at most `timeout`. CommError naming the endpoint on failure; ConfigError for a host
/// that is not an IPv4 address or a socket path too long for sockaddr_un.
Socket connectTo(const Endpoint& endpoint, std::chrono::milliseconds timeout);

/// "ADDRESS:PORT" (an IPv4 address) or "unix:/ABSOLUTE/PATH" -> Endpoint; ConfigError naming the text when it is
/// neither.
Endpoint parseEndpoint(std::string_view text);

/// Sets SO_RCVTIMEO (zero: none).
void setReceiveTimeout(int fd, std::chrono::milliseconds timeout);
void setNonBlocking(int fd, bool on);
/// TCP_NODELAY, so small frames (acks, the hello) are not held back by Nagle's algorithm.
void setNoDelay(int fd);

/// Bytes one direction of a connection may hold in the kernel (SO_RCVBUF at the collector, SO_SNDBUF at the
/// sender). Bounded, so what is in flight stays small next to the queues: backpressure reaches the trainer quickly
/// and a killed launcher loses little that was sent but not committed.
constexpr int kSocketBufferBytes = 256 << 10;
/// Sets `option` (SO_RCVBUF or SO_SNDBUF) to kSocketBufferBytes.
void setBufferSize(int fd, int option);

/// Reads exactly n bytes. False at a clean end of stream before the first byte; CommError on a read error, a
/// timeout, or an end of stream in the middle.
bool readExact(int fd, char* data, std::size_t n, const char* what);
/// Writes every byte (blocking; MSG_NOSIGNAL). CommError on failure.
void writeAll(int fd, std::string_view data, const char* what);

/// Reads one frame into `buffer` (its type byte and body). Nothing at a clean end of stream; CommError for a frame
/// over protocol::kMaxFrameBytes, an empty frame, or a broken stream.
std::optional<protocol::Frame> readFrame(int fd, std::string& buffer);

/// The peer's "address:port", for messages.
std::string peerName(int fd);

}  // namespace fathom::telemetry::net
