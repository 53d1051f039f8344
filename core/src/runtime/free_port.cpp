// SPDX-License-Identifier: Apache-2.0
#include <fathom/runtime/free_port.h>

#include <fathom/common/error.h>

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace fathom::runtime {

std::uint16_t findFreePort(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const int rc = getaddrinfo(host.empty() ? nullptr : host.c_str(), "0", &hints, &found);
  FATHOM_CHECK(rc == 0, CommError, "cannot resolve ", host, " to look for a free port: ", gai_strerror(rc));
  std::string lastError = "no address";
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    const int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      lastError = std::strerror(errno);
      continue;
    }
    sockaddr_storage bound{};
    socklen_t length = sizeof(bound);
    if (bind(fd, a->ai_addr, a->ai_addrlen) == 0 &&
        getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &length) == 0) {
      close(fd);
      freeaddrinfo(found);
      const auto port = bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                                    : reinterpret_cast<sockaddr_in*>(&bound)->sin_port;
      return ntohs(port);
    }
    lastError = std::strerror(errno);
    close(fd);
  }
  freeaddrinfo(found);
  throw CommError(detail::concat("cannot bind a TCP socket on ", host, " to find a free port: ", lastError));
}

}  // namespace fathom::runtime
