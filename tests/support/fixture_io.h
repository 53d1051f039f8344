// SPDX-License-Identifier: Apache-2.0
// Small file and port helpers of the test fixtures that start real servers (ssh_server.h, slurm_cluster.h).
#pragma once

#include <QByteArray>
#include <QFile>
#include <QString>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace fathom::test {

/// The whole file; empty when it cannot be read.
inline QByteArray readWholeFile(const QString& name) {
  QFile f(name);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

/// Replaces the file's contents (nothing happens when it cannot be opened: the fixture's start then fails visibly).
inline void writeWholeFile(const QString& name, const QByteArray& data) {
  QFile f(name);
  if (f.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
    f.write(data);
  }
}

/// A TCP port the kernel picks as free on `ip`, bound and released (another process could take it later); 0 when
/// none could be bound.
inline quint16 bindFreePort(const char* ip) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  ::inet_pton(AF_INET, ip, &a.sin_addr);
  socklen_t length = sizeof(a);
  quint16 port = 0;
  if (fd >= 0 && ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &length) == 0) {
    port = ntohs(a.sin_port);
  }
  if (fd >= 0) {
    ::close(fd);
  }
  return port;
}

}  // namespace fathom::test
