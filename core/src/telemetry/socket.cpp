// SPDX-License-Identifier: Apache-2.0
#include "socket.h"

#include <fathom/common/error.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>

namespace fathom::telemetry::net {

void Socket::reset() {
  if (m_fd >= 0) {
    ::close(m_fd);
    m_fd = -1;
  }
}

Listener listenOn(const std::string& address) {
  Socket s(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  FATHOM_CHECK(s.valid(), CommError, "telemetry: cannot create a socket: ", std::strerror(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  FATHOM_CHECK(::inet_pton(AF_INET, address.c_str(), &addr.sin_addr) == 1, ConfigError, "telemetry: cannot listen on '",
               address, "': not an IPv4 address");
  addr.sin_port = 0;
  FATHOM_CHECK(::bind(s.fd(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0, CommError,
               "telemetry: cannot bind ", address, ": ", std::strerror(errno));
  // The kernel's maximum backlog (net.core.somaxconn): a burst of connections waits there for the accept thread
  // instead of having its handshakes dropped and retried a second later.
  FATHOM_CHECK(::listen(s.fd(), SOMAXCONN) == 0, CommError, "telemetry: cannot listen on ", address, ": ",
               std::strerror(errno));
  socklen_t len = sizeof(addr);
  FATHOM_CHECK(::getsockname(s.fd(), reinterpret_cast<sockaddr*>(&addr), &len) == 0, CommError,
               "telemetry: getsockname failed: ", std::strerror(errno));
  return {std::move(s), ntohs(addr.sin_port)};
}

std::string Endpoint::text() const {
  return unixPath.empty() ? host + ":" + std::to_string(port) : "unix:" + unixPath;
}

Socket connectTo(const Endpoint& endpoint, std::chrono::milliseconds timeout) {
  const std::string where = endpoint.text();
  sockaddr_storage storage{};
  socklen_t length = 0;
  if (!endpoint.unixPath.empty()) {
    auto* addr = reinterpret_cast<sockaddr_un*>(&storage);
    addr->sun_family = AF_UNIX;
    FATHOM_CHECK(endpoint.unixPath.size() < sizeof(addr->sun_path), ConfigError, "telemetry endpoint ", where,
                 ": the socket path is longer than ", sizeof(addr->sun_path) - 1, " bytes");
    std::memcpy(addr->sun_path, endpoint.unixPath.c_str(), endpoint.unixPath.size() + 1);
    length = static_cast<socklen_t>(sizeof(sockaddr_un));
  } else {
    auto* addr = reinterpret_cast<sockaddr_in*>(&storage);
    addr->sin_family = AF_INET;
    addr->sin_port = htons(endpoint.port);
    FATHOM_CHECK(::inet_pton(AF_INET, endpoint.host.c_str(), &addr->sin_addr) == 1, ConfigError, "telemetry endpoint ",
                 where, ": '", endpoint.host, "' is not an IPv4 address");
    length = static_cast<socklen_t>(sizeof(sockaddr_in));
  }
  Socket s(::socket(storage.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  FATHOM_CHECK(s.valid(), CommError, "telemetry: cannot create a socket: ", std::strerror(errno));
  if (::connect(s.fd(), reinterpret_cast<sockaddr*>(&storage), length) != 0) {
    // A Unix socket connects at once or fails (EAGAIN: its backlog is full; retried by the sender like a refusal).
    FATHOM_CHECK(errno == EINPROGRESS, CommError, "telemetry: cannot connect to the collector at ", where, ": ",
                 std::strerror(errno));
    pollfd p{s.fd(), POLLOUT, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(timeout.count()));
    FATHOM_CHECK(ready == 1, CommError, "telemetry: no answer from the collector at ", where, " within ",
                 timeout.count(), " ms");
    int error = 0;
    socklen_t len = sizeof(error);
    ::getsockopt(s.fd(), SOL_SOCKET, SO_ERROR, &error, &len);
    FATHOM_CHECK(error == 0, CommError, "telemetry: cannot connect to the collector at ", where, ": ",
                 std::strerror(error));
  }
  setNonBlocking(s.fd(), false);
  if (endpoint.unixPath.empty()) {
    setNoDelay(s.fd());
  }
  return s;
}

Endpoint parseEndpoint(std::string_view text) {
  constexpr std::string_view kUnix = "unix:";
  if (text.substr(0, kUnix.size()) == kUnix) {
    const std::string_view path = text.substr(kUnix.size());
    FATHOM_CHECK(path.size() > 1 && path.front() == '/' && path.find('\0') == std::string_view::npos, ConfigError,
                 protocol::kEndpointVariable, "='", text, "' is not unix:/ABSOLUTE/PATH");
    Endpoint e;
    e.unixPath = std::string(path);
    return e;
  }
  const auto colon = text.rfind(':');
  unsigned port = 0;
  const char* end = text.data() + text.size();
  const bool ok = colon != std::string_view::npos && colon > 0 &&
                  std::from_chars(text.data() + colon + 1, end, port).ptr == end && colon + 1 < text.size() &&
                  port > 0 && port <= 65535;
  FATHOM_CHECK(ok, ConfigError, protocol::kEndpointVariable, "='", text,
               "' is not HOST:PORT or unix:PATH (the launcher sets it to 127.0.0.1:<port>)");
  Endpoint e;
  e.host = std::string(text.substr(0, colon));
  e.port = static_cast<std::uint16_t>(port);
  return e;
}

void setReceiveTimeout(int fd, std::chrono::milliseconds timeout) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(timeout.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((timeout.count() % 1000) * 1000);
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

void setNonBlocking(int fd, bool on) {
  const int flags = ::fcntl(fd, F_GETFL, 0);
  ::fcntl(fd, F_SETFL, on ? (flags | O_NONBLOCK) : (flags & ~O_NONBLOCK));
}

void setNoDelay(int fd) {
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

void setBufferSize(int fd, int option) {
  int bytes = kSocketBufferBytes;
  ::setsockopt(fd, SOL_SOCKET, option, &bytes, sizeof(bytes));
}

bool readExact(int fd, char* data, std::size_t n, const char* what) {
  std::size_t done = 0;
  while (done < n) {
    const ssize_t got = ::recv(fd, data + done, n - done, 0);
    if (got > 0) {
      done += static_cast<std::size_t>(got);
      continue;
    }
    if (got == 0) {
      FATHOM_CHECK(done == 0, CommError, "telemetry: the connection closed in the middle of ", what);
      return false;
    }
    if (errno == EINTR) {
      continue;
    }
    FATHOM_CHECK(errno != EAGAIN && errno != EWOULDBLOCK, CommError, "telemetry: timed out reading ", what);
    throw CommError(detail::concat("telemetry: cannot read ", what, ": ", std::strerror(errno)));
  }
  return true;
}

void writeAll(int fd, std::string_view data, const char* what) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t sent = ::send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL);
    if (sent > 0) {
      done += static_cast<std::size_t>(sent);
    } else if (sent < 0 && errno == EINTR) {
      continue;
    } else {
      throw CommError(detail::concat("telemetry: cannot send ", what, ": ", std::strerror(errno)));
    }
  }
}

std::optional<protocol::Frame> readFrame(int fd, std::string& buffer) {
  std::uint32_t length = 0;
  if (!readExact(fd, reinterpret_cast<char*>(&length), sizeof(length), "a frame header")) {
    return std::nullopt;
  }
  FATHOM_CHECK(length >= 1 && length <= protocol::kMaxFrameBytes, CommError, "telemetry: a frame of ", length,
               " bytes (frames hold 1 to ", protocol::kMaxFrameBytes, " bytes); not the Fathom telemetry protocol?");
  // The buffer grows with the bytes that arrive (doubling from 64 KiB), never to the announced length up front: a
  // peer that announces 16 MiB and sends 10 bytes holds 64 KiB, not 16 MiB.
  constexpr std::size_t kFirstChunk = 64 << 10;
  buffer.clear();
  while (buffer.size() < length) {
    const std::size_t done = buffer.size();
    const std::size_t chunk = std::min<std::size_t>(length - done, std::max(kFirstChunk, done));
    buffer.resize(done + chunk);
    if (!readExact(fd, buffer.data() + done, chunk, "a frame")) {
      throw CommError("telemetry: the connection closed in the middle of a frame");
    }
  }
  return protocol::Frame{static_cast<protocol::FrameType>(static_cast<std::uint8_t>(buffer[0])),
                         std::string_view(buffer).substr(1)};
}

std::string peerName(int fd) {
  sockaddr_in addr{};
  socklen_t len = sizeof(addr);
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    return "an unknown peer";
  }
  char text[INET_ADDRSTRLEN] = {};
  ::inet_ntop(AF_INET, &addr.sin_addr, text, sizeof(text));
  return std::string(text) + ":" + std::to_string(ntohs(addr.sin_port));
}

}  // namespace fathom::telemetry::net
