// SPDX-License-Identifier: Apache-2.0
// A private OpenSSH server for the multi-node launch tests: its own host key, a user key generated for the test
// run, listening on 127.0.0.1 and 127.0.0.2 (two "hosts" on one machine) at a free port, started with `sshd -D -e`
// and stopped by the destructor. configFile() is an ssh client configuration (`ssh -F`, `fathom launch
// --ssh_config`) with these hosts:
//   h1 -> 127.0.0.1, h2 -> 127.0.0.2   the user key, which the server accepts
//   hrefused -> 127.0.0.1              a second key the server does not accept (refused key)
//   hdown -> 127.0.0.3                 no server listens there (unreachable host: connection refused)
// every one with BatchMode yes, the generated known_hosts file and StrictHostKeyChecking yes.
#pragma once

#include "fixture_io.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTest>

#include <cerrno>
#include <cstring>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fathom::test {

using namespace Qt::StringLiterals;

class SshServer {
public:
  SshServer() = default;
  ~SshServer() { stop(); }
  SshServer(const SshServer&) = delete;
  SshServer& operator=(const SshServer&) = delete;

  /// Generates keys and configuration in `dir` and starts sshd; returns an error text, empty on success.
  QString start(const QString& dir) {
    m_dir = dir;
    const QString sshd = QStringLiteral("/usr/sbin/sshd");
    if (!QFile::exists(sshd)) {
      return QStringLiteral("no %1: install the multinode group (installer/install-deps.sh --groups multinode)")
          .arg(sshd);
    }
    for (const QString& key : {u"host_key"_s, u"user_key"_s, u"other_key"_s}) {
      const QString e =
          run(u"ssh-keygen"_s, {u"-q"_s, u"-t"_s, u"ed25519"_s, u"-N"_s, QString(), u"-C"_s, key, u"-f"_s, path(key)});
      if (!e.isEmpty()) {
        return e;
      }
    }
    if (::geteuid() == 0 && !QDir(u"/run/sshd"_s).exists()) {
      // sshd's privilege separation directory (Debian's package creates it only when the service starts).
      ::mkdir("/run/sshd", 0755);
    }
    m_port = freePort();
    if (m_port == 0) {
      return QStringLiteral("no free port on 127.0.0.1 and 127.0.0.2");
    }
    const QByteArray hostKey = readWholeFile(path(u"host_key.pub"_s)).trimmed();
    const QString known =
        QStringLiteral("[127.0.0.1]:%1 %2\n[127.0.0.2]:%1 %2\n").arg(m_port).arg(QString::fromLatin1(hostKey));
    writeWholeFile(path(u"known_hosts"_s), known.toLatin1());
    writeWholeFile(path(u"authorized_keys"_s), readWholeFile(path(u"user_key.pub"_s)));
    writeWholeFile(path(u"sshd_config"_s), QStringLiteral("Port %1\n"
                                                          "ListenAddress 127.0.0.1\n"
                                                          "ListenAddress 127.0.0.2\n"
                                                          "HostKey %2\n"
                                                          "AuthorizedKeysFile %3\n"
                                                          "PubkeyAuthentication yes\n"
                                                          "PasswordAuthentication no\n"
                                                          "KbdInteractiveAuthentication no\n"
                                                          "PermitRootLogin prohibit-password\n"
                                                          "StrictModes no\n"  // the test's temp dir, maybe as root
                                                          "UsePAM no\n"
                                                          "PidFile none\n"
                                                          "MaxStartups 50\n"
                                                          "MaxSessions 50\n")
                                               .arg(m_port)
                                               .arg(path(u"host_key"_s), path(u"authorized_keys"_s))
                                               .toLatin1());
    QString client;
    const auto host = [&](const char* name, const char* address, const QString& key) {
      client += QStringLiteral("Host %1\n  HostName %2\n  IdentityFile %3\n")
                    .arg(QLatin1String(name), QLatin1String(address), key);
    };
    host("h1", "127.0.0.1", path(u"user_key"_s));
    host("h2", "127.0.0.2", path(u"user_key"_s));
    host("hrefused", "127.0.0.1", path(u"other_key"_s));
    host("hdown", "127.0.0.3", path(u"user_key"_s));
    client += QStringLiteral("Host *\n  Port %1\n  IdentitiesOnly yes\n  UserKnownHostsFile %2\n"
                             "  StrictHostKeyChecking yes\n  BatchMode yes\n  LogLevel ERROR\n")
                  .arg(m_port)
                  .arg(path(u"known_hosts"_s));
    writeWholeFile(configFile(), client.toLatin1());

    m_sshd.setStandardOutputFile(path(u"sshd.log"_s));
    m_sshd.setStandardErrorFile(path(u"sshd.log"_s), QIODevice::Append);
    m_sshd.start(sshd, {u"-D"_s, u"-e"_s, u"-f"_s, path(u"sshd_config"_s)});
    if (!m_sshd.waitForStarted()) {
      return QStringLiteral("sshd did not start: %1").arg(m_sshd.errorString());
    }
    // Ready when both addresses accept connections.
    QElapsedTimer timer;
    timer.start();
    while (!(accepts("127.0.0.1") && accepts("127.0.0.2"))) {
      if (m_sshd.state() != QProcess::Running || timer.elapsed() > 10'000) {
        return QStringLiteral("sshd is not listening: %1")
            .arg(QString::fromLocal8Bit(readWholeFile(path(u"sshd.log"_s))));
      }
      QTest::qWait(20);
    }
    return {};
  }

  /// Stops sshd (SIGTERM, then SIGKILL).
  void stop() {
    if (m_sshd.state() != QProcess::NotRunning) {
      m_sshd.terminate();
      if (!m_sshd.waitForFinished(5000)) {
        m_sshd.kill();
        m_sshd.waitForFinished(5000);
      }
    }
  }

  QString configFile() const { return path(u"ssh_config"_s); }
  quint16 port() const { return m_port; }
  /// What sshd logged so far (for failure messages).
  QByteArray log() const { return readWholeFile(path(u"sshd.log"_s)); }

  /// A TCP port free on both 127.0.0.1 and 127.0.0.2 (bound and released; another process could take it later).
  static quint16 freePort() {
    for (int attempt = 0; attempt < 20; ++attempt) {
      const quint16 port = bindFreePort("127.0.0.1");
      if (port != 0 && canBind("127.0.0.2", port)) {
        return port;
      }
    }
    return 0;
  }

private:
  QString path(const QString& name) const { return m_dir + QLatin1Char('/') + name; }

  static QString run(const QString& program, const QStringList& args) {
    QProcess p;
    p.start(program, args);
    if (!p.waitForFinished(30'000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
      return QStringLiteral("%1 failed: %2").arg(program, QString::fromLocal8Bit(p.readAllStandardError()));
    }
    return {};
  }
  static sockaddr_in address(const char* ip, quint16 port) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    ::inet_pton(AF_INET, ip, &a.sin_addr);
    return a;
  }
  static bool canBind(const char* ip, quint16 port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a = address(ip, port);
    const bool ok = fd >= 0 && ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0;
    if (fd >= 0) {
      ::close(fd);
    }
    return ok;
  }
  bool accepts(const char* ip) const {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a = address(ip, m_port);
    const bool ok = fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0;
    if (fd >= 0) {
      ::close(fd);
    }
    return ok;
  }

  QString m_dir;
  quint16 m_port = 0;
  QProcess m_sshd;
};

}  // namespace fathom::test
