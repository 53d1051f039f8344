// SPDX-License-Identifier: Apache-2.0
// fathom::profile::CuptiTracer: on a machine without a CUDA driver or device, probe() says precisely why and start()
// reports it as a ProfilerError; options are checked; external id push/pop are cheap no-ops without a running
// tracer; the buffer pool the tracer hands to CUPTI (cap, refusals, reuse). On a machine with a CUDA device,
// gpuCapture* really launch work through the driver API (a memset, a PTX kernel, a copy) and check the records,
// their timestamps on the profiler clock, and that GpuTraceBuilder links every kernel to its launch and CPU op.
#include "gpu_trace_test_support.h"

#include "common/dynamic_library.h"
#include "profile/cupti/cupti_buffer_pool.h"

#include <fathom/common/error.h>
#include <fathom/profile/clock.h>
#include <fathom/profile/cupti/cupti_tracer.h>
#include <fathom/profile/cupti/gpu_trace_builder.h>
#include <fathom/trace/trace_event.h>

#include <QTest>

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <numeric>
#include <vector>

using namespace fathom::profile;
using namespace fathom::trace;
using namespace gpu_test;
using namespace Qt::StringLiterals;

namespace {

template <typename E, typename F> QString errorOf(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return QString::fromUtf8(e.what());
  }
  return u"(no exception)"_s;
}

// What probe() should say on a machine without libcuda.so.1, worked out here independently of the tracer.
QString expectedReasonWithoutDriver() {
  using GetVersion = int (*)(std::uint32_t*);
  const auto cupti = fathom::detail::DynamicLibrary::openFirst(
      fathom::detail::cudaLibraryCandidates("libcupti.so", {"13", "12", "11"}));
  if (!cupti.loaded()) {
    return u"libcupti not found: "_s + QString::fromStdString(cupti.error());
  }
  std::uint32_t version = 0;
  cupti.symbol<GetVersion>("cuptiGetVersion")(&version);
  const QString text =
      version >= 130000 ? u"%1.%2"_s.arg(version / 10000).arg((version / 100) % 100) : u"API %1"_s.arg(version);
  const auto driver = fathom::detail::DynamicLibrary::openFirst({"libcuda.so.1"});
  return u"CUPTI %1 loaded but no CUDA driver (%2)"_s.arg(text, QString::fromStdString(driver.error()));
}

bool driverPresent() {
  void* handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (handle != nullptr) {
    dlclose(handle);
  }
  return handle != nullptr;
}

// The CUDA driver API through dlopen, with its C ABI declared by hand (this test needs no CUDA headers).
struct Driver {
  using CUresult = int;
  using CUdeviceptr = unsigned long long;
  fathom::detail::DynamicLibrary lib = fathom::detail::DynamicLibrary::openFirst({"libcuda.so.1"});
  CUresult (*init)(unsigned) = lib.symbol<CUresult (*)(unsigned)>("cuInit");
  CUresult (*deviceGet)(int*, int) = lib.symbol<CUresult (*)(int*, int)>("cuDeviceGet");
  CUresult (*retain)(void**, int) = lib.symbol<CUresult (*)(void**, int)>("cuDevicePrimaryCtxRetain");
  CUresult (*release)(int) = lib.symbol<CUresult (*)(int)>("cuDevicePrimaryCtxRelease_v2");
  CUresult (*setCurrent)(void*) = lib.symbol<CUresult (*)(void*)>("cuCtxSetCurrent");
  CUresult (*synchronize)() = lib.symbol<CUresult (*)()>("cuCtxSynchronize");
  CUresult (*alloc)(CUdeviceptr*, std::size_t) = lib.symbol<CUresult (*)(CUdeviceptr*, std::size_t)>("cuMemAlloc_v2");
  CUresult (*free)(CUdeviceptr) = lib.symbol<CUresult (*)(CUdeviceptr)>("cuMemFree_v2");
  CUresult (*memsetD8)(CUdeviceptr, unsigned char, std::size_t) =
      lib.symbol<CUresult (*)(CUdeviceptr, unsigned char, std::size_t)>("cuMemsetD8_v2");
  CUresult (*copyDtoH)(void*, CUdeviceptr,
                       std::size_t) = lib.symbol<CUresult (*)(void*, CUdeviceptr, std::size_t)>("cuMemcpyDtoH_v2");
  CUresult (*loadModule)(void**, const void*) = lib.symbol<CUresult (*)(void**, const void*)>("cuModuleLoadData");
  CUresult (*unloadModule)(void*) = lib.symbol<CUresult (*)(void*)>("cuModuleUnload");
  CUresult (*getFunction)(void**, void*,
                          const char*) = lib.symbol<CUresult (*)(void**, void*, const char*)>("cuModuleGetFunction");
  CUresult (*launch)(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void*, void**,
                     void**) = lib.symbol<CUresult (*)(void*, unsigned, unsigned, unsigned, unsigned, unsigned,
                                                       unsigned, unsigned, void*, void**, void**)>("cuLaunchKernel");
};

// out[i] = i for i < n. Hand-written PTX (what nvcc -ptx emits for the one-line kernel), JIT-compiled by the driver
// for whatever GPU runs the test.
constexpr const char* kFillPtx = R"(.version 7.0
.target sm_50
.address_size 64
.visible .entry fathom_fill(.param .u64 out, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r2, [n];
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mov.u32 %r5, %tid.x;
  mad.lo.s32 %r1, %r3, %r4, %r5;
  setp.ge.u32 %p1, %r1, %r2;
  @%p1 bra DONE;
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r1;
DONE:
  ret;
}
)";

constexpr std::uint64_t kExternalId = 4'242'001;
constexpr std::size_t kMemsetBytes = std::size_t{1} << 20;
constexpr unsigned kElements = 1024;

// Runs a memset, the fill kernel and a copy back on device 0 inside one pushed external id. Returns the host copy.
std::vector<std::uint32_t> launchWork(Driver& cu) {
#define FATHOM_CU(call)                                                                                                \
  do {                                                                                                                 \
    const int rc = (call);                                                                                             \
    if (rc != 0) {                                                                                                     \
      qFatal("%s failed: CUresult %d", #call, rc);                                                                     \
    }                                                                                                                  \
  } while (false)
  FATHOM_CU(cu.init(0));
  int device = 0;
  FATHOM_CU(cu.deviceGet(&device, 0));
  void* context = nullptr;
  FATHOM_CU(cu.retain(&context, device));
  FATHOM_CU(cu.setCurrent(context));
  void* module = nullptr;
  FATHOM_CU(cu.loadModule(&module, kFillPtx));
  void* fill = nullptr;
  FATHOM_CU(cu.getFunction(&fill, module, "fathom_fill"));
  Driver::CUdeviceptr buffer = 0;
  FATHOM_CU(cu.alloc(&buffer, kMemsetBytes));

  CuptiTracer::pushExternalId(kExternalId);
  FATHOM_CU(cu.memsetD8(buffer, 0x5A, kMemsetBytes));
  unsigned n = kElements;
  void* params[] = {&buffer, &n};
  FATHOM_CU(cu.launch(fill, kElements / 256, 1, 1, 256, 1, 1, 0, nullptr, params, nullptr));
  std::vector<std::uint32_t> host(kElements + 1, 0);
  FATHOM_CU(cu.copyDtoH(host.data(), buffer, host.size() * sizeof(std::uint32_t)));
  CuptiTracer::popExternalId();

  FATHOM_CU(cu.synchronize());
  FATHOM_CU(cu.free(buffer));
  FATHOM_CU(cu.unloadModule(module));
  FATHOM_CU(cu.release(device));
#undef FATHOM_CU
  return host;
}

const GpuActivity* findFirst(const std::vector<GpuActivity>& acts, GpuActivityKind kind) {
  const auto it = std::find_if(acts.begin(), acts.end(), [&](const GpuActivity& a) { return a.kind == kind; });
  return it == acts.end() ? nullptr : &*it;
}

}  // namespace

class TestCuptiTracer : public QObject {
  Q_OBJECT

private slots:
  void probeSaysWhyNot() {
    const CuptiAvailability availability = CuptiTracer::probe();
    qInfo("probe: available=%d reason=\"%s\" cupti=%s (%u) driver=%d devices=%zu", availability.available,
          availability.reason.c_str(), availability.cuptiLibrary.c_str(), availability.cuptiVersion,
          availability.driverVersion, availability.devices.size());
    if (availability.available) {
      QVERIFY(availability.reason.empty());
      QVERIFY(!availability.devices.empty());
      for (const DeviceProperties& device : availability.devices) {
        QVERIFY(!device.name.empty());
        QVERIFY(device.numSms > 0);
        QVERIFY(device.computeMajor > 0);
        QCOMPARE(device.warpSize, 32);
        QVERIFY(device.totalGlobalMem > 0);
      }
      return;
    }
    QVERIFY(!availability.reason.empty());
    QVERIFY(availability.devices.empty());
    const QString reason = QString::fromStdString(availability.reason);
    if (reason.startsWith(u"built without the CUDA headers"_s)) {
      return;  // a build without FATHOM_WITH_CUDA: nothing else to check
    }
    if (!driverPresent()) {
      QCOMPARE(reason, expectedReasonWithoutDriver());
    } else {
      QVERIFY2(reason.startsWith(u"no CUDA device ("_s) || reason.startsWith(u"the CUDA driver "_s),
               qPrintable(reason));
    }
  }

  void startReportsUnavailability() {
    const CuptiAvailability availability = CuptiTracer::probe();
    if (availability.available) {
      QSKIP("a CUDA device is present: gpuCapture covers start()");
    }
    CuptiTracer tracer;  // constructing never touches CUPTI
    QCOMPARE(errorOf<fathom::ProfilerError>([&] { tracer.start(); }),
             u"GPU tracing unavailable: "_s + QString::fromStdString(availability.reason));
    QVERIFY(!tracer.running());
    tracer.flush();  // all harmless on a tracer that never ran
    tracer.stop();
    QVERIFY(tracer.drain().empty());
    const CuptiTracerStats stats = tracer.stats();
    QCOMPARE(stats.buffersRequested, 0u);
    QCOMPARE(stats.records, 0u);
    QVERIFY(!stats.timestampCallback);
  }

  void optionsAreChecked() {
    CuptiTracerOptions zero;
    zero.bufferBytes = 0;
    QCOMPARE(errorOf<fathom::ConfigError>([&] { CuptiTracer tracer(zero); }),
             u"CUPTI bufferBytes must be a positive multiple of 8, got 0"_s);
    CuptiTracerOptions odd;
    odd.bufferBytes = 1001;
    QCOMPARE(errorOf<fathom::ConfigError>([&] { CuptiTracer tracer(odd); }),
             u"CUPTI bufferBytes must be a positive multiple of 8, got 1001"_s);
    CuptiTracerOptions small;
    small.bufferBytes = 1 << 20;
    small.maxBufferBytes = 1 << 19;
    QCOMPARE(errorOf<fathom::ConfigError>([&] { CuptiTracer tracer(small); }),
             u"CUPTI maxBufferBytes (524288) must be >= bufferBytes (1048576)"_s);
    CuptiTracerOptions tries;
    tries.clockCalibrationTries = 0;
    QCOMPARE(errorOf<fathom::ConfigError>([&] { CuptiTracer tracer(tries); }),
             u"CUPTI clockCalibrationTries must be in [1, 100000], got 0"_s);
    const CuptiTracer defaults;
    QCOMPARE(defaults.options().bufferBytes, std::size_t{4} << 20);
    QCOMPARE(defaults.options().maxBufferBytes, std::size_t{256} << 20);
    QVERIFY(defaults.options().kinds.kernel && defaults.options().kinds.overhead);
  }

  void externalIdsWithoutTracerAreCheapNoOps() {
    if (CuptiTracer::probe().available) {
      QSKIP("a CUDA device is present: the no-op path is measured where no tracer can run");
    }
    // Unbalanced pops and deep nesting are harmless.
    CuptiTracer::popExternalId();
    for (std::uint64_t i = 0; i < 200; ++i) {
      CuptiTracer::pushExternalId(i);
    }
    for (int i = 0; i < 201; ++i) {
      CuptiTracer::popExternalId();
    }
    QVERIFY(CuptiTracer::threadMap().empty());  // nothing reached CUPTI, so no thread registered
    constexpr int kPairs = 1'000'000;
    const auto begin = std::chrono::steady_clock::now();
    for (int i = 0; i < kPairs; ++i) {
      CuptiTracer::pushExternalId(static_cast<std::uint64_t>(i));
      CuptiTracer::popExternalId();
    }
    const double ns =
        double(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - begin).count()) /
        kPairs;
    qInfo("push+pop without a tracer: %.2f ns per pair", ns);
    // A few ns on an idle core; the bound leaves room for a loaded CI machine and still catches a lock or a
    // CUPTI call sneaking into the no-op path. Unoptimized or instrumented code is slower (208 ns under asan).
#if !defined(__OPTIMIZE__) || defined(__SANITIZE_ADDRESS__)
    QSKIP("the 100 ns bound applies to optimized builds without sanitizers (the number is reported above)");
#endif
    QVERIFY2(ns < 100.0, qPrintable(QString::number(ns)));
  }

  void bufferPoolCapsAndRecycles() {
    fathom::profile::detail::CuptiBufferPool pool;
    pool.configure(64, 192);
    std::size_t size = 0;
    std::uint8_t* a = pool.acquire(size);
    QCOMPARE(size, std::size_t(64));
    QCOMPARE(reinterpret_cast<std::uintptr_t>(a) % fathom::profile::detail::CuptiBufferPool::kAlignment, 0u);
    std::uint8_t* b = pool.acquire(size);
    std::uint8_t* c = pool.acquire(size);
    QVERIFY(a && b && c && a != b && b != c);
    QCOMPARE(pool.acquire(size), nullptr);  // 3 x 64 = the cap
    QCOMPARE(size, std::size_t(0));
    pool.complete(b, 0, 0);  // empty: straight back to the free list
    QCOMPARE(pool.acquire(size), b);
    int foreign = 0;
    pool.complete(reinterpret_cast<std::uint8_t*>(&foreign), 8, 0);
    pool.complete(c, 40, 2);
    pool.complete(a, 64, 1);
    const auto done = pool.takeCompleted();
    QCOMPARE(done.size(), std::size_t(2));
    QCOMPARE(done[0].data, c);  // in completion order
    QCOMPARE(done[0].validBytes, std::size_t(40));
    QCOMPARE(done[1].data, a);
    QVERIFY(pool.takeCompleted().empty());
    auto stats = pool.stats();
    QCOMPARE(stats.requested, 5u);
    QCOMPARE(stats.refused, 1u);
    QCOMPARE(stats.completed, 3u);
    QCOMPARE(stats.foreign, 1u);
    QCOMPARE(stats.allocations, 3u);
    QCOMPARE(stats.validBytes, 104u);
    QCOMPARE(stats.droppedRecords, 3u);
    QCOMPARE(stats.allocatedBytes, 192u);
    QCOMPARE(stats.peakAllocatedBytes, 192u);
    pool.release(c);
    QCOMPARE(pool.acquire(size), c);  // recycled, not allocated
    QCOMPARE(pool.stats().allocations, 3u);
    // A new buffer size: free buffers of the old size go; one still out goes when it comes back.
    pool.release(a);
    pool.configure(128, 1024);
    QCOMPARE(pool.stats().allocatedBytes, 128u);  // b and c are still out (64 each)
    pool.complete(b, 0, 0);
    QCOMPARE(pool.stats().allocatedBytes, 64u);
    pool.release(c);
    QCOMPARE(pool.stats().allocatedBytes, 0u);
    std::uint8_t* big = pool.acquire(size);
    QVERIFY(big != nullptr);
    QCOMPARE(size, std::size_t(128));
    QCOMPARE(pool.stats().allocations, 4u);
    pool.resetStats();
    stats = pool.stats();
    QCOMPARE(stats.requested, 0u);
    QCOMPARE(stats.allocatedBytes, 128u);
    QCOMPARE(stats.peakAllocatedBytes, 128u);
  }

  void gpuCaptureWithCalibratedClock() {
    const CuptiAvailability availability = CuptiTracer::probe();
    if (!availability.available) {
      QSKIP(qPrintable(u"no CUDA device to capture on: "_s + QString::fromStdString(availability.reason)));
    }
    CuptiTracerOptions options;
    options.useTimestampCallback = false;  // the fallback: an offset calibrated against cuptiGetTimestamp
    CuptiTracer tracer(options);
    tracer.start();
    Driver cu;
    const std::int64_t before = nowNs();
    launchWork(cu);
    const std::int64_t after = nowNs();
    tracer.stop();
    const std::vector<GpuActivity> acts = tracer.drain();
    const CuptiTracerStats stats = tracer.stats();
    qInfo("calibrated clock: offset %lld ns, uncertainty %lld ns", static_cast<long long>(stats.clockOffsetNs),
          static_cast<long long>(stats.clockUncertaintyNs));
    QVERIFY(!stats.timestampCallback);
    const GpuActivity* set = findFirst(acts, GpuActivityKind::Memset);
    QVERIFY(set != nullptr);
    const std::int64_t slack = stats.clockUncertaintyNs + 50'000;  // + CUPTI's GPU->CPU interpolation
    QVERIFY2(
        set->startNs >= before - slack && set->endNs <= after + slack,
        qPrintable(u"memset [%1, %2] outside [%3, %4]"_s.arg(set->startNs).arg(set->endNs).arg(before).arg(after)));
  }

  void gpuCapture() {
    const CuptiAvailability availability = CuptiTracer::probe();
    if (!availability.available) {
      QSKIP(qPrintable(u"no CUDA device to capture on: "_s + QString::fromStdString(availability.reason)));
    }
    CuptiTracer tracer;
    tracer.start();
    QVERIFY(tracer.running());
    CuptiTracer second;
    QCOMPARE(errorOf<fathom::ProfilerError>([&] { second.start(); }),
             u"another CuptiTracer is already running in this process"_s);
    Driver cu;
    const std::int64_t before = nowNs();
    const std::vector<std::uint32_t> host = launchWork(cu);
    const std::int64_t after = nowNs();
    tracer.stop();
    QVERIFY(!tracer.running());
    const std::vector<GpuActivity> acts = tracer.drain();
    const CuptiTracerStats stats = tracer.stats();

    // The work itself ran.
    for (unsigned i = 0; i < kElements; ++i) {
      QCOMPARE(host[i], i);
    }
    QCOMPARE(host[kElements], 0x5A5A5A5Au);  // past the kernel's range: the memset's bytes

    // Records: the memset, the kernel and the copy, on the profiler clock, between the two reads around the work.
    const GpuActivity* set = findFirst(acts, GpuActivityKind::Memset);
    const GpuActivity* kernel = findFirst(acts, GpuActivityKind::Kernel);
    const GpuActivity* copy = findFirst(acts, GpuActivityKind::Memcpy);
    QVERIFY(set && kernel && copy);
    QCOMPARE(set->memset()->bytes, std::uint64_t(kMemsetBytes));
    QCOMPARE(set->memset()->value, 0x5Au);
    QCOMPARE(std::string(kernel->name), std::string("fathom_fill"));
    QCOMPARE(kernel->kernel()->grid, (std::array<std::int32_t, 3>{int(kElements / 256), 1, 1}));
    QCOMPARE(kernel->kernel()->block, (std::array<std::int32_t, 3>{256, 1, 1}));
    QCOMPARE(copy->memcpy()->bytes, std::uint64_t((kElements + 1) * sizeof(std::uint32_t)));
    QVERIFY(copy->memcpy()->copyKind == MemcpyKind::DtoH);
    for (const GpuActivity* a : {set, kernel, copy}) {
      QVERIFY2(
          a->startNs >= before && a->startNs <= a->endNs && a->endNs <= after,
          qPrintable(u"%1 [%2, %3] outside [%4, %5]"_s.arg(QString::fromUtf8(a->name.data(), qsizetype(a->name.size())))
                         .arg(a->startNs)
                         .arg(a->endNs)
                         .arg(before)
                         .arg(after)));
    }
    QVERIFY(set->endNs <= kernel->startNs && kernel->endNs <= copy->startNs);  // one stream: in order

    // The driver calls ran on this thread: CUPTI's thread id is what currentCuptiThreadId() computes.
    const auto launch = std::find_if(acts.begin(), acts.end(), [&](const GpuActivity& a) {
      return a.kind == GpuActivityKind::Driver && a.correlation == kernel->correlation;
    });
    QVERIFY(launch != acts.end());
    QCOMPARE(launch->api()->threadId, currentCuptiThreadId());
    QCOMPARE(launch->api()->processId, std::uint32_t(getpid()));
    QVERIFY(launch->startNs <= kernel->startNs);
    const CuptiThreadMap threads = CuptiTracer::threadMap();
    QCOMPARE(threads.count(currentCuptiThreadId()), std::size_t(1));
    QCOMPARE(threads.at(currentCuptiThreadId()), currentOsThreadId());

    // Linked end to end by the builder: every kernel to its launch and to the pushed external id.
    const CpuLaunchContext op{std::uint32_t(getpid()), currentOsThreadId(), "test op", std::nullopt};
    GpuTraceBuilder builder;
    builder.setDevices(availability.devices);
    builder.setThreadMap(threads);
    builder.setLaunchLookup([&op](ExternalId id) { return id == ExternalId{kExternalId} ? &op : nullptr; });
    builder.add(acts);
    RecordingSink sink;
    const GpuTraceStats linked = builder.build(sink.sink());
    qInfo("capture: %zu records, %llu kernels (%llu linked to a launch, %llu to a CPU op), %llu flows, "
          "CUPTI overhead %lld ns in %llu records, Fathom callbacks %lld ns, decoding %lld ns, %llu buffers, "
          "timestamp callback %d",
          acts.size(), static_cast<unsigned long long>(linked.kernels),
          static_cast<unsigned long long>(linked.kernelsLinkedToLaunch),
          static_cast<unsigned long long>(linked.kernelsLinkedToCpuOp), static_cast<unsigned long long>(linked.flows),
          static_cast<long long>(linked.overheadNs), static_cast<unsigned long long>(linked.overheadRecords),
          static_cast<long long>(stats.callbackNs), static_cast<long long>(stats.decodeNs),
          static_cast<unsigned long long>(stats.buffersCompleted), stats.timestampCallback);
    QVERIFY(linked.kernels > 0);
    QVERIFY(linked.allKernelsLinked());
    QCOMPARE(linked.kernelsLinkedToCpuOp, linked.kernels);
    QCOMPARE(linked.memoryOpsLinkedToLaunch, linked.memcpys + linked.memsets);
    QVERIFY(linked.flows >= 3);
    QCOMPARE(linked.unmappedThreads, 0u);
    QCOMPARE(linked.threadMapConflicts, 0u);
    QCOMPARE(linked.gpuBeforeLaunch, 0u);
    QVERIFY(!sink.withCategory(u"kernel"_s).isEmpty());

    // The tracer's own accounting.
    QVERIFY(stats.timestampCallback);
    QCOMPARE(stats.clockOffsetNs, 0);
    QCOMPARE(stats.records, std::uint64_t(acts.size()));
    QVERIFY(stats.buffersCompleted >= 1);
    QCOMPARE(stats.recordsDropped, 0u);
    QCOMPARE(stats.buffersRefused, 0u);
    QVERIFY(stats.callbackNs > 0);
    QCOMPARE(stats.cuptiOverheadNs, linked.overheadNs);
  }
};

QTEST_GUILESS_MAIN(TestCuptiTracer)
#include "tst_cupti_tracer.moc"
