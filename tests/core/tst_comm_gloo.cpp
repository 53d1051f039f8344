// SPDX-License-Identifier: Apache-2.0
// fathom::parallel::Comm over real multi-process Gloo groups of 2 and 3 ranks: the test hosts a TCPStore on
// 127.0.0.1 (port chosen by the kernel) and starts copies of this executable as the ranks
// (`--worker RANK WORLD PORT TIMEOUT_MS`). Each rank runs every collective, checks the results, then checks what
// Comm recorded: kinds, whole-buffer bytes as the planner defines them, elements, dtypes, group size, rank,
// labels, timestamps, per-step totals, and the capacity bound. A rank exits 0 only when everything matched.
#include "parallel/comm_work.h"  // white-box: the handle of the Comm layer's asynchronous collectives
#include "rank_checker.h"
#include "worker_group.h"

#include <fathom/common/error.h>
#include <fathom/parallel/comm.h>

#include <torch/torch.h>
#include <torch/version.h>

#include <QCoreApplication>
#include <QTest>

#include <cstdlib>
#include <iostream>
#include <optional>
#include <sstream>
#include <string_view>

using namespace Qt::StringLiterals;
using fathom::parallel::Comm;
using fathom::parallel::CommKind;
using fathom::parallel::CommRecord;
using fathom::parallel::KindTotals;
using fathom::runtime::ReduceOp;

namespace {

struct Expected {
  CommKind kind;
  CommKind requested;
  std::int64_t bytes;
  std::int64_t elements;
  c10::ScalarType dtype;
  std::string label;
  std::int64_t step;
};

using Checker = fathom::test::RankChecker;

void checkTotals(Checker& c, const Comm& comm, std::int64_t step, CommKind kind, KindTotals expected) {
  const auto totals = comm.stepTotals(step);
  c.check(totals.has_value(), "no totals for step ", step);
  if (!totals) {
    return;
  }
  const KindTotals& got = (*totals)[kind];
  c.check(got.count == expected.count && got.bytes == expected.bytes, "step ", step, " ", toString(kind), ": count ",
          got.count, " bytes ", got.bytes, ", expected count ", expected.count, " bytes ", expected.bytes);
}

/// The asynchronous all-gather and reduce-scatter (FATHOM_TEST_SCENARIO=async): results equal the synchronous
/// calls', records are the same (kind, requested, bytes, elements, op, label, step) and appear only once waited
/// for, in wait order while sequence keeps the issue order, and a reduce-scatter emulated by all_reduce leaves the
/// caller's input free at once.
void asyncChecks(Checker& c, fathom::runtime::ProcessGroup& group, std::string& okSuffix) {
  const int rank = group.rank();
  const std::int64_t w = group.worldSize();
  Comm comm(group);
  comm.markStep(1);

  // All-gather into a contiguous buffer (in place) and into a transposed one (through a temporary).
  auto flat = torch::full({3}, -1.0F).repeat({w});
  const auto mine = torch::full({3}, static_cast<float>(rank + 1));
  auto flatWork = comm.allGatherIntoAsync(mine, flat, "ag.flat");
  c.check(flatWork.valid() && comm.records().empty(), "an all-gather in flight is not recorded yet");
  auto strided = torch::empty({2, w}).t();  // shape (w, 2), not contiguous
  auto stridedWork = comm.allGatherIntoAsync(torch::full({2}, static_cast<float>(10 * rank)), strided, "ag.strided");
  // Waited for in reverse issue order: both were in flight together.
  stridedWork.wait();
  flatWork.wait();
  c.check(!flatWork.valid() && !stridedWork.valid(), "a waited CommWork is empty");
  c.check(torch::equal(flat, (torch::arange(w) + 1).repeat_interleave(3).to(torch::kFloat)), "all_gather into flat");
  c.check(torch::equal(strided, (torch::arange(w) * 10).repeat_interleave(2).view({w, 2}).to(torch::kFloat)),
          "all_gather into a strided output");

  // Reduce-scatter, Sum and Avg, with the input overwritten right after issue where the backend emulates it.
  auto rsIn = torch::arange(w * 4, torch::kFloat) + static_cast<float>(rank);
  auto rsOut = torch::empty({4});
  auto sumWork = comm.reduceScatterAsync(rsIn, rsOut, ReduceOp::Sum, "rs.sum");
  const bool emulated = sumWork.record().kind == CommKind::AllReduce;
  if (emulated) {
    rsIn.fill_(1e6F);  // the all_reduce runs on a copy: the caller's input is free once the call returns
  }
  auto avgIn = torch::full({w * 2}, static_cast<double>(rank), torch::kDouble);
  auto avgOut = torch::empty({2}, torch::kDouble);
  auto avgWork = comm.reduceScatterAsync(avgIn, avgOut, ReduceOp::Avg, "rs.avg");
  avgWork.wait();
  sumWork.wait();
  const auto rsExpected =
      torch::arange(rank * 4, rank * 4 + 4, torch::kFloat) * w + static_cast<float>(w * (w - 1) / 2);
  c.check(torch::equal(rsOut, rsExpected), "async reduce_scatter slice ", rsOut[0].item<float>(), " expected ",
          rsExpected[0].item<float>());
  c.check(torch::allclose(avgOut, torch::full({2}, (w - 1) / 2.0, torch::kDouble)), "async reduce_scatter avg ",
          avgOut[0].item<double>());
  okSuffix = std::string(" async_reduce_scatter_ran=") + (emulated ? "all_reduce" : "reduce_scatter");

  // Invalid sizes are refused before anything is issued or recorded.
  auto tooSmall = torch::empty({w * 3 - 1});
  bool refused = false;
  try {
    (void)comm.allGatherIntoAsync(mine, tooSmall, "bad");
  } catch (const fathom::ConfigError&) {
    refused = true;
  }
  c.check(refused, "all_gather into a too small output was accepted");
  refused = false;
  try {
    auto out = torch::empty({5});
    (void)comm.reduceScatterAsync(rsIn, out, ReduceOp::Sum, "bad");
  } catch (const fathom::ConfigError&) {
    refused = true;
  }
  c.check(refused, "reduce_scatter into a wrong-sized output was accepted");

  // Records: stored in wait order, numbered in issue order, described as the synchronous calls describe them.
  const auto records = comm.records();
  const CommKind rsKind = emulated ? CommKind::AllReduce : CommKind::ReduceScatter;
  struct Want {
    std::string label;
    std::uint64_t sequence;
    CommKind kind, requested;
    std::int64_t bytes, elements;
    std::optional<ReduceOp> op;
  };
  const std::vector<Want> want{
      {"ag.strided", 1, CommKind::AllGather, CommKind::AllGather, 8 * w, 2 * w, std::nullopt},
      {"ag.flat", 0, CommKind::AllGather, CommKind::AllGather, 12 * w, 3 * w, std::nullopt},
      {"rs.avg", 3, rsKind, CommKind::ReduceScatter, 16 * w, 2 * w, ReduceOp::Avg},
      {"rs.sum", 2, rsKind, CommKind::ReduceScatter, 16 * w, 4 * w, ReduceOp::Sum},
  };
  c.check(records.size() == want.size(), records.size(), " async records, expected ", want.size());
  for (std::size_t i = 0; i < std::min(records.size(), want.size()); ++i) {
    const CommRecord& r = records[i];
    const Want& e = want[i];
    c.check(r.label == e.label && r.sequence == e.sequence && r.kind == e.kind && r.requested == e.requested &&
                r.bytes == e.bytes && r.elements == e.elements && r.op == e.op && r.step == 1 && r.groupSize == w &&
                r.rank == rank && r.duration.value >= 0,
            "async record ", i, ": '", r.label, "' sequence ", r.sequence, " ", toString(r.kind), "/",
            toString(r.requested), " bytes ", r.bytes, " elements ", r.elements, "; expected '", e.label, "' sequence ",
            e.sequence, " ", toString(e.kind), "/", toString(e.requested), " bytes ", e.bytes, " elements ",
            e.elements);
  }
  // The later-issued all-gather started after the first and finished (was waited for) before it.
  if (records.size() == want.size()) {
    c.check(records[0].start > records[1].start && records[0].start.value + records[0].duration.value <=
                                                       records[1].start.value + records[1].duration.value,
            "the two all-gathers did not overlap as issued and waited");
  }
  checkTotals(c, comm, 1, CommKind::AllGather, {.count = 2, .bytes = 20 * w});
  const KindTotals rs = comm.stepTotals(1)->requested(CommKind::ReduceScatter);
  c.check(rs.count == 2 && rs.bytes == 32 * w, "async requested reduce_scatter: count ", rs.count, " bytes ", rs.bytes);
}

int runWorker(int rank, int world, int port, int timeoutMs) {
  std::string okSuffix;  // names what ran for reduce_scatter; read after the checks
  return fathom::test::runRankChecks(
      rank,
      [&](Checker& c) {
        auto group = fathom::runtime::ProcessGroup::create({.rank = rank,
                                                            .worldSize = world,
                                                            .masterAddr = "127.0.0.1",
                                                            .masterPort = static_cast<std::uint16_t>(port),
                                                            .storeRole = fathom::runtime::StoreRole::ClientOnly,
                                                            .timeout = std::chrono::milliseconds(timeoutMs)});
        const char* scenario = std::getenv("FATHOM_TEST_SCENARIO");
        if (scenario != nullptr && std::string_view(scenario) == "async") {
          asyncChecks(c, *group, okSuffix);
          return;
        }
        Comm comm(*group, {.capacity = 64, .maxSteps = 8});
        const std::int64_t w = world;

        comm.markStep(1);
        auto sum = torch::full({1024}, static_cast<float>(rank + 1));
        comm.allReduce(sum, ReduceOp::Sum, "grads");
        c.check(torch::all(sum == w * (w + 1) / 2.0F).item<bool>(), "sum ", sum[0].item<float>());
        auto avg = torch::full({3}, static_cast<double>(rank), torch::kDouble);
        comm.allReduce(avg, ReduceOp::Avg);
        c.check(torch::allclose(avg, torch::full({3}, (w - 1) / 2.0, torch::kDouble)), "avg ", avg[0].item<double>());
        auto bcast = torch::arange(5, torch::kInt64) * (rank == world - 1 ? 7 : 0);
        comm.broadcast(bcast, world - 1);
        c.check(bcast[4].item<std::int64_t>() == 28, "broadcast ", bcast[4].item<std::int64_t>());

        comm.markStep(2);
        const auto gathered = comm.allGather(torch::full({4}, static_cast<float>(rank)));
        c.check(static_cast<int>(gathered.size()) == world, "all_gather returned ", gathered.size(), " tensors");
        for (int r = 0; r < static_cast<int>(gathered.size()); ++r) {
          c.check(torch::all(gathered[r] == static_cast<float>(r)).item<bool>(), "all_gather slot ", r);
        }
        auto into = torch::empty({w * 2});
        comm.allGatherInto(torch::full({2}, static_cast<float>(rank * 10)), into);
        c.check(torch::equal(into, torch::arange(w).repeat_interleave(2).to(torch::kFloat) * 10), "all_gather into");
        auto rsIn = torch::arange(w * 6, torch::kFloat) + static_cast<float>(rank);
        auto rsOut = torch::empty({6});
        comm.reduceScatter(rsIn, rsOut, ReduceOp::Sum, "zero.grads");
        const auto rsExpected =
            torch::arange(rank * 6, rank * 6 + 6, torch::kFloat) * w + static_cast<float>(w * (w - 1) / 2);
        c.check(torch::equal(rsOut, rsExpected), "reduce_scatter slice ", rsOut[0].item<float>(), " expected ",
                rsExpected[0].item<float>());
        const auto uneven = comm.allGatherUneven(torch::full({rank + 1, 2}, static_cast<float>(rank)), "metrics");
        for (int r = 0; r < static_cast<int>(uneven.size()); ++r) {
          c.check(uneven[r].size(0) == r + 1 && torch::all(uneven[r] == static_cast<float>(r)).item<bool>(),
                  "uneven slot ", r);
        }
        comm.barrier("end");

        // ---- what was recorded ----
        const auto records = comm.records();
        okSuffix = std::string(" reduce_scatter_ran=") + (records.size() > 5 ? toString(records[5].kind) : "?");
        const CommKind rsKind = records.size() > 5 ? records[5].kind : CommKind::ReduceScatter;
#if TORCH_VERSION_MAJOR < 2
        c.check(rsKind == CommKind::AllReduce, "LibTorch 1.13 Gloo has no reduce_scatter, yet the record says ",
                toString(rsKind));
#else
        c.check(rsKind == CommKind::AllReduce || rsKind == CommKind::ReduceScatter, "reduce_scatter ran as ",
                toString(rsKind));
#endif
        using c10::ScalarType;
        const std::vector<Expected> expected{
            {CommKind::AllReduce, CommKind::AllReduce, 4096, 1024, ScalarType::Float, "grads", 1},
            {CommKind::AllReduce, CommKind::AllReduce, 24, 3, ScalarType::Double, "", 1},
            {CommKind::Broadcast, CommKind::Broadcast, 40, 5, ScalarType::Long, "", 1},
            {CommKind::AllGather, CommKind::AllGather, 16 * w, 4 * w, ScalarType::Float, "", 2},
            {CommKind::AllGather, CommKind::AllGather, 8 * w, 2 * w, ScalarType::Float, "", 2},
            {rsKind, CommKind::ReduceScatter, 24 * w, 6 * w, ScalarType::Float, "zero.grads", 2},
            {CommKind::AllGather, CommKind::AllGather, 8 * w, w, ScalarType::Long, "metrics.sizes", 2},
            {CommKind::AllGather, CommKind::AllGather, 8 * w * w, 2 * w * w, ScalarType::Float, "metrics", 2},
            {CommKind::Barrier, CommKind::Barrier, 0, 0, ScalarType::Undefined, "end", 2},
        };
        c.check(records.size() == expected.size(), records.size(), " records, expected ", expected.size());
        for (std::size_t i = 0; i < std::min(records.size(), expected.size()); ++i) {
          const CommRecord& r = records[i];
          const Expected& e = expected[i];
          c.check(r.kind == e.kind && r.requested == e.requested && r.bytes == e.bytes && r.elements == e.elements &&
                      r.dtype == e.dtype && r.label == e.label && r.step == e.step,
                  "record ", i, ": ", toString(r.kind), "/", toString(r.requested), " bytes ", r.bytes, " elements ",
                  r.elements, " dtype ", c10::toString(r.dtype), " label '", r.label, "' step ", r.step, "; expected ",
                  toString(e.kind), "/", toString(e.requested), " bytes ", e.bytes, " elements ", e.elements, " dtype ",
                  c10::toString(e.dtype), " label '", e.label, "' step ", e.step);
          c.check(r.groupSize == world && r.rank == rank && r.sequence == i, "record ", i, ": group ", r.groupSize,
                  " rank ", r.rank, " sequence ", r.sequence);
          c.check(r.duration.value >= 0 && (i == 0 || r.start >= records[i - 1].start), "record ", i, ": start ",
                  r.start.value, " duration ", r.duration.value);
        }
        c.check(records.size() >= 3 && records[0].op == ReduceOp::Sum && records[1].op == ReduceOp::Avg &&
                    !records[2].op.has_value(),
                "reduce ops not recorded");

        checkTotals(c, comm, 1, CommKind::AllReduce, {.count = 2, .bytes = 4096 + 24});
        checkTotals(c, comm, 1, CommKind::Broadcast, {.count = 1, .bytes = 40});
        checkTotals(c, comm, 1, CommKind::AllGather, {.count = 0, .bytes = 0});
        checkTotals(c, comm, 2, CommKind::AllGather, {.count = 4, .bytes = 16 * w + 8 * w + 8 * w + 8 * w * w});
        checkTotals(c, comm, 2, rsKind, {.count = 1, .bytes = 24 * w});
        checkTotals(c, comm, 2, CommKind::Barrier, {.count = 1, .bytes = 0});
        const KindTotals rsRequested = comm.stepTotals(2)->requested(CommKind::ReduceScatter);
        c.check(rsRequested.count == 1 && rsRequested.bytes == 24 * w, "requested reduce_scatter totals: count ",
                rsRequested.count, " bytes ", rsRequested.bytes);
        c.check(comm.stepTotals(2)->requested(CommKind::AllReduce).count == 0, "step 2 requested no all_reduce");
        c.check(comm.stepTotals(2)->total().count == 6, "step 2 total count ", comm.stepTotals(2)->total().count);

        // ---- the capacity bound, on the same group ----
        Comm small(*group, {.capacity = 3, .maxSteps = 2});
        for (int i = 0; i < 5; ++i) {
          auto t = torch::full({10}, static_cast<float>(i));
          small.allReduce(t, ReduceOp::Sum, "bucket." + std::to_string(i));
        }
        const auto kept = small.records();
        c.check(kept.size() == 3 && small.recorder().droppedRecords() == 2, "capacity 3 kept ", kept.size(),
                " dropped ", small.recorder().droppedRecords());
        c.check(kept.size() == 3 && kept.front().label == "bucket.2" && kept.back().label == "bucket.4",
                "capacity: wrong records kept");
        checkTotals(c, small, 0, CommKind::AllReduce, {.count = 5, .bytes = 200});

        // ---- reduce_scatter with Avg: the division happens after either path ----
        Comm avgComm(*group);
        auto avgOut = torch::empty({2}, torch::kDouble);
        avgComm.reduceScatter(torch::full({w * 2}, static_cast<double>(rank), torch::kDouble), avgOut, ReduceOp::Avg);
        c.check(torch::allclose(avgOut, torch::full({2}, (w - 1) / 2.0, torch::kDouble)), "reduce_scatter avg ",
                avgOut[0].item<double>());
        const auto avgRecords = avgComm.records();
        c.check(avgRecords.size() == 1 && avgRecords[0].op == ReduceOp::Avg && avgRecords[0].bytes == 16 * w &&
                    avgRecords[0].requested == CommKind::ReduceScatter,
                "reduce_scatter avg record");
      },
      okSuffix);
}

}  // namespace

class TestCommGloo : public QObject {
  Q_OBJECT

  using Result = fathom::test::WorkerResult;

  static QList<Result> runGroup(int world, int timeoutMs) {
    QList<int> ranks;
    for (int rank = 0; rank < world; ++rank) {
      ranks << rank;
    }
    return fathom::test::runWorkerGroup(world, ranks, timeoutMs);
  }

  static void checkGroup(int world) {
    const auto results = runGroup(world, 60'000);
    QCOMPARE(results.size(), world);
#if TORCH_VERSION_MAJOR < 2
    const QString ran = u"all_reduce"_s;
#else
    const QString ran = results[0].out.section(u'=', 1).trimmed();
#endif
    for (int rank = 0; rank < world; ++rank) {
      const Result& r = results[rank];
      QVERIFY2(r.exitCode == 0, qPrintable(u"rank %1 exit %2: %3"_s.arg(rank).arg(r.exitCode).arg(r.err)));
      QCOMPARE(r.out.trimmed(), u"rank %1 ok reduce_scatter_ran=%2"_s.arg(rank).arg(ran));
    }
  }

  /// The asynchronous all-gather / reduce-scatter scenario on `world` ranks.
  static void checkAsync(int world) {
    qputenv("FATHOM_TEST_SCENARIO", "async");
    const auto results = runGroup(world, 60'000);
    qunsetenv("FATHOM_TEST_SCENARIO");
    QCOMPARE(results.size(), world);
#if TORCH_VERSION_MAJOR < 2
    const QString ran = u"all_reduce"_s;
#else
    const QString ran = results[0].out.section(u'=', 1).trimmed();
#endif
    for (int rank = 0; rank < world; ++rank) {
      const Result& r = results[rank];
      QVERIFY2(r.exitCode == 0, qPrintable(u"rank %1 exit %2: %3"_s.arg(rank).arg(r.exitCode).arg(r.err)));
      QCOMPARE(r.out.trimmed(), u"rank %1 ok async_reduce_scatter_ran=%2"_s.arg(rank).arg(ran));
    }
  }

private slots:
  void twoRanks() {
    checkGroup(2);
  }
  void threeRanks() {
    checkGroup(3);
  }
  void asyncTwoRanks() {
    checkAsync(2);
  }
  void asyncThreeRanks() {
    checkAsync(3);
  }
};

int main(int argc, char** argv) {
  if (argc == 6 && std::string_view(argv[1]) == "--worker") {
    return runWorker(std::atoi(argv[2]), std::atoi(argv[3]), std::atoi(argv[4]), std::atoi(argv[5]));
  }
  QCoreApplication app(argc, argv);
  TestCommGloo test;
  return QTest::qExec(&test, argc, argv);
}
#include "tst_comm_gloo.moc"
