// SPDX-License-Identifier: Apache-2.0
// fathom::parallel::CommRecorder (the bounded, thread-safe record store behind Comm) and Comm's input checks on a
// one-rank Gloo group: capacity and drops, step cutting and per-kind totals, the begin/finish handle, reset,
// concurrent appends, the cost of one append, and errors that name the values.
#include "parallel/pending_call.h"  // white-box: the recorder's begin/finish handle

#include <fathom/common/error.h>
#include <fathom/parallel/comm.h>
#include <fathom/parallel/comm_recorder.h>
#include <fathom/plan/prediction.h>
#include <fathom/runtime/process_group.h>

#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/torch.h>

#include <QTest>

#include <chrono>
#include <thread>

using namespace fathom::parallel;
using fathom::runtime::ReduceOp;
using namespace Qt::StringLiterals;

namespace {

CommRecord record(CommKind kind, std::int64_t bytes, std::int64_t durationNs = 10, std::string label = {}) {
  CommRecord r;
  r.kind = kind;
  r.requested = kind;
  r.bytes = bytes;
  r.elements = bytes / 4;
  r.dtype = c10::ScalarType::Float;
  r.duration = {durationNs};
  r.label = std::move(label);
  return r;
}

template <typename F> QString errorOf(F&& f) {
  try {
    f();
  } catch (const fathom::ConfigError& e) {
    return QString::fromUtf8(e.what());
  }
  return u"(no ConfigError)"_s;
}

}  // namespace

class TestCommRecorder : public QObject {
  Q_OBJECT

private slots:
  void kindNamesAreThePlannersNames() {
    for (CommKind k :
         {CommKind::AllReduce, CommKind::AllGather, CommKind::ReduceScatter, CommKind::Broadcast, CommKind::SendRecv}) {
      const auto planKind = toPlanKind(k);
      QVERIFY(planKind.has_value());
      QCOMPARE(QString::fromUtf8(toString(k)), QString::fromUtf8(fathom::plan::toString(*planKind)));
    }
    QVERIFY(!toPlanKind(CommKind::Barrier).has_value());
    QCOMPARE(QString::fromUtf8(toString(CommKind::Barrier)), u"barrier"_s);
  }

  void capacityBoundsTheRecordsAndCountsDrops() {
    CommRecorder rec({.capacity = 3, .maxSteps = 8});
    for (int i = 0; i < 5; ++i) {
      rec.append(record(CommKind::AllReduce, 100 + i));
    }
    QCOMPARE(rec.size(), std::size_t{3});
    QCOMPARE(rec.droppedRecords(), std::uint64_t{2});
    const auto kept = rec.records();
    QCOMPARE(kept.size(), std::size_t{3});
    // Oldest first, the two oldest dropped; sequence numbers keep counting.
    QCOMPARE(kept[0].bytes, 102);
    QCOMPARE(kept[2].bytes, 104);
    QCOMPARE(kept[0].sequence, std::uint64_t{2});
    QCOMPARE(kept[2].sequence, std::uint64_t{4});
    // Totals are exact even though records were dropped.
    const auto totals = rec.stepTotals(0);
    QVERIFY(totals.has_value());
    QCOMPARE((*totals)[CommKind::AllReduce].count, 5);
    QCOMPARE((*totals)[CommKind::AllReduce].bytes, 100 + 101 + 102 + 103 + 104);
    QCOMPARE((*totals)[CommKind::AllReduce].duration.value, 50);
  }

  void stepsCutTotalsPerKind() {
    CommRecorder rec({.capacity = 16, .maxSteps = 2});
    rec.markStep(0);  // same as the initial step: no-op
    rec.append(record(CommKind::Broadcast, 8));
    rec.markStep(1);
    rec.append(record(CommKind::AllReduce, 400, 5));
    rec.append(record(CommKind::AllReduce, 600, 7));
    rec.append(record(CommKind::AllGather, 64, 3));
    rec.markStep(3);
    rec.append(record(CommKind::Barrier, 0, 2));
    CommRecord emulated = record(CommKind::AllReduce, 96, 4);
    emulated.requested = CommKind::ReduceScatter;
    rec.append(emulated);
    QCOMPARE(rec.currentStep(), 3);

    // maxSteps = 2: step 0's totals were dropped, its record was not.
    QVERIFY(!rec.stepTotals(0).has_value());
    QVERIFY(!rec.stepTotals(2).has_value());
    const auto s1 = rec.stepTotals(1);
    QVERIFY(s1.has_value());
    QCOMPARE((*s1)[CommKind::AllReduce], (KindTotals{.count = 2, .bytes = 1000, .duration = {12}}));
    QCOMPARE((*s1)[CommKind::AllGather], (KindTotals{.count = 1, .bytes = 64, .duration = {3}}));
    QCOMPARE((*s1)[CommKind::Broadcast].count, 0);
    QCOMPARE(s1->total(), (KindTotals{.count = 3, .bytes = 1064, .duration = {15}}));
    const auto all = rec.allStepTotals();
    QCOMPARE(all.size(), std::size_t{2});
    QCOMPARE(all[0].step, 1);
    QCOMPARE(all[1].step, 3);
    QCOMPARE(all[1][CommKind::Barrier].count, 1);
    // An emulated reduce_scatter counts as the all_reduce that ran, and as the reduce_scatter that was asked for.
    QCOMPARE(all[1][CommKind::AllReduce], (KindTotals{.count = 1, .bytes = 96, .duration = {4}}));
    QCOMPARE(all[1][CommKind::ReduceScatter].count, 0);
    QCOMPARE(all[1].requested(CommKind::ReduceScatter), (KindTotals{.count = 1, .bytes = 96, .duration = {4}}));
    QCOMPARE(all[1].requested(CommKind::AllReduce).count, 0);
    QCOMPARE(all[0].requested(CommKind::AllReduce), all[0][CommKind::AllReduce]);

    const auto records = rec.records();
    QCOMPARE(records.size(), std::size_t{6});
    QCOMPARE(records[0].step, 0);
    QCOMPARE(records[1].step, 1);
    QCOMPARE(records[4].step, 3);

    QCOMPARE(errorOf([&] { rec.markStep(2); }), u"markStep(2) would go back: the current step is 3"_s);
  }

  /// loadState of an earlier checkpoint goes back (issue 22: a save that failed on a full disk, then a load; before,
  /// markStep threw "would go back" after the load had been applied halfway). The steps from there are forgotten,
  /// since they run again; the records stay.
  void resumeAtGoesBackOrForward() {
    CommRecorder rec({.capacity = 16, .maxSteps = 8});
    for (std::int64_t step = 1; step <= 4; ++step) {
      rec.markStep(step);
      rec.append(record(CommKind::AllReduce, 100));
    }
    rec.resumeAt(2);
    QCOMPARE(rec.currentStep(), 2);
    QVERIFY(rec.stepTotals(1).has_value());
    QCOMPARE(rec.stepTotals(2)->total().count, 0);
    QVERIFY(!rec.stepTotals(3).has_value() && !rec.stepTotals(4).has_value());
    rec.append(record(CommKind::AllReduce, 100));
    QCOMPARE(rec.stepTotals(2)->total().count, 1);
    rec.markStep(3);  // and on as usual
    rec.resumeAt(6);  // forward: as markStep
    QCOMPARE(rec.currentStep(), 6);
    QCOMPARE(rec.records().size(), std::size_t{5});
    QCOMPARE(errorOf([&] { rec.resumeAt(-1); }), u"resumeAt(-1): steps start at 0"_s);
  }

  void pendingCallRecordsOnFinishOnlyAndUnderItsStartStep() {
    CommRecorder rec;
    PendingCall a = rec.begin(record(CommKind::AllReduce, 40, 0, "ddp.bucket.3"));
    QVERIFY(a.active());
    PendingCall moved = std::move(a);
    QVERIFY(!a.active());
    {
      PendingCall failed = rec.begin(record(CommKind::AllGather, 8));
      // destroyed unfinished: the call threw, nothing is recorded
    }
    rec.markStep(1);  // the overlapped call started in step 0 and finishes in step 1
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    moved.finish();
    moved.finish();  // second finish is a no-op
    QVERIFY(!moved.active());
    const auto records = rec.records();
    QCOMPARE(records.size(), std::size_t{1});
    QCOMPARE(records[0].step, 0);
    QCOMPARE(QString::fromStdString(records[0].label), u"ddp.bucket.3"_s);
    QVERIFY2(records[0].duration.value >= 2'000'000, qPrintable(QString::number(records[0].duration.value)));
    QVERIFY(records[0].start.value >= 0);
    QCOMPARE(records[0].sequence, std::uint64_t{0});
    QCOMPARE((*rec.stepTotals(0))[CommKind::AllReduce].count, 1);
    QCOMPARE(rec.stepTotals(1)->total().count, 0);
  }

  void resetForgetsEverything() {
    CommRecorder rec({.capacity = 2, .maxSteps = 4});
    for (int i = 0; i < 3; ++i) {
      rec.append(record(CommKind::AllReduce, 4));
    }
    rec.markStep(5);
    rec.reset();
    QCOMPARE(rec.size(), std::size_t{0});
    QCOMPARE(rec.droppedRecords(), std::uint64_t{0});
    QCOMPARE(rec.currentStep(), 0);
    QCOMPARE(rec.allStepTotals().size(), std::size_t{1});
    QCOMPARE(rec.allStepTotals()[0].total().count, 0);
    rec.markStep(1);  // steps start over
    rec.append(record(CommKind::AllReduce, 4));
    QCOMPARE(rec.records().size(), std::size_t{1});
  }

  void invalidCapacitiesAreRejected() {
    QCOMPARE(errorOf([] { CommRecorder r({.capacity = 0}); }), u"comm record capacity must be >= 1, got 0"_s);
    QCOMPARE(errorOf([] { CommRecorder r({.capacity = 1, .maxSteps = 0}); }), u"comm maxSteps must be >= 1, got 0"_s);
  }

  void concurrentAppendsAreAllCounted() {
    CommRecorder rec({.capacity = 1000, .maxSteps = 4});
    constexpr int kThreads = 4;
    constexpr int kPerThread = 5000;
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&rec] {
        for (int i = 0; i < kPerThread; ++i) {
          rec.begin(record(CommKind::AllGather, 2)).finish();
        }
      });
    }
    std::thread reader([&rec] {
      for (int i = 0; i < 200; ++i) {
        (void)rec.records();
      }
    });
    for (auto& t : threads) {
      t.join();
    }
    reader.join();
    QCOMPARE(rec.size(), std::size_t{1000});
    QCOMPARE(rec.droppedRecords(), std::uint64_t{kThreads * kPerThread - 1000});
    QCOMPARE((*rec.stepTotals(0))[CommKind::AllGather].count, kThreads * kPerThread);
    QCOMPARE((*rec.stepTotals(0))[CommKind::AllGather].bytes, 2 * kThreads * kPerThread);
  }

  void appendCostsWellUnderAMicrosecond() {
    // What Comm pays per call for recording: begin() (clock, sequence) + finish() (clock, lock, ring, totals),
    // with a short label, into a full ring (the steady state).
    CommRecorder rec({.capacity = 4096, .maxSteps = 64});
    const CommRecord draft = record(CommKind::AllReduce, 4096, 0, "ddp.bucket.3");
    constexpr int kCalls = 200'000;
    double best = 1e9;
    for (int round = 0; round < 3; ++round) {
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < kCalls; ++i) {
        rec.begin(draft).finish();
      }
      const auto ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
      best = std::min(best, ns / kCalls);
    }
    qInfo("recording overhead: %.1f ns per call (begin + finish, best of 3 x %d)", best, kCalls);
#if !defined(__OPTIMIZE__) || defined(__SANITIZE_ADDRESS__)
    // A budget for the shipped (optimized) build: unoptimized or instrumented code takes several times as long
    // (5.9 us under the asan preset), so the number is only reported there.
    QSKIP("the 1 us budget applies to optimized builds without sanitizers");
#endif
    QVERIFY2(best < 1000.0, qPrintable(QString::number(best)));
  }

  void commRejectsBadShapesNamingTheValues() {
    c10d::TCPStoreOptions opts;
    opts.port = 0;
    opts.isServer = true;
    opts.waitWorkers = false;
    opts.timeout = std::chrono::seconds(30);
    c10d::TCPStore store("127.0.0.1", opts);
    auto group = fathom::runtime::ProcessGroup::create({.rank = 0,
                                                        .worldSize = 1,
                                                        .masterAddr = "127.0.0.1",
                                                        .masterPort = static_cast<std::uint16_t>(store.getPort()),
                                                        .storeRole = fathom::runtime::StoreRole::ClientOnly,
                                                        .timeout = std::chrono::seconds(30)});
    Comm comm(*group, {.capacity = 8});
    auto in = torch::ones({3});
    auto out = torch::empty({4});
    QCOMPARE(errorOf([&] { comm.allGatherInto(in, out); }),
             u"all_gather output has 4 elements, expected world size 1 x input 3 = 3"_s);
    auto outD = torch::empty({3}, torch::kDouble);
    QCOMPARE(errorOf([&] { comm.allGatherInto(in, outD); }),
             u"all_gather input dtype Float differs from output dtype Double"_s);
    QCOMPARE(errorOf([&] { comm.reduceScatter(torch::ones({5}), out); }),
             u"reduceScatter input has 5 elements, expected world size 1 x output 4 = 4"_s);
    QCOMPARE(errorOf([&] { comm.allGatherUneven(torch::tensor(1.0)); }),
             u"all_gather of uneven sizes needs a defined tensor with at least one dimension, got 0 dimensions"_s);
    // Failed calls are not recorded; a good one is, with the group's facts.
    QCOMPARE(comm.records().size(), std::size_t{0});
    auto t = torch::ones({2, 3}, torch::kDouble);
    comm.allReduce(t, ReduceOp::Max, "one");
    const auto records = comm.records();
    QCOMPARE(records.size(), std::size_t{1});
    QCOMPARE(records[0].bytes, 48);
    QCOMPARE(records[0].elements, 6);
    QCOMPARE(records[0].dtype, c10::ScalarType::Double);
    QCOMPARE(records[0].groupSize, 1);
    QCOMPARE(records[0].rank, 0);
    QVERIFY(records[0].op == ReduceOp::Max);
  }
};

QTEST_GUILESS_MAIN(TestCommRecorder)
#include "tst_comm_recorder.moc"
