// SPDX-License-Identifier: Apache-2.0
// A worker group like runWorkerGroup's (worker_group.h), started without waiting and in a process group of its own,
// so a crash test can SIGKILL the whole job at a moment of its choosing, as a lost node or `kill -9` of a launcher
// and its workers would.
#pragma once

#include "worker_group.h"

#include <QProcess>

#include <csignal>
#include <sys/types.h>
#include <unistd.h>

#include <memory>
#include <vector>

namespace fathom::test {

class KillableJob {
public:
  /// Starts ranks 0..world-1 of a `world`-rank group as `--worker RANK WORLD PORT TIMEOUT_MS` (the environment as the
  /// caller set it), hosting their rendezvous store. Every worker joins the process group of rank 0.
  KillableJob(int world, int timeoutMs) {
    c10d::TCPStoreOptions opts;
    opts.port = 0;  // the kernel picks a free port
    opts.isServer = true;
    opts.waitWorkers = false;
    opts.timeout = std::chrono::milliseconds(timeoutMs);
    m_store = std::make_unique<c10d::TCPStore>("127.0.0.1", opts);
    for (int rank = 0; rank < world; ++rank) {
      auto p = std::make_unique<QProcess>();
      const pid_t group = m_group;
      // Runs in the child between fork and exec: rank 0 leads a new group, the others join it. Rank 0 has started
      // (its setpgid done) before the next is forked, so the group exists when they join.
      p->setChildProcessModifier([group] { ::setpgid(0, group); });
      p->start(QCoreApplication::applicationFilePath(),
               {QStringLiteral("--worker"), QString::number(rank), QString::number(world),
                QString::number(m_store->getPort()), QString::number(timeoutMs)});
      p->waitForStarted();
      if (rank == 0)
        m_group = static_cast<pid_t>(p->processId());
      m_procs.push_back(std::move(p));
    }
  }
  KillableJob(const KillableJob&) = delete;
  KillableJob& operator=(const KillableJob&) = delete;
  ~KillableJob() { kill(); }

  /// SIGKILL to the whole process group at once (every worker and anything they started), then reaps them.
  void kill() {
    if (m_group > 0)
      ::kill(-m_group, SIGKILL);
    for (const auto& p : m_procs) {
      if (p->state() != QProcess::NotRunning)
        p->waitForFinished(10'000);
    }
    m_group = 0;
  }
  /// True while every worker runs (one that ended, for whatever reason, ends what the test waits for).
  bool running() const {
    for (const auto& p : m_procs) {
      // A zero wait reaps an ended worker without an event loop, which the caller may not run.
      if (p->state() == QProcess::NotRunning || p->waitForFinished(0))
        return false;
    }
    return true;
  }
  /// Waits up to `ms` for every worker; their results, as runWorkerGroup's (-1: crashed or still running).
  QList<WorkerResult> wait(int ms) {
    QList<WorkerResult> results;
    for (const auto& p : m_procs) {
      const bool finished = p->state() == QProcess::NotRunning || p->waitForFinished(ms);
      results << WorkerResult{finished && p->exitStatus() == QProcess::NormalExit ? p->exitCode() : -1,
                              QString::fromUtf8(p->readAllStandardOutput()),
                              QString::fromUtf8(p->readAllStandardError())};
    }
    return results;
  }

private:
  std::unique_ptr<c10d::TCPStore> m_store;
  std::vector<std::unique_ptr<QProcess>> m_procs;
  pid_t m_group = 0;
};

}  // namespace fathom::test
