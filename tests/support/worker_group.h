// SPDX-License-Identifier: Apache-2.0
// Multi-process c10d tests: the test plays the launcher. It hosts the rendezvous TCPStore on 127.0.0.1 (port
// chosen by the kernel) and starts copies of its own executable as `--worker RANK WORLD PORT TIMEOUT_MS`; each
// worker joins the group with joinWorkerGroup.
#pragma once

#include <fathom/runtime/process_group.h>
#include <fathom/runtime/process_state.h>

#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <QCoreApplication>
#include <QList>
#include <QProcess>
#include <QString>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace fathom::test {

struct WorkerResult {
  int exitCode = -1;  ///< -1 when the worker crashed or had to be killed
  QString out;
  QString err;
};

/// Runs the ranks in `ranks` of a `world`-rank group (a rank left out simulates a missing worker) and returns
/// their results in the order of `ranks`. Each worker gets `timeoutMs + 30 s` before it is killed.
inline QList<WorkerResult> runWorkerGroup(int world, const QList<int>& ranks, int timeoutMs) {
  c10d::TCPStoreOptions opts;
  opts.port = 0;  // the kernel picks a free port; getPort() tells which
  opts.isServer = true;
  opts.waitWorkers = false;
  opts.timeout = std::chrono::milliseconds(timeoutMs);
  c10d::TCPStore store("127.0.0.1", opts);
  const int port = store.getPort();

  QList<std::shared_ptr<QProcess>> procs;
  for (int rank : ranks) {
    auto p = std::make_shared<QProcess>();
    p->start(QCoreApplication::applicationFilePath(),
             {QStringLiteral("--worker"), QString::number(rank), QString::number(world), QString::number(port),
              QString::number(timeoutMs)});
    procs << p;
  }
  QList<WorkerResult> results;
  for (const auto& p : procs) {
    const bool finished = p->waitForFinished(timeoutMs + 30'000);
    if (!finished) {
      p->kill();
      p->waitForFinished();
    }
    results << WorkerResult{finished && p->exitStatus() == QProcess::NormalExit ? p->exitCode() : -1,
                            QString::fromUtf8(p->readAllStandardOutput()),
                            QString::fromUtf8(p->readAllStandardError())};
  }
  return results;
}

/// One phase of a scenario test (tst_checkpoint_gloo, tst_checkpoint_reshard): runs ranks 0..world-1 with
/// FATHOM_TEST_SCENARIO = "<phase>:<variant>" and FATHOM_TEST_DIR = `dir` in their environment.
inline QList<WorkerResult> runScenarioPhase(const QString& phase, const QString& variant, int world, const QString& dir,
                                            int timeoutMs = 60'000) {
  qputenv("FATHOM_TEST_SCENARIO", (phase + u':' + variant).toUtf8());
  qputenv("FATHOM_TEST_DIR", dir.toUtf8());
  QList<int> ranks;
  for (int rank = 0; rank < world; ++rank)
    ranks << rank;
  return runWorkerGroup(world, ranks, timeoutMs);
}

/// Empty when every worker exited with 0; otherwise `what`, the first failing rank, its exit code and its output.
inline QString firstFailure(const QList<WorkerResult>& results, const QString& what) {
  for (qsizetype rank = 0; rank < results.size(); ++rank) {
    const WorkerResult& r = results[rank];
    if (r.exitCode != 0) {
      return what + QStringLiteral(", rank ") + QString::number(rank) + QStringLiteral(" exit ") +
             QString::number(r.exitCode) + QStringLiteral(":\n") + r.out + r.err;
    }
  }
  return {};
}

/// The worker's side of runWorkerGroup: joins the Gloo group on 127.0.0.1 through the store the test hosts.
inline std::unique_ptr<runtime::ProcessGroup> joinWorkerGroup(int rank, int world, int port, int timeoutMs) {
  return runtime::ProcessGroup::create({.rank = rank,
                                        .worldSize = world,
                                        .masterAddr = "127.0.0.1",
                                        .masterPort = static_cast<std::uint16_t>(port),
                                        .storeRole = runtime::StoreRole::ClientOnly,
                                        .timeout = std::chrono::milliseconds(timeoutMs)});
}

/// The process state a worker of runWorkerGroup has on the CPU: what `fathom launch` would put in its environment
/// (RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, MASTER_ADDR 127.0.0.1, MASTER_PORT), for an Accelerator.
inline runtime::ProcessState workerProcessState(int rank, int world, int port) {
  return runtime::ProcessState::fromVariables(
      [=](const std::string& name) -> std::optional<std::string> {
        if (name == "RANK" || name == "LOCAL_RANK")
          return std::to_string(rank);
        if (name == "WORLD_SIZE" || name == "LOCAL_WORLD_SIZE")
          return std::to_string(world);
        if (name == "MASTER_ADDR")
          return "127.0.0.1";
        if (name == "MASTER_PORT")
          return std::to_string(port);
        return std::nullopt;
      },
      {.cpu = true});
}

}  // namespace fathom::test
