// SPDX-License-Identifier: Apache-2.0
// summarizeTrace on hand-built traces whose breakdowns were worked out by hand (the comments show the unions):
// the CPU timeline (Fathom's spans, ATen ops), the GPU timeline (kernels assigned to steps by their launch), self
// times, collectives, Fathom's spans and memory peaks.
#include "error_helpers.h"
#include "trace_fixtures.h"

#include <fathom/trace/trace_summary.h>

#include <QTemporaryDir>
#include <QTest>

#include <filesystem>

using namespace fathom::trace;
namespace fs = std::filesystem;
using fathom::test::contains;
using fathom::test::cpuOp;
using fathom::test::gpuActivity;
using fathom::test::kernelLaunch;
using fathom::test::legacyEvent;
using fathom::test::objectTrace;
using fathom::test::span;

namespace {

constexpr std::int64_t us = 1000;  // the fixtures think in microseconds, the summary counts nanoseconds

/// Two steps of a CPU-only DDP rank: main thread 1, Fathom's collective row 99, a helper thread 5.
std::vector<std::string> cpuEvents(bool steps, bool trainingSpans) {
  std::vector<std::string> e = {
      span("fathom::data_loader", 1, 0, 10),
      cpuOp("aten::mm", 1, 10, 30),
      cpuOp("aten::add", 1, 15, 20),
      cpuOp("aten::relu", 1, 30, 40),
      cpuOp("aten::mm_backward", 1, 40, 80),
      cpuOp("aten::add_", 1, 85, 95),
      span("fathom::data_loader", 1, 100, 120),
      cpuOp("aten::mm", 1, 120, 170),
      span("fathom::all_reduce", 99, 60, 90, R"({"Collective name":"allreduce","bytes":4096,"dtype":"Float"})"),
      span("fathom::all_reduce", 99, 150, 190, R"({"Collective name":"allreduce","bytes":4096,"dtype":"Float"})"),
      span("fathom::all_gather", 99, 195, 198, R"({"Collective name":"allgather","bytes":100})"),
      cpuOp("aten::copy_", 5, 90, 100),  // not a training thread: not compute
      R"({"ph":"C","cat":"memory","name":"Memory","pid":1,"tid":0,"ts":5.000,"args":{"parameter":100,"gradient":50}})",
      R"({"ph":"C","cat":"memory","name":"Memory","pid":1,"tid":0,"ts":50.000,)"
      R"("args":{"parameters":100,"gradients":80,"activations":30}})",
      R"({"ph":"i","cat":"cpu_instant_event","name":"[memory]","pid":1,"tid":1,"ts":6.000,"s":"t",)"
      R"("args":{"Total Allocated":1000,"Total Reserved":4096,"Bytes":1000}})",
      R"({"ph":"i","cat":"cpu_instant_event","name":"[memory]","pid":1,"tid":1,"ts":7.000,"s":"t",)"
      R"("args":{"Total Allocated":3000,"Total Reserved":4096,"Bytes":2000}})",
  };
  if (trainingSpans) {
    e.push_back(span("fathom::forward", 1, 10, 40));
    e.push_back(span("fathom::backward", 1, 40, 80));
    e.push_back(span("fathom::optimizer_step", 1, 85, 95));
  }
  if (steps) {
    e.push_back(span("ProfilerStep#1", 1, 0, 100));
    e.push_back(span("ProfilerStep#2", 1, 100, 200));
  }
  return e;
}

void compareBreakdown(const TimeBreakdown& t, std::int64_t span, std::int64_t compute, std::int64_t comm,
                      std::int64_t data, std::int64_t idle, std::int64_t overlap) {
  QCOMPARE(t.spanNs, span * us);
  QCOMPARE(t.computeNs, compute * us);
  QCOMPARE(t.communicationNs, comm * us);
  QCOMPARE(t.dataLoadingNs, data * us);
  QCOMPARE(t.idleNs, idle * us);
  QCOMPARE(t.overlapNs, overlap * us);
}

}  // namespace

class TestTraceSummary : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  fs::path write(const std::string& name, const std::vector<std::string>& events) {
    return fathom::test::writeRankTrace(m_dir.path().toStdString(), name, events, 1);
  }

private slots:
  void cpuTimeline() {
    const TraceSummary s = summarizeTrace(write("cpu.json.gz", cpuEvents(true, true)), {.top = 3});
    QCOMPARE(s.timeline, SummaryTimeline::Cpu);
    QCOMPARE(s.rank.value_or(-1), 1);
    QCOMPARE(s.events, std::uint64_t{21});
    QCOMPARE(s.traceSpanNs, 200 * us);
    QCOMPARE(s.steps.size(), std::size_t{2});
    QCOMPARE(s.steps[0].step, std::int64_t{1});
    QCOMPARE(s.steps[1].startNs, 100 * us);
    // Step 1 [0,100]: compute [10,80]+[85,95] = 80, communication [60,90] = 30, data [0,10] = 10,
    // busy [0,95] -> idle 5, overlap [60,80]+[85,90] = 25.
    compareBreakdown(s.steps[0].time, 100, 80, 30, 10, 5, 25);
    QCOMPARE(s.steps[0].time.overlapFraction(), 25.0 / 30.0);
    // Step 2 [100,200]: compute [120,170] = 50, communication [150,190]+[195,198] = 43, data [100,120] = 20,
    // busy [100,190]+[195,198] = 93 -> idle 7, overlap [150,170] = 20.
    compareBreakdown(s.steps[1].time, 100, 50, 43, 20, 7, 20);
    compareBreakdown(s.total, 200, 130, 73, 30, 12, 45);

    // Self time: aten::mm = (20 - 5 for aten::add) + 50; top 3 by self, ties by name.
    QCOMPARE(s.topOps.size(), std::size_t{3});
    QCOMPARE(QString::fromStdString(s.topOps[0].name), QStringLiteral("aten::mm"));
    QCOMPARE(s.topOps[0].count, std::uint64_t{2});
    QCOMPARE(s.topOps[0].totalNs, 70 * us);
    QCOMPARE(s.topOps[0].selfNs, 65 * us);
    QCOMPARE(s.topOps[0].maxNs, 50 * us);
    QCOMPARE(QString::fromStdString(s.topOps[1].name), QStringLiteral("aten::mm_backward"));
    QCOMPARE(QString::fromStdString(s.topOps[2].name), QStringLiteral("aten::add_"));
    QVERIFY(s.topKernels.empty());

    QCOMPARE(s.collectives.size(), std::size_t{2});
    QCOMPARE(QString::fromStdString(s.collectives[0].kind), QStringLiteral("all_reduce"));
    QCOMPARE(s.collectives[0].count, std::uint64_t{2});
    QCOMPARE(s.collectives[0].totalNs, 70 * us);
    QCOMPARE(s.collectives[0].bytes.value_or(-1), std::int64_t{8192});
    QCOMPARE(QString::fromStdString(s.collectives[1].kind), QStringLiteral("all_gather"));
    QCOMPARE(s.collectives[1].bytes.value_or(-1), std::int64_t{100});

    QStringList spans;
    for (const OpStats& x : s.spans) {
      spans << QString::fromStdString(x.name + "=" + std::to_string(x.totalNs / us) + "/" + std::to_string(x.count));
    }
    QCOMPARE(spans, QStringList({"fathom::all_reduce=70/2", "fathom::backward=40/1", "fathom::data_loader=30/2",
                                 "fathom::forward=30/1", "fathom::optimizer_step=10/1", "fathom::all_gather=3/1"}));

    QStringList memory;
    for (const MemoryPeak& m : s.memory) {
      memory << QString::fromStdString(m.category + "=" + std::to_string(m.peakBytes));
    }
    // The first counter is spelled as releases before the one memory vocabulary wrote it ("parameter"): read under
    // the current keys, its peaks merge with the second's.
    QCOMPARE(memory, QStringList({"parameters=100", "gradients=80", "activations=30", "Total Allocated=3000",
                                  "Total Reserved=4096", "total=210"}));
  }

  void cpuWithoutSteps() {
    // No ProfilerStep: one window, the trace span [0,198] (the all_gather ends last); busy 95 + 93 as with steps.
    const TraceSummary s = summarizeTrace(write("nosteps.json", cpuEvents(false, true)));
    QVERIFY(s.steps.empty());
    compareBreakdown(s.total, 198, 130, 73, 30, 10, 45);
    // No training spans either: every thread's ops are compute, aten::copy_ [90,100] included (+5 over [85,95]).
    const TraceSummary all = summarizeTrace(write("nospans.json", cpuEvents(false, false)));
    QCOMPARE(all.total.computeNs, 135 * us);
    QCOMPARE(all.total.idleNs, 5 * us);  // busy [0,190] + [195,198] = 193 of 198
  }

  void gpuTimeline() {
    auto launch = [](int ts, int correlation) {
      return kernelLaunch(ts, R"({"correlation":)" + std::to_string(correlation) + "}");
    };
    const std::vector<std::string> events = {
        span("ProfilerStep#1", 1, 0, 100), span("ProfilerStep#2", 1, 100, 200), span("fathom::data_loader", 1, 0, 5),
        launch(10, 1), launch(20, 2), launch(30, 3), launch(110, 4),
        gpuActivity("kernel", "sm90_gemm", 50, 80, R"({"stream":7,"correlation":1})"),
        // Launched in step 1, runs past its CPU end: still step 1's GPU work.
        gpuActivity("kernel", "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 70, 120,
                    R"({"stream":7,"correlation":2,"Collective name":"allreduce"})"),
        gpuActivity("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 125, 130, R"({"stream":7,"correlation":3})"),
        gpuActivity("kernel", "gemm2", 150, 160, R"({"stream":7,"correlation":4})"),
        gpuActivity("kernel", "elementwise", 170, 180, R"({"stream":7})"),  // no launch: its own start says step 2
    };
    const TraceSummary s = summarizeTrace(write("gpu.json", events));
    QCOMPARE(s.timeline, SummaryTimeline::Gpu);
    QCOMPARE(s.steps.size(), std::size_t{2});
    // Step 1's GPU work spans [50,130]: compute [50,80] = 30, communication [70,120] = 50, memory [125,130] = 5,
    // union [50,120]+[125,130] = 75 -> idle 5, overlap [70,80] = 10; data loading from the CPU step: 5.
    QCOMPARE(s.steps[0].startNs, 50 * us);
    compareBreakdown(s.steps[0].time, 80, 30, 50, 5, 5, 10);
    QCOMPARE(s.steps[0].time.memoryNs, 5 * us);
    QCOMPARE(s.steps[0].time.overlapFraction(), 0.2);
    // Step 2's spans [150,180]: compute 20, idle 10.
    compareBreakdown(s.steps[1].time, 30, 20, 0, 0, 10, 0);
    compareBreakdown(s.total, 110, 50, 50, 5, 15, 10);
    QStringList kernels;
    for (const OpStats& k : s.topKernels) {
      kernels << QString::fromStdString(k.name + "=" + std::to_string(k.totalNs / us));
    }
    QCOMPARE(kernels, QStringList({"ncclDevKernel_AllReduce_Sum_f32_RING_LL=50", "sm90_gemm=30", "elementwise=10",
                                   "gemm2=10", "Memcpy HtoD (Pageable -> Device)=5"}));
    QCOMPARE(s.collectives.size(), std::size_t{1});
    QCOMPARE(QString::fromStdString(s.collectives[0].kind), QStringLiteral("allreduce"));
    QCOMPARE(s.collectives[0].totalNs, 50 * us);
    QVERIFY(!s.collectives[0].bytes);  // the kernel carries no bytes: unknown, not 0
  }

  /// PyTorch's legacy profiler (builds without Kineto, such as Debian's 1.13): a JSON array, no `cat`, every CPU
  /// event in the process "CPU functions", Gloo's work on its own threads. Before, nothing was compute or
  /// communication: 100 % idle.
  void pytorchLegacyTrace() {
    const std::vector<std::string> events = {
        legacyEvent("ProfilerStep#0", 1, 0, 100),
        legacyEvent("DistributedDataParallel.forward", 1, 5, 45),  // PyTorch's own range: user_annotation
        legacyEvent("aten::mm", 1, 10, 40),
        legacyEvent("aten::add", 1, 20, 30),
        legacyEvent("c10d::allreduce_", 1, 50, 55),
        legacyEvent("gloo:all_reduce", 3, 52, 75),
        legacyEvent("gloo:broadcast", 2, 1, 3),
        legacyEvent("aten::add_", 1, 80, 90),
        legacyEvent("aten::copy_", 7, 60, 70),      // not the step's thread: not compute
        legacyEvent("aten::relu", 1, 91, 99, "5"),  // no cat outside "CPU functions": no category, as before
    };
    std::string text = "[";
    for (const std::string& e : events) {
      text += (text.size() > 1 ? ", " : "") + e;
    }
    const fs::path file = fs::path(m_dir.path().toStdString()) / "legacy.json";
    fathom::test::writeTraceFile(file, text + "]");
    const TraceSummary s = summarizeTrace(file);
    QCOMPARE(s.timeline, SummaryTimeline::Cpu);
    QCOMPARE(s.steps.size(), std::size_t{1});
    // Step 0 [0,100]: compute [10,40]+[50,55]+[80,90] = 45, communication [1,3]+[52,75] = 25,
    // busy [1,3]+[10,40]+[50,75]+[80,90] = 67 -> idle 33, overlap [52,55] = 3.
    compareBreakdown(s.steps[0].time, 100, 45, 25, 0, 33, 3);
    QStringList ops;
    for (const OpStats& x : s.topOps) {
      ops << QString::fromStdString(x.name + "=" + std::to_string(x.selfNs / us));
    }
    QCOMPARE(ops,
             QStringList({"aten::mm=20", "aten::add=10", "aten::add_=10", "aten::copy_=10", "c10d::allreduce_=5"}));
    QCOMPARE(s.collectives.size(), std::size_t{2});
    QCOMPARE(QString::fromStdString(s.collectives[0].kind), QStringLiteral("all_reduce"));
    QCOMPARE(s.collectives[0].count, std::uint64_t{1});
    QCOMPARE(s.collectives[0].totalNs, 23 * us);
    QVERIFY(!s.collectives[0].bytes);
    QCOMPARE(QString::fromStdString(s.collectives[1].kind), QStringLiteral("broadcast"));
  }

  /// Fathom's own traces hold Gloo's work spans too (its process groups are c10d's): the fathom:: spans, which carry
  /// the bytes, stay the collectives, counted once.
  void glooSpansBesideFathomCollectives() {
    std::vector<std::string> events = cpuEvents(true, true);
    events.push_back(span("gloo:all_reduce", 7, 62, 97));
    events.push_back(span("gloo:all_reduce", 7, 152, 189));
    const TraceSummary s = summarizeTrace(write("gloo.json", events));
    compareBreakdown(s.total, 200, 130, 73, 30, 12, 45);  // as cpuTimeline
    QCOMPARE(s.collectives.size(), std::size_t{2});
    QCOMPARE(s.collectives[0].count, std::uint64_t{2});
    QCOMPARE(s.collectives[0].totalNs, 70 * us);
    QCOMPARE(s.collectives[0].bytes.value_or(-1), std::int64_t{8192});
  }

  void malformedEventIsAnError() {
    const fs::path file = write("bad.json", {cpuOp("a", 1, 0, 1), R"({"ph":"X" "ts":1})"});
    QVERIFY(fathom::test::throwsType<fathom::StorageError>([&] { summarizeTrace(file); }));
    QVERIFY(contains(fathom::test::messageOf([&] { summarizeTrace(file); }), "bad.json: malformed event #1"));
  }
};

QTEST_GUILESS_MAIN(TestTraceSummary)
#include "tst_trace_summary.moc"
