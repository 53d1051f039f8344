// SPDX-License-Identifier: Apache-2.0
// Process hygiene checks for launcher tests: workers record their own pid and their children's pids in files,
// and the test checks afterwards, by pid, that none of them still runs.
#pragma once

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QList>
#include <QString>
#include <QStringList>
#include <QTest>

#include <cerrno>
#include <csignal>

#include <sys/types.h>

namespace fathom::test {

/// Writes `contents` to `path` as an executable the owner may run (the workers' scripts of these tests). Empty when
/// written, else what failed.
inline QString writeExecutable(const QString& path, const QByteArray& contents) {
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly) || f.write(contents) != contents.size()) {
    return QStringLiteral("cannot write %1: ").arg(path) + f.errorString();
  }
  f.close();
  if (!f.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner)) {
    return QStringLiteral("cannot make %1 executable: ").arg(path) + f.errorString();
  }
  return {};
}

/// Whether `pid` still runs: kill(pid, 0) succeeds and /proc says it is not a zombie (a zombie is dead; it only
/// waits for whoever adopted it to reap it).
inline bool processRunning(pid_t pid) {
  if (pid <= 0 || (::kill(pid, 0) != 0 && errno == ESRCH)) {
    return false;
  }
  QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
  if (!stat.open(QIODevice::ReadOnly)) {
    return false;
  }
  const QByteArray text = stat.readAll();
  const auto close = text.lastIndexOf(')');
  return close < 0 || text.mid(close + 2, 1) != "Z";
}

/// The parent of `pid` (from /proc/PID/stat), or 0 when it cannot be read.
inline pid_t parentPid(pid_t pid) {
  QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
  if (!stat.open(QIODevice::ReadOnly)) {
    return 0;
  }
  // "PID (COMM) STATE PPID ...": COMM may hold spaces and parentheses, so read after the last ')'.
  const QByteArray text = stat.readAll();
  const QList<QByteArray> fields = text.mid(text.lastIndexOf(')') + 2).split(' ');
  return fields.size() > 1 ? static_cast<pid_t>(fields[1].toLongLong()) : 0;
}

/// The pids written (one per file, as `echo $$ > pid.0` does) into the files of `dir` matching `pattern`.
inline QList<pid_t> pidsInFiles(const QString& dir, const QString& pattern) {
  QList<pid_t> pids;
  for (const QString& name : QDir(dir).entryList({pattern}, QDir::Files)) {
    QFile f(dir + QLatin1Char('/') + name);
    if (f.open(QIODevice::ReadOnly)) {
      pids << static_cast<pid_t>(f.readAll().trimmed().toLongLong());
    }
  }
  return pids;
}

/// Waits up to `timeoutMs` for `count` files matching `pattern` in `dir`; false when they did not all appear.
inline bool waitForFileCount(const QString& dir, const QString& pattern, int count, int timeoutMs = 20'000) {
  QElapsedTimer timer;
  timer.start();
  while (QDir(dir).entryList({pattern}, QDir::Files).size() < count) {
    if (timer.elapsed() > timeoutMs) {
      return false;
    }
    QTest::qWait(20);  // runs the event loop: a QProcess started by the test keeps reading its output
  }
  return true;
}

/// The pids of `pids` still running after up to `timeoutMs` (space-separated; empty when none is left).
inline QString survivingProcesses(const QList<pid_t>& pids, int timeoutMs = 10'000) {
  QElapsedTimer timer;
  timer.start();
  for (;;) {
    QString alive;
    for (pid_t pid : pids) {
      if (processRunning(pid)) {
        alive += QString::number(pid) + QLatin1Char(' ');
      }
    }
    if (alive.isEmpty() || timer.elapsed() > timeoutMs) {
      return alive;
    }
    QTest::qWait(20);  // runs the event loop: a QProcess started by the test keeps reading its output
  }
}

/// Kills (SIGKILL) whatever of `pids` still runs: a failed test must not leave `sleep 300` behind.
inline void killSurvivors(const QList<pid_t>& pids) {
  for (pid_t pid : pids) {
    if (processRunning(pid)) {
      ::kill(pid, SIGKILL);
    }
  }
}

}  // namespace fathom::test
