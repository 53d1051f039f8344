// SPDX-License-Identifier: Apache-2.0
// The CUPTI record decoder on real CUPTI record structs, filled in memory as CUPTI 13 hands them over (kernels,
// copies, memsets, runtime and driver calls, synchronizations, external correlations, overheads): every field.
// Then the parts of the real libcupti that work without a driver: a synthetic buffer walked with
// cuptiActivityGetNextRecord exactly as the tracer walks it (through the buffer pool), callback names, and the
// clock calibration against cuptiGetTimestamp. Skipped when the build has no CUDA headers.
#include "profile/cupti/cupti_buffer_pool.h"
#include "profile/cupti/cupti_headers.h"

#if FATHOM_CUPTI_TRACING
#include "profile/cupti/cupti_library.h"
#include "profile/cupti/cupti_record_decoder.h"
#endif

#include <fathom/common/clock.h>
#include <fathom/common/error.h>
#include <fathom/profile/clock.h>
#include <fathom/profile/cupti/gpu_activity.h>
#include <fathom/profile/cupti/gpu_trace_builder.h>
#include <fathom/trace/trace_event.h>

#include <QTest>

#include <array>
#include <cstddef>
#include <cstring>
#include <limits>
#include <map>
#include <vector>

using namespace fathom::profile;
using namespace fathom::trace;
using namespace Qt::StringLiterals;

#if FATHOM_CUPTI_TRACING
using namespace fathom::profile::detail;

namespace {

constexpr std::int64_t kOffset = 1'000;  // CUPTI clock minus profiler clock in these tests

const char* namer(CUpti_CallbackDomain domain, std::uint32_t cbid) {
  static const std::map<std::pair<int, std::uint32_t>, const char*> names = {
      {{CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000}, "cudaLaunchKernel_v7000"},
      {{CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel}, "cuLaunchKernel"},
      {{CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2}, "cuMemcpyHtoD_v2"},
  };
  const auto it = names.find({domain, cbid});
  return it == names.end() ? nullptr : it->second;
}

QString qs(std::string_view text) {
  return QString::fromUtf8(text.data(), qsizetype(text.size()));
}

KernelRecord kernelRecord() {
  KernelRecord r{};
  r.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  r.registersPerThread = 40;
  r.start = 5'000'000;
  r.end = 5'012'500;
  r.queued = 4'990'000;
  r.deviceId = 3;
  r.contextId = 11;
  r.streamId = 27;
  r.gridX = 132;
  r.gridY = 2;
  r.gridZ = 1;
  r.blockX = 256;
  r.blockY = 1;
  r.blockZ = 1;
  r.staticSharedMemory = 4096;
  r.dynamicSharedMemory = 49152;
  r.correlationId = 901;
  r.name = "_Z10fathomFillPfi";  // fathomFill(float*, int)
  return r;
}

MemcpyRecord memcpyRecord() {
  MemcpyRecord r{};
  r.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  r.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
  r.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  r.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
  r.bytes = 1u << 20;
  r.start = 7'000'000;
  r.end = 7'100'000;
  r.deviceId = 1;
  r.contextId = 2;
  r.streamId = 14;
  r.correlationId = 55;
  r.runtimeCorrelationId = 54;
  return r;
}

MemsetRecord memsetRecord() {
  MemsetRecord r{};
  r.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  r.value = 0xAB;
  r.bytes = 4096;
  r.start = 8'000'000;
  r.end = 8'000'800;
  r.deviceId = 0;
  r.contextId = 1;
  r.streamId = 7;
  r.correlationId = 60;
  r.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  return r;
}

ApiRecord apiRecord(CUpti_ActivityKind kind, std::uint32_t cbid) {
  ApiRecord r{};
  r.kind = kind;
  r.cbid = cbid;
  r.start = 4'000'000;
  r.end = 4'003'000;
  r.processId = 4242;
  r.threadId = 0xDEADBEEF;
  r.correlationId = 901;
  r.returnValue = 0;
  return r;
}

SyncRecord syncRecord() {
  SyncRecord r{};
  r.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  r.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT;
  r.start = 9'000'000;
  r.end = 9'500'000;
  r.correlationId = 70;
  r.contextId = 1;
  r.streamId = 7;
  r.cudaEventId = 5;
  return r;
}

ExternalCorrelationRecord externalRecord() {
  ExternalCorrelationRecord r{};
  r.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
  r.externalKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0;
  r.externalId = 1'234'567'890'123ull;
  r.correlationId = 901;
  return r;
}

OverheadRecord overheadRecord(CUpti_ActivityOverheadKind kind, CUpti_ActivityObjectKind object) {
  OverheadRecord r{};
  r.kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
  r.overheadKind = kind;
  r.objectKind = object;
  if (object == CUPTI_ACTIVITY_OBJECT_THREAD || object == CUPTI_ACTIVITY_OBJECT_PROCESS) {
    r.objectId.pt.processId = 4242;
    r.objectId.pt.threadId = 0xDEADBEEF;
  } else {
    r.objectId.dcs.deviceId = 2;
    r.objectId.dcs.contextId = 9;
    r.objectId.dcs.streamId = 31;
  }
  r.start = 3'000'000;
  r.end = 3'250'000;
  return r;
}

// Decodes `record` from a byte buffer, as CUPTI hands records over (never through the typed local itself).
template <typename Record> bool decodes(CuptiRecordDecoder& decoder, const Record& record, GpuActivity& out) {
  alignas(8) std::array<std::byte, sizeof(Record)> bytes;
  std::memcpy(bytes.data(), &record, sizeof(Record));
  return decoder.decode(*reinterpret_cast<const CUpti_Activity*>(bytes.data()), out);
}

template <typename Record> GpuActivity decoded(CuptiRecordDecoder& decoder, const Record& record) {
  GpuActivity out;
  if (!decodes(decoder, record, out)) {
    qFatal("decode refused a record it should decode");
  }
  return out;
}

// Enum values through Fathom's own names (QCOMPARE cannot print Fathom's enums).
template <typename Enum> QString str(Enum value) {
  return qs(toString(value));
}

}  // namespace
#endif

class TestCuptiRecords : public QObject {
  Q_OBJECT

private slots:
  void initTestCase() {
#if !FATHOM_CUPTI_TRACING
    QSKIP("built without the CUDA 12.0+ headers (FATHOM_WITH_CUDA off or cupti.h not found): no CUPTI records to "
          "decode");
#endif
  }

#if FATHOM_CUPTI_TRACING
  void kernel() {
    CuptiRecordDecoder decoder(namer, kOffset);
    const GpuActivity a = decoded(decoder, kernelRecord());
    QCOMPARE(str(a.kind), str(GpuActivityKind::Kernel));
    QCOMPARE(a.startNs, 5'000'000 - kOffset);
    QCOMPARE(a.endNs, 5'012'500 - kOffset);
    QCOMPARE(a.device, DeviceIndex{3});
    QCOMPARE(a.context, ContextId{11});
    QCOMPARE(a.stream, StreamId{27});
    QCOMPARE(a.correlation, CorrelationId{901});
    QCOMPARE(qs(a.name), u"fathomFill(float*, int)"_s);
    const KernelInfo* k = a.kernel();
    QVERIFY(k != nullptr);
    QCOMPARE(k->grid, (std::array<std::int32_t, 3>{132, 2, 1}));
    QCOMPARE(k->block, (std::array<std::int32_t, 3>{256, 1, 1}));
    QCOMPARE(k->registersPerThread, std::uint16_t(40));
    QCOMPARE(k->staticSharedMemory, 4096);
    QCOMPARE(k->dynamicSharedMemory, 49152);
    QCOMPARE(k->queuedNs, 4'990'000 - kOffset);
    // The serial KERNEL kind uses the same struct.
    KernelRecord serial = kernelRecord();
    serial.kind = CUPTI_ACTIVITY_KIND_KERNEL;
    QCOMPARE(str(decoded(decoder, serial).kind), str(GpuActivityKind::Kernel));
  }

  void kernelNames() {
    CuptiRecordDecoder decoder(namer);
    KernelRecord r = kernelRecord();
    r.name = "ncclDevKernel_AllReduce_Sum_f32_RING_LL";  // extern "C"-style: kept as is
    QCOMPARE(qs(decoded(decoder, r).name), u"ncclDevKernel_AllReduce_Sum_f32_RING_LL"_s);
    // A mangled NCCL kernel demangles into a name GpuTraceBuilder recognizes.
    r.name = "_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE";
    const std::string_view shown = decoded(decoder, r).name;
    QCOMPARE(qs(shown), u"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"_s);
    QVERIFY(isNcclKernelName(shown));
    // Interned: equal names share storage; the cache is keyed by pointer but checked by content.
    char reused[32] = "_Z10fathomFillPfi";
    r.name = reused;
    const std::string_view first = decoded(decoder, r).name;
    std::strcpy(reused, "_Z4stepv");
    const std::string_view second = decoded(decoder, r).name;
    QCOMPARE(qs(first), u"fathomFill(float*, int)"_s);
    QCOMPARE(qs(second), u"step()"_s);
    QCOMPARE(decoded(decoder, kernelRecord()).name.data(), first.data());
    r.name = nullptr;
    QCOMPARE(qs(decoded(decoder, r).name), u"<unnamed kernel>"_s);
  }

  void memcpy() {
    CuptiRecordDecoder decoder(namer, kOffset);
    const GpuActivity a = decoded(decoder, memcpyRecord());
    QCOMPARE(str(a.kind), str(GpuActivityKind::Memcpy));
    QCOMPARE(a.startNs, 7'000'000 - kOffset);
    QCOMPARE(a.endNs, 7'100'000 - kOffset);
    QCOMPARE(a.device, DeviceIndex{1});
    QCOMPARE(a.context, ContextId{2});
    QCOMPARE(a.stream, StreamId{14});
    QCOMPARE(a.correlation, CorrelationId{55});
    QCOMPARE(qs(a.name), u"Memcpy DtoH (Device -> Pinned)"_s);
    const MemcpyInfo* m = a.memcpy();
    QVERIFY(m != nullptr);
    QCOMPARE(str(m->copyKind), str(MemcpyKind::DtoH));
    QCOMPARE(str(m->srcKind), str(MemoryKind::Device));
    QCOMPARE(str(m->dstKind), str(MemoryKind::Pinned));
    QCOMPARE(m->bytes, std::uint64_t(1) << 20);
    QCOMPARE(m->runtimeCorrelation, CorrelationId{54});
    MemcpyRecord odd = memcpyRecord();
    odd.copyKind = 200;  // a kind newer than Fathom: Unknown, not out of bounds
    odd.srcKind = 99;
    QCOMPARE(qs(decoded(decoder, odd).name), u"Memcpy Unknown (Unknown -> Pinned)"_s);
  }

  void memset() {
    CuptiRecordDecoder decoder(namer, kOffset);
    const GpuActivity a = decoded(decoder, memsetRecord());
    QCOMPARE(str(a.kind), str(GpuActivityKind::Memset));
    QCOMPARE(a.startNs, 8'000'000 - kOffset);
    QCOMPARE(a.endNs, 8'000'800 - kOffset);
    QCOMPARE(a.device, DeviceIndex{0});
    QCOMPARE(a.context, ContextId{1});
    QCOMPARE(a.stream, StreamId{7});
    QCOMPARE(a.correlation, CorrelationId{60});
    QCOMPARE(qs(a.name), u"Memset (Device)"_s);
    const MemsetInfo* s = a.memset();
    QVERIFY(s != nullptr);
    QCOMPARE(s->bytes, std::uint64_t(4096));
    QCOMPARE(s->value, 0xABu);
    QCOMPARE(str(s->memoryKind), str(MemoryKind::Device));
  }

  void runtimeAndDriverCalls() {
    CuptiRecordDecoder decoder(namer, kOffset);
    const GpuActivity r =
        decoded(decoder, apiRecord(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000));
    QCOMPARE(str(r.kind), str(GpuActivityKind::Runtime));
    QCOMPARE(r.startNs, 4'000'000 - kOffset);
    QCOMPARE(r.endNs, 4'003'000 - kOffset);
    QCOMPARE(r.correlation, CorrelationId{901});
    QCOMPARE(qs(r.name), u"cudaLaunchKernel"_s);  // without CUPTI's "_v7000"
    const ApiInfo* info = r.api();
    QVERIFY(info != nullptr);
    QCOMPARE(info->cbid, std::uint32_t(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000));
    QCOMPARE(info->processId, 4242u);
    QCOMPARE(info->threadId, CuptiThreadId{0xDEADBEEF});
    QCOMPARE(info->returnValue, 0u);

    const GpuActivity d =
        decoded(decoder, apiRecord(CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel));
    QCOMPARE(str(d.kind), str(GpuActivityKind::Driver));
    QCOMPARE(qs(d.name), u"cuLaunchKernel"_s);
    ApiRecord copy = apiRecord(CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2);
    copy.returnValue = 700;  // CUDA_ERROR_ILLEGAL_ADDRESS
    const GpuActivity failed = decoded(decoder, copy);
    QCOMPARE(qs(failed.name), u"cuMemcpyHtoD_v2"_s);  // "_v2" is part of the function's name
    QCOMPARE(failed.api()->returnValue, 700u);
    // The same cbid means different functions in the two domains; unknown ones get a readable fallback.
    QCOMPARE(qs(decoded(decoder, apiRecord(CUPTI_ACTIVITY_KIND_RUNTIME, 9999)).name), u"cuda runtime api 9999"_s);
    QCOMPARE(qs(decoded(decoder, apiRecord(CUPTI_ACTIVITY_KIND_DRIVER, 9999)).name), u"cuda driver api 9999"_s);
  }

  void synchronization() {
    CuptiRecordDecoder decoder(namer, kOffset);
    const GpuActivity a = decoded(decoder, syncRecord());
    QCOMPARE(str(a.kind), str(GpuActivityKind::Synchronization));
    QCOMPARE(a.startNs, 9'000'000 - kOffset);
    QCOMPARE(a.endNs, 9'500'000 - kOffset);
    QCOMPARE(a.correlation, CorrelationId{70});
    QCOMPARE(a.context, ContextId{1});
    QCOMPARE(a.stream, StreamId{7});
    QCOMPARE(qs(a.name), u"Stream Wait Event"_s);
    QCOMPARE(str(a.sync()->syncKind), str(SyncKind::StreamWaitEvent));
    QCOMPARE(a.sync()->cudaEventId, 5u);
    SyncRecord context = syncRecord();
    context.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE;
    context.streamId = 0xFFFFFFFFu;  // CUPTI_SYNCHRONIZATION_INVALID_VALUE
    const GpuActivity c = decoded(decoder, context);
    QCOMPARE(c.stream, kNoStream);
    QCOMPARE(qs(c.name), u"Context Sync"_s);
  }

  void externalCorrelation() {
    CuptiRecordDecoder decoder(namer, kOffset);
    const GpuActivity a = decoded(decoder, externalRecord());
    QCOMPARE(str(a.kind), str(GpuActivityKind::ExternalCorrelation));
    QCOMPARE(a.correlation, CorrelationId{901});
    QCOMPARE(a.startNs, 0);  // no time of its own
    QCOMPARE(str(a.external()->externalKind), str(ExternalKind::Custom0));
    QCOMPARE(a.external()->externalId, ExternalId{1'234'567'890'123ull});
  }

  void overhead() {
    CuptiRecordDecoder decoder(namer, kOffset);
    const GpuActivity t =
        decoded(decoder, overheadRecord(CUPTI_ACTIVITY_OVERHEAD_CUPTI_INSTRUMENTATION, CUPTI_ACTIVITY_OBJECT_THREAD));
    QCOMPARE(str(t.kind), str(GpuActivityKind::Overhead));
    QCOMPARE(t.startNs, 3'000'000 - kOffset);
    QCOMPARE(t.endNs, 3'250'000 - kOffset);
    QCOMPARE(qs(t.name), u"Instrumentation"_s);
    QCOMPARE(str(t.overhead()->overheadKind), str(OverheadKind::CuptiInstrumentation));
    QCOMPARE(str(t.overhead()->object), str(OverheadObject::Thread));
    QCOMPARE(t.overhead()->processId, 4242u);
    QCOMPARE(t.overhead()->threadId, CuptiThreadId{0xDEADBEEF});
    const GpuActivity d =
        decoded(decoder, overheadRecord(CUPTI_ACTIVITY_OVERHEAD_DRIVER_COMPILER, CUPTI_ACTIVITY_OBJECT_STREAM));
    QCOMPARE(str(d.overhead()->object), str(OverheadObject::Stream));
    QCOMPARE(d.device, DeviceIndex{2});
    QCOMPARE(d.context, ContextId{9});
    QCOMPARE(d.stream, StreamId{31});
    QCOMPARE(d.overhead()->processId, 0u);
  }

  void overheadKinds_data() {
    QTest::addColumn<std::uint32_t>("raw");
    QTest::addColumn<int>("kind");
    QTest::newRow("unknown") << std::uint32_t(CUPTI_ACTIVITY_OVERHEAD_UNKNOWN) << int(OverheadKind::Unknown);
    QTest::newRow("compiler") << std::uint32_t(CUPTI_ACTIVITY_OVERHEAD_DRIVER_COMPILER)
                              << int(OverheadKind::DriverCompiler);
    QTest::newRow("flush") << std::uint32_t(CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH)
                           << int(OverheadKind::CuptiBufferFlush);
    QTest::newRow("instrumentation") << std::uint32_t(CUPTI_ACTIVITY_OVERHEAD_CUPTI_INSTRUMENTATION)
                                     << int(OverheadKind::CuptiInstrumentation);
    QTest::newRow("resource") << std::uint32_t(CUPTI_ACTIVITY_OVERHEAD_CUPTI_RESOURCE)
                              << int(OverheadKind::CuptiResource);
#if CUPTI_API_VERSION >= 130000
    QTest::newRow("module loading") << std::uint32_t(CUPTI_ACTIVITY_OVERHEAD_RUNTIME_TRIGGERED_MODULE_LOADING)
                                    << int(OverheadKind::RuntimeTriggeredModuleLoading);
    QTest::newRow("lazy loading") << std::uint32_t(CUPTI_ACTIVITY_OVERHEAD_LAZY_FUNCTION_LOADING)
                                  << int(OverheadKind::LazyFunctionLoading);
    QTest::newRow("command buffer") << std::uint32_t(CUPTI_ACTIVITY_OVERHEAD_COMMAND_BUFFER_FULL)
                                    << int(OverheadKind::CommandBufferFull);
    QTest::newRow("buffer request") << std::uint32_t(CUPTI_ACTIVITY_OVERHEAD_ACTIVITY_BUFFER_REQUEST)
                                    << int(OverheadKind::ActivityBufferRequest);
    QTest::newRow("uvm") << std::uint32_t(CUPTI_ACTIVITY_OVERHEAD_UVM_ACTIVITY_INIT)
                         << int(OverheadKind::UvmActivityInit);
#endif
    QTest::newRow("newer than Fathom") << std::uint32_t(42u << 16) << int(OverheadKind::Unknown);
  }
  void overheadKinds() {
    QFETCH(std::uint32_t, raw);
    QFETCH(int, kind);
    CuptiRecordDecoder decoder(namer);
    OverheadRecord r = overheadRecord(CUPTI_ACTIVITY_OVERHEAD_UNKNOWN, CUPTI_ACTIVITY_OBJECT_PROCESS);
    r.overheadKind = static_cast<CUpti_ActivityOverheadKind>(raw);
    QCOMPARE(int(decoded(decoder, r).overhead()->overheadKind), kind);
  }

  void enumsMirrorCupti() {
    // Fathom's enums keep CUPTI's order, so the decoder converts by value.
    QCOMPARE(int(MemcpyKind::HtoD), int(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD));
    QCOMPARE(int(MemcpyKind::DtoD), int(CUPTI_ACTIVITY_MEMCPY_KIND_DTOD));
    QCOMPARE(int(MemcpyKind::PtoP), int(CUPTI_ACTIVITY_MEMCPY_KIND_PTOP));
    QCOMPARE(int(MemoryKind::Pinned), int(CUPTI_ACTIVITY_MEMORY_KIND_PINNED));
    QCOMPARE(int(MemoryKind::ManagedStatic), int(CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC));
    QCOMPARE(int(SyncKind::ContextSynchronize), int(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE));
    QCOMPARE(int(ExternalKind::Custom0), int(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0));
    QCOMPARE(int(ExternalKind::Custom2), int(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2));
    QCOMPARE(int(OverheadObject::Stream), int(CUPTI_ACTIVITY_OBJECT_STREAM));
    QCOMPARE(kNoStream.value, std::uint32_t(CUPTI_SYNCHRONIZATION_INVALID_VALUE));
    // GpuTraceBuilder's list of noisy runtime calls, by name.
    const std::vector<std::uint32_t> noisy(noisyRuntimeCallbackIds().begin(), noisyRuntimeCallbackIds().end());
    const std::vector<std::uint32_t> expected = {CUPTI_RUNTIME_TRACE_CBID_cudaGetLastError_v3020,
                                                 CUPTI_RUNTIME_TRACE_CBID_cudaSetDevice_v3020,
                                                 CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020,
                                                 CUPTI_RUNTIME_TRACE_CBID_cudaEventCreate_v3020,
                                                 CUPTI_RUNTIME_TRACE_CBID_cudaEventCreateWithFlags_v3020,
                                                 CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020,
                                                 CUPTI_RUNTIME_TRACE_CBID_cudaEventDestroy_v3020};
    QCOMPARE(noisy, expected);
  }

  void timestampsAndUnknownKinds() {
    CuptiRecordDecoder decoder(namer, kOffset);
    KernelRecord r = kernelRecord();
    r.start = 0;  // "no timestamp" stays 0: not shifted into a plausible-looking negative time
    r.end = 0;
    r.queued = 0;
    const GpuActivity a = decoded(decoder, r);
    QCOMPARE(a.startNs, 0);
    QCOMPARE(a.endNs, 0);
    QCOMPARE(a.kernel()->queuedNs, 0);
    decoder.setClockOffset(-500);
    QCOMPARE(decoded(decoder, kernelRecord()).startNs, 5'000'500);

    CUpti_ActivityMarker2 marker{};
    marker.kind = CUPTI_ACTIVITY_KIND_MARKER;
    GpuActivity untouched;
    untouched.name = "sentinel";
    QVERIFY(!decodes(decoder, marker, untouched));
    QCOMPARE(qs(untouched.name), u"sentinel"_s);
  }

  void callbackVersionSuffix_data() {
    QTest::addColumn<QString>("raw");
    QTest::addColumn<QString>("name");
    QTest::newRow("runtime") << u"cudaLaunchKernel_v7000"_s << u"cudaLaunchKernel"_s;
    QTest::newRow("ptsz") << u"cudaLaunchKernel_ptsz_v7000"_s << u"cudaLaunchKernel_ptsz"_s;
    QTest::newRow("cuda 13") << u"__cudaLaunchKernel_v13000"_s << u"__cudaLaunchKernel"_s;
    QTest::newRow("driver _v2") << u"cuMemcpyHtoD_v2"_s << u"cuMemcpyHtoD_v2"_s;
    QTest::newRow("no suffix") << u"cuLaunchKernel"_s << u"cuLaunchKernel"_s;
    QTest::newRow("letters") << u"cudaFoo_v70a0"_s << u"cudaFoo_v70a0"_s;
    QTest::newRow("just suffix") << u"_v1234"_s << QString();
  }
  void callbackVersionSuffix() {
    QFETCH(QString, raw);
    QFETCH(QString, name);
    const QByteArray utf8 = raw.toUtf8();
    QCOMPARE(qs(stripCallbackVersion(std::string_view(utf8.constData(), std::size_t(utf8.size())))), name);
  }

  void libraryLoadErrors() {
    const CuptiLibrary missing = CuptiLibrary::load({"/nonexistent/libcupti.so.13"});
    QVERIFY(!missing.loaded());
    QVERIFY2(missing.error().starts_with("libcupti not found: /nonexistent/libcupti.so.13: cannot open shared object"),
             missing.error().c_str());
    const CuptiLibrary wrong = CuptiLibrary::load({"libm.so.6"});
    QVERIFY(!wrong.loaded());
    QVERIFY2(wrong.error().find(" lacks cuptiGetVersion, cuptiGetResultString,") != std::string::npos,
             wrong.error().c_str());
  }

  // --- the real libcupti, without a driver ---

  void bufferWalkedAsTheTracerWalksIt() {
    const CuptiLibrary& library = CuptiLibrary::instance();
    if (!library.loaded()) {
      QSKIP(qPrintable(u"no usable libcupti here: "_s + QString::fromStdString(library.error())));
    }
    // cuptiActivityGetNextRecord steps by the size of each kind's record in the library's own version: a buffer
    // laid out with the headers' structs is only meaningful for the library of the same version.
    if (library.version() != CUPTI_API_VERSION) {
      QSKIP(qPrintable(
          u"libcupti API version %1 differs from the headers' %2: record sizes may differ"_s.arg(library.version())
              .arg(CUPTI_API_VERSION)));
    }
    CuptiBufferPool pool;
    pool.configure(4096, 8192);
    std::size_t size = 0;
    std::uint8_t* buffer = pool.acquire(size);
    QVERIFY(buffer != nullptr);
    QCOMPARE(size, std::size_t(4096));
    std::size_t used = 0;
    const auto put = [&](const auto& record) {
      std::memcpy(buffer + used, &record, sizeof(record));
      used += sizeof(record);
    };
    put(externalRecord());
    put(apiRecord(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000));
    put(kernelRecord());
    put(memcpyRecord());
    put(memsetRecord());
    put(syncRecord());
    put(overheadRecord(CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH, CUPTI_ACTIVITY_OBJECT_THREAD));
    CUpti_ActivityMarker2 marker{};
    marker.kind = CUPTI_ACTIVITY_KIND_MARKER;
    put(marker);
    pool.complete(buffer, used, 3);

    const auto completed = pool.takeCompleted();
    QCOMPARE(completed.size(), std::size_t(1));
    QCOMPARE(completed[0].validBytes, used);
    CuptiRecordDecoder decoder(
        [&library](CUpti_CallbackDomain domain, std::uint32_t cbid) { return library.callbackName(domain, cbid); });
    std::vector<GpuActivity> out;
    const auto result = decoder.decodeBuffer(library, completed[0].data, completed[0].validBytes, out);
    pool.release(completed[0].data);
    QCOMPARE(int(result.status), int(CUPTI_SUCCESS));
    QCOMPARE(result.decoded, std::size_t(7));
    QCOMPARE(result.skipped, std::size_t(1));  // the marker
    QCOMPARE(out.size(), std::size_t(7));
    const std::vector<GpuActivityKind> kinds = {GpuActivityKind::ExternalCorrelation,
                                                GpuActivityKind::Runtime,
                                                GpuActivityKind::Kernel,
                                                GpuActivityKind::Memcpy,
                                                GpuActivityKind::Memset,
                                                GpuActivityKind::Synchronization,
                                                GpuActivityKind::Overhead};
    for (std::size_t i = 0; i < kinds.size(); ++i) {
      QCOMPARE(str(out[i].kind), str(kinds[i]));
    }
    QCOMPARE(qs(out[1].name), u"cudaLaunchKernel"_s);  // named by libcupti's cuptiGetCallbackName
    QCOMPARE(qs(out[2].name), u"fathomFill(float*, int)"_s);
    QCOMPARE(out[2].kernel()->grid[1], 2);
    QCOMPARE(out[3].memcpy()->runtimeCorrelation, CorrelationId{54});
    QCOMPARE(out[6].endNs - out[6].startNs, 250'000);
    const auto stats = pool.stats();
    QCOMPARE(stats.completed, 1u);
    QCOMPARE(stats.droppedRecords, 3u);
    QCOMPARE(stats.validBytes, std::uint64_t(used));
    // The buffer went back to the free list: the next request reuses it.
    std::size_t again = 0;
    QCOMPARE(pool.acquire(again), buffer);
    QCOMPARE(pool.stats().allocations, 1u);
    // An empty buffer ends the walk at once.
    QCOMPARE(decoder.decodeBuffer(library, buffer, 0, out).decoded, std::size_t(0));
  }

  void callbackNamesFromLibcupti() {
    const CuptiLibrary& library = CuptiLibrary::instance();
    if (!library.loaded()) {
      QSKIP(qPrintable(u"no usable libcupti here: "_s + QString::fromStdString(library.error())));
    }
    QCOMPARE(QString::fromUtf8(
                 library.callbackName(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000)),
             u"cudaLaunchKernel_v7000"_s);
    QCOMPARE(QString::fromUtf8(library.callbackName(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2)),
             u"cuMemsetD8_v2"_s);
    QCOMPARE(library.callbackName(CUPTI_CB_DOMAIN_RUNTIME_API, 0x7FFFFFF0u), nullptr);
    QVERIFY(library.versionText() == "13.0" || library.version() < 130000);
    QVERIFY2(library.describe(CUPTI_ERROR_NOT_INITIALIZED).starts_with("CUPTI_ERROR_NOT_INITIALIZED ("),
             library.describe(CUPTI_ERROR_NOT_INITIALIZED).c_str());
  }

  void clockCalibrationAgainstCuptiGetTimestamp() {
    const CuptiLibrary& library = CuptiLibrary::instance();
    if (!library.loaded()) {
      QSKIP(qPrintable(u"no usable libcupti here: "_s + QString::fromStdString(library.error())));
    }
    ClockCalibration calibration;
    try {
      calibration = library.calibrateClock(64);
    } catch (const fathom::ProfilerError& e) {
      QSKIP(qPrintable(u"cuptiGetTimestamp does not answer without a driver here: "_s + QString::fromUtf8(e.what())));
    }
    // Without a timestamp callback CUPTI's clock on Linux is CLOCK_REALTIME (cupti_activity.h); the profiler's is
    // CLOCK_MONOTONIC. Measure their difference independently, bracketed the same way.
    std::int64_t best = std::numeric_limits<std::int64_t>::max();
    std::int64_t expected = 0;
    for (int i = 0; i < 64; ++i) {
      const std::int64_t before = nowNs();
      const std::int64_t wall = fathom::unixNowNs();
      const std::int64_t after = nowNs();
      if (after - before < best) {
        best = after - before;
        expected = wall - (before + (after - before) / 2);
      }
    }
    QVERIFY2(calibration.uncertaintyNs >= 0 && calibration.uncertaintyNs < 1'000'000,
             qPrintable(QString::number(calibration.uncertaintyNs)));
    const std::int64_t error = calibration.offsetNs - expected;
    QVERIFY2(std::abs(error) < 1'000'000 + calibration.uncertaintyNs,
             qPrintable(u"offset %1 vs CLOCK_REALTIME - CLOCK_MONOTONIC %2"_s.arg(calibration.offsetNs).arg(expected)));
    // A CUPTI timestamp taken now, moved by the offset, lands between two profiler-clock reads.
    const std::int64_t before = nowNs();
    std::uint64_t cupti = 0;
    library.check(library.getTimestamp(&cupti), "cuptiGetTimestamp");
    const std::int64_t after = nowNs();
    const std::int64_t converted = static_cast<std::int64_t>(cupti) - calibration.offsetNs;
    const std::int64_t slack = calibration.uncertaintyNs + 100'000;
    QVERIFY2(converted >= before - slack && converted <= after + slack,
             qPrintable(u"%1 not in [%2, %3]"_s.arg(converted).arg(before).arg(after)));
  }
#endif
};

QTEST_GUILESS_MAIN(TestCuptiRecords)
#include "tst_cupti_records.moc"
