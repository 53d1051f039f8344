// SPDX-License-Identifier: Apache-2.0
// Real multi-process c10d: the test hosts a TCPStore on 127.0.0.1 (free port chosen by the kernel), starts two
// copies of this executable as ranks 0 and 1, and each joins a Gloo group through fathom::runtime::ProcessGroup
// and runs collectives. The worker mode is selected by `--worker RANK WORLD PORT TIMEOUT_MS`.
#include "worker_group.h"

#include <fathom/common/error.h>
#include <fathom/runtime/process_group.h>

#include <torch/torch.h>

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QTest>

#include <iostream>

using namespace Qt::StringLiterals;
using fathom::runtime::ProcessGroup;
using fathom::runtime::ReduceOp;

namespace {

int runWorker(int rank, int world, int port, int timeoutMs) {
  try {
    auto group = ProcessGroup::create({.rank = rank,
                                       .worldSize = world,
                                       .masterAddr = "127.0.0.1",
                                       .masterPort = static_cast<std::uint16_t>(port),
                                       .storeRole = fathom::runtime::StoreRole::ClientOnly,
                                       .timeout = std::chrono::milliseconds(timeoutMs)});
    // Sum: ranks contribute 1..world, every element ends as world*(world+1)/2.
    auto sum = torch::full({1024}, static_cast<float>(rank + 1));
    group->allReduce(sum, ReduceOp::Sum);
    const float expectedSum = world * (world + 1) / 2.0F;
    if (!torch::all(sum == expectedSum).item<bool>()) {
      std::cerr << "rank " << rank << ": sum mismatch, got " << sum[0].item<float>() << '\n';
      return 4;
    }
    auto mx = torch::tensor({static_cast<double>(rank) * 10.0, -static_cast<double>(rank) - 1.0});
    group->allReduce(mx, ReduceOp::Max);
    auto avg = torch::full({3}, static_cast<double>(rank));
    group->allReduce(avg, ReduceOp::Avg);
    auto bcast = torch::arange(5, torch::kInt64) * (rank == world - 1 ? 7 : 0);
    group->broadcast(bcast, world - 1);
    group->barrier();
    std::cout << "rank " << rank << " sum=" << sum[0].item<float>() << " max=" << mx[0].item<double>() << ","
              << mx[1].item<double>() << " avg=" << avg[0].item<double>() << " bcast=" << bcast[4].item<int64_t>()
              << std::endl;
    return 0;
  } catch (const fathom::Error& e) {
    std::cerr << e.what() << std::endl;
    return 3;
  }
}

}  // namespace

class TestGlooAllReduce : public QObject {
  Q_OBJECT

  using Result = fathom::test::WorkerResult;

  static QList<Result> runGroup(int world, const QList<int>& ranks, int timeoutMs) {
    return fathom::test::runWorkerGroup(world, ranks, timeoutMs);
  }

private slots:
  void twoRanksAllReduce() {
    const auto results = runGroup(2, {0, 1}, 60'000);
    QCOMPARE(results.size(), 2);
    for (int rank = 0; rank < 2; ++rank) {
      const Result& r = results[rank];
      QVERIFY2(r.exitCode == 0, qPrintable(u"rank %1 exit %2: %3"_s.arg(rank).arg(r.exitCode).arg(r.err)));
      QCOMPARE(r.out.trimmed(), u"rank %1 sum=3 max=10,-1 avg=0.5 bcast=28"_s.arg(rank));
    }
  }

  void missingRankTimesOutWithAClearError() {
    // World of 2 but only rank 0 starts: the rendezvous must fail within the timeout and say who and where.
    QElapsedTimer timer;
    timer.start();
    const auto results = runGroup(2, {0}, 2'000);
    QCOMPARE(results.size(), 1);
    const Result& r = results[0];
    QCOMPARE(r.exitCode, 3);
    QVERIFY2(r.err.contains(u"rank 0/2 (gloo, store 127.0.0.1:"_s), qPrintable(r.err));
    QVERIFY2(r.err.contains(u"did not complete within 2000 ms"_s), qPrintable(r.err));
    QVERIFY2(timer.elapsed() < 30'000, "the timeout was not honoured");
  }

  void invalidOptionsAreRejectedBeforeConnecting() {
    try {
      ProcessGroup::create({.rank = 2, .worldSize = 2});
      QFAIL("rank 2 of 2 was accepted");
    } catch (const fathom::ConfigError& e) {
      QCOMPARE(QString::fromUtf8(e.what()), u"rank must be in [0, 2), got 2"_s);
    }
    try {
      ProcessGroup::create({.masterPort = 0});
      QFAIL("port 0 was accepted");
    } catch (const fathom::ConfigError& e) {
      QVERIFY(QString::fromUtf8(e.what()).startsWith(u"master port must be set"_s));
    }
  }
};

int main(int argc, char** argv) {
  if (argc == 6 && std::string_view(argv[1]) == "--worker") {
    return runWorker(std::atoi(argv[2]), std::atoi(argv[3]), std::atoi(argv[4]), std::atoi(argv[5]));
  }
  QCoreApplication app(argc, argv);
  TestGlooAllReduce test;
  return QTest::qExec(&test, argc, argv);
}
#include "tst_gloo_allreduce.moc"
