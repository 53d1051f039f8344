// SPDX-License-Identifier: Apache-2.0
// fathom::profile::GpuTraceBuilder on synthetic GpuActivity streams: exact events, args, flows and stats; kernels
// linked to launches and CPU ops; NCCL kernels tagged with the Comm layer's collective; unlinked kernels; records
// arriving before their launch; several devices and streams; copies, memsets, syncs, overhead rows; thread ids.
#include "gpu_trace_test_support.h"

#include <fathom/common/error.h>

#include <QTest>

#include <map>

using namespace fathom::profile;
using namespace gpu_test;
using namespace Qt::StringLiterals;

namespace {

constexpr std::uint32_t kCpuPid = 4242;
constexpr std::uint64_t kMainTid = 4243;

// A CPU profiler stand-in: external id -> op.
struct Ops {
  std::map<std::uint64_t, CpuLaunchContext> byId;
  GpuTraceBuilder::LaunchLookup lookup() const {
    return [this](ExternalId id) -> const CpuLaunchContext* {
      const auto it = byId.find(id.value);
      return it == byId.end() ? nullptr : &it->second;
    };
  }
};

GpuActivity copy(std::uint32_t correlation, std::int64_t start, std::int64_t end, std::uint64_t bytes,
                 std::uint32_t runtimeCorrelation = 0) {
  GpuActivity a;
  a.kind = GpuActivityKind::Memcpy;
  a.startNs = start;
  a.endNs = end;
  a.device = DeviceIndex{0};
  a.context = ContextId{1};
  a.stream = StreamId{7};
  a.correlation = CorrelationId{correlation};
  a.name = "Memcpy HtoD (Pageable -> Device)";
  a.detail =
      MemcpyInfo{MemcpyKind::HtoD, MemoryKind::Pageable, MemoryKind::Device, bytes, CorrelationId{runtimeCorrelation}};
  return a;
}

GpuActivity set(std::uint32_t correlation, std::int64_t start, std::int64_t end, std::uint64_t bytes) {
  GpuActivity a;
  a.kind = GpuActivityKind::Memset;
  a.startNs = start;
  a.endNs = end;
  a.device = DeviceIndex{0};
  a.context = ContextId{1};
  a.stream = StreamId{13};
  a.correlation = CorrelationId{correlation};
  a.name = "Memset (Device)";
  a.detail = MemsetInfo{bytes, 0, MemoryKind::Device};
  return a;
}

GpuActivity sync(std::uint32_t correlation, std::int64_t start, std::int64_t end, SyncKind kind, std::uint32_t context,
                 StreamId stream) {
  GpuActivity a;
  a.kind = GpuActivityKind::Synchronization;
  a.startNs = start;
  a.endNs = end;
  a.context = ContextId{context};
  a.stream = stream;
  a.correlation = CorrelationId{correlation};
  a.name = toString(kind);
  a.detail = SyncInfo{kind, 0};
  return a;
}

GpuActivity overhead(OverheadKind kind, std::int64_t start, std::int64_t end) {
  GpuActivity a;
  a.kind = GpuActivityKind::Overhead;
  a.startNs = start;
  a.endNs = end;
  a.name = toString(kind);
  OverheadInfo info;
  info.overheadKind = kind;
  info.object = OverheadObject::Thread;
  info.processId = kCpuPid;
  info.threadId = CuptiThreadId{0x5A5A0700u};
  a.detail = info;
  return a;
}

GpuTraceStats build(GpuTraceBuilder& builder, RecordingSink& sink) {
  return builder.build(sink.sink());
}

}  // namespace

class TestGpuTraceBuilder : public QObject {
  Q_OBJECT

private slots:
  void kernelLinkedToLaunchAndCpuOp() {
    Ops ops;
    ops.byId[17] = {kCpuPid, kMainTid, "aten::mm", std::nullopt};
    GpuTraceBuilder builder;
    builder.setLaunchLookup(ops.lookup());
    const std::vector<GpuActivity> acts = {external(901, 17), runtime(901, 25'000, 30'000),
                                           kernel(901, 40'000, 52'500)};
    builder.add(acts);
    RecordingSink sink;
    const GpuTraceStats stats = build(builder, sink);

    const QStringList expected = {
        u"M|Trace|process_name|0/0|25000|name=GPU 0"_s,
        u"M|Trace|process_sort_index|0/0|25000|sort_index=16777216"_s,
        u"M|Trace|thread_name|0/7|25000|name=stream 7"_s,
        u"M|Trace|thread_sort_index|0/7|25000|sort_index=7"_s,
        u"X|cuda_runtime|cudaLaunchKernel|4242/4243|25000+5000|External id=17,cbid=211,correlation=901"_s,
        u"X|kernel|sm90_gemm|0/7|40000+12500|External id=17,device=0,context=1,stream=7,correlation=901,"
        "registers per thread=32,shared memory=3072,grid=[132,1,1],block=[128,1,1]"_s,
        u"s|ac2g|ac2g|4242/4243|25000|id=901"_s,
        u"f|ac2g|ac2g|0/7|40000|id=901"_s,
    };
    QCOMPARE(sink.lines, expected);
    QCOMPARE(stats.kernels, 1u);
    QCOMPARE(stats.kernelsLinkedToLaunch, 1u);
    QCOMPARE(stats.kernelsLinkedToCpuOp, 1u);
    QCOMPARE(stats.runtimeCalls, 1u);
    QCOMPARE(stats.externalCorrelations, 1u);
    QCOMPARE(stats.flows, 1u);
    QCOMPARE(stats.eventsEmitted, std::uint64_t(expected.size()));
    QCOMPARE(stats.recordsOutOfOrder, 0u);
    QVERIFY(stats.allKernelsLinked());
    QVERIFY(stats.unlinkedKernelNames.empty());
  }

  void ncclKernelsTaggedWithCollective() {
    Ops ops;
    ops.byId[30] = {kCpuPid, kMainTid, "nccl:all_reduce",
                    CollectiveInfo{"all_reduce", 4096, 1024, "Float", 4, 12, "ddp.bucket.3"}};
    ops.byId[31] = {kCpuPid, kMainTid, "nccl:all_gather",
                    CollectiveInfo{"all_gather", 16384, 4096, "BFloat16", 4, 13, ""}};
    ops.byId[32] = {kCpuPid, kMainTid, "nccl:reduce_scatter",
                    CollectiveInfo{"reduce_scatter", 16384, 4096, "Float", 4, 14, "zero.grads"}};
    ops.byId[33] = {kCpuPid, kMainTid, "aten::copy_", std::nullopt};
    GpuTraceBuilder builder;
    builder.setLaunchLookup(ops.lookup());
    const std::vector<GpuActivity> acts = {
        external(1, 30),
        runtime(1, 100, 110),
        kernel(1, 200, 300, 0, 20, "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"),
        external(2, 31),
        runtime(2, 400, 410),
        kernel(2, 500, 600, 0, 20, "ncclKernel_AllGather_RING_LL_Sum_int8_t"),
        external(3, 32),
        runtime(3, 700, 710),
        kernel(3, 800, 900, 0, 20, "ncclDevKernel_ReduceScatter_Sum_f32_RING_LL"),
        // An NCCL kernel launched from an op without a collective: counted, not tagged. Mangled on purpose.
        external(4, 33),
        runtime(4, 1000, 1010),
        kernel(4, 1100, 1200, 0, 20, "_Z22ncclDevKernel_SendRecvv"),
    };
    builder.add(acts);
    RecordingSink sink;
    const GpuTraceStats stats = build(builder, sink);
    const QStringList kernels = sink.withCategory(u"kernel"_s);
    QCOMPARE(kernels.size(), 4);
    const QString common = u",registers per thread=32,shared memory=3072,grid=[132,1,1],block=[128,1,1]"_s;
    QCOMPARE(kernels[0], u"X|kernel|ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)|0/20|"
                         "200+100|External id=30,device=0,context=1,stream=20,correlation=1"_s +
                             common +
                             u",Collective name=all_reduce,In msg nelems=1024,Out msg nelems=1024,Group size=4,"
                             "dtype=Float,bytes=4096,sequence=12,label=ddp.bucket.3"_s);
    QVERIFY2(kernels[1].endsWith(u",Collective name=all_gather,In msg nelems=1024,Out msg nelems=4096,Group size=4,"
                                 "dtype=BFloat16,bytes=16384,sequence=13"_s),
             qPrintable(kernels[1]));
    QVERIFY2(kernels[2].endsWith(u",Collective name=reduce_scatter,In msg nelems=4096,Out msg nelems=1024,"
                                 "Group size=4,dtype=Float,bytes=16384,sequence=14,label=zero.grads"_s),
             qPrintable(kernels[2]));
    QVERIFY2(kernels[3].endsWith(common), qPrintable(kernels[3]));
    QCOMPARE(stats.ncclKernels, 4u);
    QCOMPARE(stats.ncclKernelsTagged, 3u);
    QCOMPARE(stats.kernelsLinkedToCpuOp, 4u);
  }

  void ncclNames_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<bool>("nccl");
    QTest::newRow("legacy") << u"ncclKernel_AllReduce_RING_LL_Sum_float"_s << true;
    QTest::newRow("2.19+") << u"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"_s << true;
    QTest::newRow("mangled") << u"_Z29ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE"_s
                             << true;
    QTest::newRow("namespaced mangled") << u"_ZN2at6native29vectorized_elementwise_kernelILi4EEEviT_"_s << false;
    QTest::newRow("nccl inside") << u"void at::native::ncclish<float>()"_s << false;
    QTest::newRow("gemm") << u"sm90_xmma_gemm_f32f32_tf32f32"_s << false;
    QTest::newRow("bare _Z") << u"_Z"_s << false;
    QTest::newRow("empty") << QString() << false;
  }
  void ncclNames() {
    QFETCH(QString, name);
    QFETCH(bool, nccl);
    const QByteArray utf8 = name.toUtf8();
    QCOMPARE(isNcclKernelName(std::string_view(utf8.constData(), std::size_t(utf8.size()))), nccl);
  }

  void unlinkedKernelsAreCountedAndListed() {
    GpuTraceBuilderOptions options;
    options.maxListedUnlinked = 2;
    GpuTraceBuilder builder(options);
    const std::vector<GpuActivity> acts = {kernel(1, 10, 20, 0, 7, "a"),
                                           kernel(2, 30, 40, 0, 7, "b"),
                                           kernel(3, 50, 60, 0, 7, "a"),
                                           kernel(4, 70, 80, 0, 7, "c"),
                                           runtime(5, 1, 5),
                                           kernel(5, 90, 95, 0, 7, "d")};
    builder.add(acts);
    RecordingSink sink;
    const GpuTraceStats stats = build(builder, sink);
    QCOMPARE(stats.kernels, 5u);
    QCOMPARE(stats.kernelsLinkedToLaunch, 1u);
    QCOMPARE(stats.kernelsLinkedToCpuOp, 0u);  // no lookup, no external correlation
    QVERIFY(!stats.allKernelsLinked());
    QCOMPARE(stats.unlinkedKernelNames, (std::vector<std::string>{"a", "b"}));
    QCOMPARE(stats.flows, 1u);
    QCOMPARE(sink.withCategory(u"ac2g"_s).size(), 2);
    // Unlinked kernels carry no External id.
    QVERIFY(sink.withCategory(u"kernel"_s).first().contains(u"|device=0,"_s));
  }

  // Hopper's programmatic dependent launch lets kernel b start 128 ns before a ends on the same stream (seen on the
  // first H200 run, docs/gpu.md): a's end is cut to b's start, so the stream's row nests for Perfetto and the
  // validator, and the cut is kept in the event. c, on another stream, keeps its times.
  void crossingKernelsOnOneStreamAreTrimmed() {
    GpuTraceBuilder builder(GpuTraceBuilderOptions{});
    const std::vector<GpuActivity> acts = {kernel(1, 1'000, 2'128, 0, 7, "a"), kernel(2, 2'000, 3'000, 0, 7, "b"),
                                           kernel(3, 1'500, 2'500, 0, 13, "c")};
    builder.add(acts);
    RecordingSink sink;
    const GpuTraceStats stats = build(builder, sink);
    QCOMPARE(stats.overlapsTrimmed, 1u);
    const auto kernels = sink.withCategory(u"kernel"_s);
    QCOMPARE(kernels.size(), 3);
    QVERIFY2(kernels[0].startsWith(u"X|kernel|a|0/7|1000+1000|"_s), qPrintable(kernels[0]));
    QVERIFY2(kernels[0].contains(u"overlap_trimmed_ns=128"_s), qPrintable(kernels[0]));
    QVERIFY2(kernels[1].startsWith(u"X|kernel|c|0/13|1500+1000|"_s), qPrintable(kernels[1]));
    QVERIFY2(kernels[2].startsWith(u"X|kernel|b|0/7|2000+1000|"_s), qPrintable(kernels[2]));
    QVERIFY(!kernels[1].contains(u"overlap_trimmed_ns"_s) && !kernels[2].contains(u"overlap_trimmed_ns"_s));
  }

  void recordsArrivingBeforeTheirLaunch() {
    Ops ops;
    ops.byId[77] = {kCpuPid, kMainTid, "aten::add", std::nullopt};
    GpuTraceBuilder builder;
    builder.setLaunchLookup(ops.lookup());
    // CUPTI completes the GPU buffer first: the kernel arrives in one drain, its launch in the next.
    const std::vector<GpuActivity> first = {kernel(8, 5'000, 6'000)};
    // And a kernel whose start precedes its launch: a clock problem, counted.
    const std::vector<GpuActivity> second = {runtime(8, 1'000, 1'500), external(8, 77), runtime(9, 9'000, 9'500),
                                             kernel(9, 8'000, 8'500)};
    builder.add(first);
    builder.add(second);
    RecordingSink sink;
    const GpuTraceStats stats = build(builder, sink);
    QCOMPARE(stats.kernelsLinkedToLaunch, 2u);
    QCOMPARE(stats.kernelsLinkedToCpuOp, 1u);
    QCOMPARE(stats.recordsOutOfOrder, 1u);
    QCOMPARE(stats.gpuBeforeLaunch, 1u);
    QCOMPARE(sink.withCategory(u"ac2g"_s),
             (QStringList{u"s|ac2g|ac2g|4242/4243|1000|id=8"_s, u"f|ac2g|ac2g|0/7|5000|id=8"_s,
                          // Not linked to an op, but the same CUPTI thread as the call that is: same row.
                          u"s|ac2g|ac2g|4242/4243|9000|id=9"_s, u"f|ac2g|ac2g|0/7|8000|id=9"_s}));
  }

  void devicesStreamsAndProperties() {
    DeviceProperties h100;
    h100.id = 1;
    h100.name = "NVIDIA H100 80GB HBM3";
    h100.numSms = 132;
    h100.warpSize = 32;
    GpuTraceBuilder builder;
    builder.setDevices({h100});
    GpuActivity wide = kernel(3, 300, 400, 1, 7, "wide");
    std::get<KernelInfo>(wide.detail).grid = {264, 1, 1};
    const std::vector<GpuActivity> acts = {kernel(1, 100, 200, 0, 13, "k13"),
                                           kernel(2, 50, 60, 0, 7, "k7"),
                                           wide,
                                           runtime(1, 10, 20),
                                           runtime(2, 30, 40),
                                           runtime(3, 250, 260)};
    builder.add(acts);
    RecordingSink sink;
    const GpuTraceStats stats = build(builder, sink);
    QCOMPARE(sink.withCategory(u"Trace"_s),
             (QStringList{
                 u"M|Trace|process_name|0/0|10|name=GPU 0"_s,
                 u"M|Trace|process_sort_index|0/0|10|sort_index=16777216"_s,
                 u"M|Trace|thread_name|0/7|10|name=stream 7"_s,
                 u"M|Trace|thread_sort_index|0/7|10|sort_index=7"_s,
                 u"M|Trace|thread_name|0/13|10|name=stream 13"_s,
                 u"M|Trace|thread_sort_index|0/13|10|sort_index=13"_s,
                 u"M|Trace|process_name|1/0|10|name=GPU 1"_s,
                 u"M|Trace|process_labels|1/0|10|labels=NVIDIA H100 80GB HBM3"_s,
                 u"M|Trace|process_sort_index|1/0|10|sort_index=16777217"_s,
                 u"M|Trace|thread_name|1/7|10|name=stream 7"_s,
                 u"M|Trace|thread_sort_index|1/7|10|sort_index=7"_s,
                 // The launches are not linked to CPU ops and there is no thread map: a row of their own.
                 u"M|Trace|thread_name|4242/1515849472|10|name=CUDA API thread (CUPTI thread id 1515849472)"_s,
             }));
    const QStringList kernels = sink.withCategory(u"kernel"_s);
    QCOMPARE(kernels.size(), 3);
    QVERIFY(kernels[0].startsWith(u"X|kernel|k7|0/7|50+10|"_s));  // by start time, not by arrival
    QVERIFY(kernels[1].startsWith(u"X|kernel|k13|0/13|100+100|"_s));
    // 264 blocks on 132 SMs; 128 threads = 4 warps per block.
    QVERIFY2(kernels[2].contains(u",blocks per SM=2,warps per SM=8,grid=[264,1,1],"_s), qPrintable(kernels[2]));
    QVERIFY(!kernels[0].contains(u"blocks per SM"_s));  // device 0's properties are unknown
    QCOMPARE(stats.flows, 3u);
  }

  void copiesAndMemsets() {
    GpuTraceBuilder builder;
    // The copy's correlation is the driver call's; its runtime call links through runtimeCorrelation.
    const std::vector<GpuActivity> acts = {
        runtime(49, 100, 900, 0x5A5A0700u, 41, "cudaMemcpyAsync"), copy(50, 1'000, 101'000, 1 << 20, 49),
        runtime(60, 2'100, 2'200, 0x5A5A0700u, 51, "cudaMemsetAsync"), set(60, 3'000, 3'000, 256)};
    builder.add(acts);
    RecordingSink sink;
    const GpuTraceStats stats = build(builder, sink);
    QCOMPARE(sink.withCategory(u"gpu_memcpy"_s),
             QStringList{u"X|gpu_memcpy|Memcpy HtoD (Pageable -> Device)|0/7|1000+100000|device=0,context=1,stream=7,"
                         "correlation=50,bytes=1048576,memory bandwidth (GB/s)=10.48576"_s});
    // Zero duration: no bandwidth.
    QCOMPARE(sink.withCategory(u"gpu_memset"_s),
             QStringList{u"X|gpu_memset|Memset (Device)|0/13|3000+0|device=0,context=1,stream=13,correlation=60,"
                         "bytes=256"_s});
    QCOMPARE(sink.withCategory(u"ac2g"_s),
             (QStringList{u"s|ac2g|ac2g|4242/1515849472|100|id=49"_s, u"f|ac2g|ac2g|0/7|1000|id=49"_s,
                          u"s|ac2g|ac2g|4242/1515849472|2100|id=60"_s, u"f|ac2g|ac2g|0/13|3000|id=60"_s}));
    QCOMPARE(stats.memcpys, 1u);
    QCOMPARE(stats.memsets, 1u);
    QCOMPARE(stats.memoryOpsLinkedToLaunch, 2u);
    QCOMPARE(stats.kernels, 0u);
    QVERIFY(stats.allKernelsLinked());  // vacuous: the GPU check also requires kernels > 0
  }

  void overheadRows() {
    GpuTraceBuilderOptions options;
    GpuTraceBuilder builder(options);
    const std::vector<GpuActivity> acts = {overhead(OverheadKind::CuptiInstrumentation, 10, 20),
                                           overhead(OverheadKind::CuptiBufferFlush, 15, 45)};
    builder.add(acts);
    RecordingSink sink;
    const GpuTraceStats stats = build(builder, sink);
    QCOMPARE(sink.lines,
             (QStringList{
                 u"M|Trace|process_name|4294967295/0|10|name=CUPTI overhead"_s,
                 u"M|Trace|process_sort_index|4294967295/0|10|sort_index=16842751"_s,
                 u"M|Trace|thread_name|4294967295/2|10|name=Buffer Flush"_s,
                 u"M|Trace|thread_name|4294967295/3|10|name=Instrumentation"_s,
                 u"X|overhead|Instrumentation|4294967295/3|10+10|object=thread,process id=4242,thread id=1515849472"_s,
                 u"X|overhead|Buffer Flush|4294967295/2|15+30|object=thread,process id=4242,thread id=1515849472"_s,
             }));
    QCOMPARE(stats.overheadRecords, 2u);
    QCOMPARE(stats.overheadNs, 40);

    options.overheadPid = 9'999'999;
    GpuTraceBuilder custom(options);
    custom.add(acts);
    RecordingSink other;
    custom.build(other.sink());
    QVERIFY(other.lines.first().startsWith(u"M|Trace|process_name|9999999/0|"_s));
  }

  void syncsNestInsideTheirCall() {
    GpuTraceBuilder builder;
    const std::vector<GpuActivity> acts = {
        kernel(1, 50, 60),  // tells the builder that context 1 is device 0
        runtime(5, 100, 200, 0x5A5A0700u, 131, "cudaStreamSynchronize"),
        sync(5, 95, 205, SyncKind::StreamSynchronize, 1, StreamId{7}),
        sync(6, 300, 400, SyncKind::ContextSynchronize, 1, kNoStream),  // its call is not in the capture
        sync(7, 500, 600, SyncKind::EventSynchronize, 99, kNoStream),   // unknown context, no call
    };
    builder.add(acts);
    RecordingSink sink;
    const GpuTraceStats stats = build(builder, sink);
    QCOMPARE(sink.withCategory(u"cuda_sync"_s),
             (QStringList{u"X|cuda_sync|Stream Sync|4242/1515849472|100+100|cuda_sync_kind=Stream Sync,stream=7,"
                          "correlation=5,device=0,context=1"_s,
                          u"X|cuda_sync|Context Sync|0/4294967295|300+100|cuda_sync_kind=Context Sync,stream=-1,"
                          "correlation=6,device=0,context=1"_s}));
    QVERIFY(sink.lines.contains(u"M|Trace|thread_name|0/4294967295|50|name=no stream"_s));
    QCOMPARE(stats.syncs, 3u);
    QCOMPARE(stats.syncsWithoutRow, 1u);
  }

  void threadIdsOfApiRecords() {
    Ops ops;
    ops.byId[1] = {kCpuPid, 5001, "aten::mm", std::nullopt};
    ops.byId[2] = {kCpuPid, 5002, "aten::add", std::nullopt};
    GpuTraceBuilder builder;
    builder.setLaunchLookup(ops.lookup());
    builder.setThreadMap({{CuptiThreadId{0xA}, 6001}, {CuptiThreadId{0xC}, 7777}});
    const std::vector<GpuActivity> acts = {
        runtime(10, 100, 110, 0xA),  // mapped by the thread map
        external(11, 1),
        runtime(11, 200, 210, 0xB),  // linked to an op on 5001: learned for 0xB
        runtime(12, 300, 310, 0xB),  // not linked: the learned row
        runtime(13, 400, 410, 0xD),  // unknown: the CUPTI id is the row
        external(14, 2),
        runtime(14, 500, 510, 0xC),  // the map says 7777, the op says 5002: the op wins
    };
    builder.add(acts);
    RecordingSink sink;
    const GpuTraceStats stats = build(builder, sink);
    const QStringList calls = sink.withCategory(u"cuda_runtime"_s);
    QCOMPARE(calls.size(), 5);
    QVERIFY(calls[0].startsWith(u"X|cuda_runtime|cudaLaunchKernel|4242/6001|100+10|"_s));
    QVERIFY(calls[1].startsWith(u"X|cuda_runtime|cudaLaunchKernel|4242/5001|200+10|"_s));
    QVERIFY(calls[2].startsWith(u"X|cuda_runtime|cudaLaunchKernel|4242/5001|300+10|"_s));
    QVERIFY(calls[3].startsWith(u"X|cuda_runtime|cudaLaunchKernel|4242/13|400+10|"_s));
    QVERIFY(calls[4].startsWith(u"X|cuda_runtime|cudaLaunchKernel|4242/5002|500+10|"_s));
    QVERIFY(sink.lines.contains(u"M|Trace|thread_name|4242/13|100|name=CUDA API thread (CUPTI thread id 13)"_s));
    QCOMPARE(stats.unmappedThreads, 1u);
    QCOMPARE(stats.threadMapConflicts, 1u);
  }

  void noisyRuntimeCallsAreSkipped() {
    const std::vector<GpuActivity> acts = {runtime(1, 10, 20, 0x5A5A0700u, 17, "cudaGetDevice"),
                                           runtime(2, 30, 40, 0x5A5A0700u, 137, "cudaEventSynchronize")};
    GpuTraceBuilder skipping;
    skipping.add(acts);
    RecordingSink sink;
    const GpuTraceStats stats = skipping.build(sink.sink());
    QCOMPARE(sink.withCategory(u"cuda_runtime"_s).size(), 1);
    QVERIFY(sink.withCategory(u"cuda_runtime"_s).first().contains(u"cudaEventSynchronize"_s));
    QCOMPARE(stats.runtimeCalls, 2u);
    QCOMPARE(stats.runtimeCallsSkipped, 1u);

    GpuTraceBuilderOptions options;
    options.skipNoisyRuntimeCalls = false;
    GpuTraceBuilder keeping(options);
    keeping.add(acts);
    RecordingSink all;
    QCOMPARE(keeping.build(all.sink()).runtimeCallsSkipped, 0u);
    QCOMPARE(all.withCategory(u"cuda_runtime"_s).size(), 2);
  }

  void recordsWithoutTimesAreCountedNotWritten() {
    GpuTraceBuilder builder;
    const std::vector<GpuActivity> acts = {runtime(1, 10, 20), kernel(1, 0, 0), kernel(2, 500, 400),
                                           kernel(3, 600, 700)};
    builder.add(acts);
    RecordingSink sink;
    const GpuTraceStats stats = build(builder, sink);
    QCOMPARE(stats.kernels, 3u);
    QCOMPARE(stats.kernelsLinkedToLaunch, 1u);  // linking does not need times
    QCOMPARE(stats.invalidTimestamps, 2u);
    QCOMPARE(sink.withCategory(u"kernel"_s).size(), 1);
    QCOMPARE(stats.flows, 0u);  // the linked kernel has no times: no flow
  }

  void runtimeWinsOverDriverForTheFlow() {
    GpuTraceBuilder builder;
    const std::vector<GpuActivity> acts = {
        api(GpuActivityKind::Driver, 7, 105, 150, 0x5A5A0700u, 307, "cuLaunchKernel"),
        runtime(7, 100, 160),
        kernel(7, 200, 300),
    };
    builder.add(acts);
    RecordingSink sink;
    const GpuTraceStats stats = build(builder, sink);
    QCOMPARE(sink.withCategory(u"cuda_driver"_s),
             QStringList{u"X|cuda_driver|cuLaunchKernel|4242/1515849472|105+45|cbid=307,correlation=7"_s});
    QCOMPARE(sink.withCategory(u"ac2g"_s).first(), u"s|ac2g|ac2g|4242/1515849472|100|id=7"_s);
    QCOMPARE(stats.driverCalls, 1u);
    QCOMPARE(stats.runtimeCalls, 1u);
  }

  void oneFlowPerLaunchOfSeveralKernels() {
    GpuTraceBuilder builder;  // a graph launch: one call, several kernels with its correlation id
    const std::vector<GpuActivity> acts = {runtime(9, 10, 20, 0x5A5A0700u, 311, "cudaGraphLaunch"), kernel(9, 300, 310),
                                           kernel(9, 100, 110), kernel(9, 200, 210)};
    builder.add(acts);
    RecordingSink sink;
    const GpuTraceStats stats = build(builder, sink);
    QCOMPARE(stats.kernelsLinkedToLaunch, 3u);
    QCOMPARE(stats.flows, 1u);
    QCOMPARE(sink.withCategory(u"ac2g"_s).last(), u"f|ac2g|ac2g|0/7|100|id=9"_s);
  }

  void onlyFathomsExternalIdsLink() {
    Ops ops;
    ops.byId[5] = {kCpuPid, kMainTid, "aten::mm", std::nullopt};
    GpuTraceBuilder builder;
    builder.setLaunchLookup(ops.lookup());
    const std::vector<GpuActivity> acts = {external(1, 5, ExternalKind::Custom1), runtime(1, 10, 20),
                                           kernel(1, 30, 40)};
    builder.add(acts);
    RecordingSink sink;
    const GpuTraceStats stats = build(builder, sink);
    QCOMPARE(stats.externalCorrelations, 0u);
    QCOMPARE(stats.externalCorrelationsIgnored, 1u);
    QCOMPARE(stats.kernelsLinkedToCpuOp, 0u);
    QVERIFY(!sink.withCategory(u"kernel"_s).first().contains(u"External id"_s));
  }

  void buildIsRepeatableAndClearable() {
    GpuTraceBuilder builder;
    const std::vector<GpuActivity> acts = {runtime(1, 10, 20), kernel(1, 30, 40)};
    builder.add(acts);
    RecordingSink first;
    RecordingSink second;
    builder.build(first.sink());
    builder.build(second.sink());
    QVERIFY(!first.lines.isEmpty());
    QCOMPARE(second.lines, first.lines);
    QCOMPARE(builder.size(), std::size_t(2));
    builder.clear();
    RecordingSink empty;
    const GpuTraceStats stats = builder.build(empty.sink());
    QVERIFY(empty.lines.isEmpty());
    QCOMPARE(stats.eventsEmitted, 0u);
  }
};

QTEST_GUILESS_MAIN(TestGpuTraceBuilder)
#include "tst_gpu_trace_builder.moc"
