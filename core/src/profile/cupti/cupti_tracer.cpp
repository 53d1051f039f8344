// SPDX-License-Identifier: Apache-2.0
#include "fathom/profile/cupti/cupti_tracer.h"

#include "profile/cupti/cupti_buffer_pool.h"
#include "profile/cupti/cupti_headers.h"

#if FATHOM_CUPTI_TRACING
#include "profile/cupti/cuda_driver.h"
#include "profile/cupti/cupti_library.h"
#include "profile/cupti/cupti_record_decoder.h"
#endif

#include <fathom/common/error.h>
#include <fathom/profile/clock.h>

#include <atomic>
#include <mutex>
#include <utility>

namespace fathom::profile {

namespace {

#if !FATHOM_CUPTI_TRACING
constexpr const char* kBuiltWithout =
    "built without the CUDA headers (FATHOM_WITH_CUDA was OFF, or the cupti.h/cuda.h/nccl.h of CUDA 12.0 or later "
    "were not found at configure time)";
#endif

// CUPTI's buffer callbacks are process-wide, and may run after a tracer is gone (a late flush at exit): the pool
// they use lives for the whole process.
detail::CuptiBufferPool& bufferPool() {
  static auto* pool = new detail::CuptiBufferPool;  // intentionally leaked
  return *pool;
}
std::atomic<std::int64_t> g_callbackNs{0};

// The running tracer (at most one: CUPTI's activity state is process-wide), and the last one started: the pool's
// counters belong to it.
std::atomic<const void*> g_owner{nullptr};
std::atomic<const void*> g_lastStarted{nullptr};

// Threads that pushed an external id since the last start(): CUPTI thread id -> OS thread id.
struct ThreadRegistry {
  std::mutex mutex;
  CuptiThreadMap map;
};
ThreadRegistry& threadRegistry() {
  static auto* registry = new ThreadRegistry;  // intentionally leaked: threads may push during exit
  return *registry;
}
std::atomic<std::uint64_t> g_session{1};

// Per thread: which pushes of the current nesting reached CUPTI, so a pop undoes exactly what its push did even
// when a tracer started or stopped in between. Depths below 64 live in a bit mask (no allocation on the hot path);
// deeper ones, which ATen nesting practically never reaches, in a vector.
struct PushStack {
  std::uint32_t depth = 0;
  std::uint64_t reachedBits = 0;
  std::vector<std::uint32_t> deepReached;
};
thread_local PushStack t_pushStack;
thread_local std::uint64_t t_registeredSession = 0;

void registerThread() {
  const std::uint64_t session = g_session.load(std::memory_order_relaxed);
  if (t_registeredSession == session) {
    return;
  }
  t_registeredSession = session;
  auto& registry = threadRegistry();
  std::lock_guard lock(registry.mutex);
  registry.map[currentCuptiThreadId()] = currentOsThreadId();
}

#if FATHOM_CUPTI_TRACING
using PushFn = decltype(&::cuptiActivityPushExternalCorrelationId);
using PopFn = decltype(&::cuptiActivityPopExternalCorrelationId);
std::atomic<PushFn> g_push{nullptr};  // set while a tracer with external correlation runs
std::atomic<PopFn> g_pop{nullptr};    // set at the first start, never cleared (the library is never unloaded)

void CUPTIAPI onBufferRequested(std::uint8_t** buffer, std::size_t* size, std::size_t* maxNumRecords) {
  const std::int64_t begin = nowNs();
  *maxNumRecords = 0;  // as many records as fit
  *buffer = bufferPool().acquire(*size);
  g_callbackNs.fetch_add(nowNs() - begin, std::memory_order_relaxed);
}

void CUPTIAPI onBufferCompleted(CUcontext context, std::uint32_t streamId, std::uint8_t* buffer, std::size_t,
                                std::size_t validSize) {
  const std::int64_t begin = nowNs();
  std::size_t dropped = 0;
  const auto& library = detail::CuptiLibrary::instance();
  if (library.activityGetNumDroppedRecords(context, streamId, &dropped) != CUPTI_SUCCESS) {
    dropped = 0;
  }
  bufferPool().complete(buffer, validSize, dropped);
  g_callbackNs.fetch_add(nowNs() - begin, std::memory_order_relaxed);
}

std::uint64_t CUPTIAPI profilerTimestamp() {
  return static_cast<std::uint64_t>(nowNs());
}

struct KindSwitch {
  CUpti_ActivityKind kind;
  bool CuptiActivityKinds::*selected;
  const char* name;
};
constexpr KindSwitch kKinds[] = {
    {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, &CuptiActivityKinds::kernel, "CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL"},
    {CUPTI_ACTIVITY_KIND_MEMCPY, &CuptiActivityKinds::memcpy, "CUPTI_ACTIVITY_KIND_MEMCPY"},
    {CUPTI_ACTIVITY_KIND_MEMSET, &CuptiActivityKinds::memset, "CUPTI_ACTIVITY_KIND_MEMSET"},
    {CUPTI_ACTIVITY_KIND_RUNTIME, &CuptiActivityKinds::runtime, "CUPTI_ACTIVITY_KIND_RUNTIME"},
    {CUPTI_ACTIVITY_KIND_DRIVER, &CuptiActivityKinds::driver, "CUPTI_ACTIVITY_KIND_DRIVER"},
    {CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, &CuptiActivityKinds::synchronization, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"},
    {CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, &CuptiActivityKinds::externalCorrelation,
     "CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION"},
    {CUPTI_ACTIVITY_KIND_OVERHEAD, &CuptiActivityKinds::overhead, "CUPTI_ACTIVITY_KIND_OVERHEAD"},
};
#endif

}  // namespace

struct CuptiTracer::Impl {
  explicit Impl(CuptiTracerOptions opts) : options(std::move(opts)) {}

  CuptiTracerOptions options;
  mutable std::mutex control;  // start/stop/flush/drain/stats; never taken by CUPTI's callbacks
  bool running = false;
  CuptiTracerStats own;  // the counters the pool does not keep
#if FATHOM_CUPTI_TRACING
  detail::CuptiRecordDecoder decoder{[](CUpti_CallbackDomain domain, std::uint32_t cbid) {
    return detail::CuptiLibrary::instance().callbackName(domain, cbid);
  }};
  std::vector<const KindSwitch*> enabled;

  void begin();
  void disableAll(const detail::CuptiLibrary& library, std::string* errors);
#endif
};

CuptiTracer::CuptiTracer(CuptiTracerOptions options) {
  FATHOM_CHECK(options.bufferBytes > 0 && options.bufferBytes % detail::CuptiBufferPool::kAlignment == 0, ConfigError,
               "CUPTI bufferBytes must be a positive multiple of ", detail::CuptiBufferPool::kAlignment, ", got ",
               options.bufferBytes);
  FATHOM_CHECK(options.maxBufferBytes >= options.bufferBytes, ConfigError, "CUPTI maxBufferBytes (",
               options.maxBufferBytes, ") must be >= bufferBytes (", options.bufferBytes, ")");
  FATHOM_CHECK(options.clockCalibrationTries >= 1 && options.clockCalibrationTries <= 100000, ConfigError,
               "CUPTI clockCalibrationTries must be in [1, 100000], got ", options.clockCalibrationTries);
  m_impl = std::make_unique<Impl>(std::move(options));
}

CuptiTracer::~CuptiTracer() {
  try {
    stop();
  } catch (...) {  // NOLINT(bugprone-empty-catch): a destructor must not throw; stop() reports errors to callers
  }
  const void* self = m_impl.get();
  g_lastStarted.compare_exchange_strong(self, nullptr);  // a later tracer at this address must not inherit counters
}

const CuptiTracerOptions& CuptiTracer::options() const {
  return m_impl->options;
}

bool CuptiTracer::running() const {
  std::lock_guard lock(m_impl->control);
  return m_impl->running;
}

CuptiAvailability CuptiTracer::probe() {
  CuptiAvailability availability;
#if !FATHOM_CUPTI_TRACING
  availability.reason = kBuiltWithout;
#else
  const auto& library = detail::CuptiLibrary::instance();
  availability.cuptiLibrary = library.path();
  availability.cuptiVersion = library.version();
  if (!library.loaded()) {
    availability.reason = library.error();
    return availability;
  }
  const auto driver = detail::CudaDriver::open();
  availability.driverVersion = driver.version();
  switch (driver.state()) {
  case detail::CudaDriver::State::NotFound:
    availability.reason =
        fathom::detail::concat("CUPTI ", library.versionText(), " loaded but no CUDA driver (", driver.error(), ")");
    return availability;
  case detail::CudaDriver::State::MissingEntry:
    availability.reason = fathom::detail::concat("the CUDA driver cannot be used: ", driver.error());
    return availability;
  case detail::CudaDriver::State::InitFailed:
    availability.reason = driver.initResult() == CUDA_ERROR_NO_DEVICE
                              ? fathom::detail::concat("no CUDA device (", driver.error(), ")")
                              : fathom::detail::concat("the CUDA driver ", driver.path(), " failed: ", driver.error());
    return availability;
  case detail::CudaDriver::State::Ready: break;
  }
  if (driver.deviceCount() == 0) {
    availability.reason = fathom::detail::concat("no CUDA device (", driver.path(), " reports 0 devices)");
    return availability;
  }
  for (int i = 0; i < driver.deviceCount(); ++i) {
    availability.devices.push_back(driver.properties(i));
  }
  availability.available = true;
#endif
  return availability;
}

void CuptiTracer::start() {
  std::lock_guard lock(m_impl->control);
  if (m_impl->running) {
    return;
  }
  const CuptiAvailability availability = probe();
  FATHOM_CHECK(availability.available, ProfilerError, "GPU tracing unavailable: ", availability.reason);
#if FATHOM_CUPTI_TRACING
  const void* expected = nullptr;
  FATHOM_CHECK(g_owner.compare_exchange_strong(expected, m_impl.get()), ProfilerError,
               "another CuptiTracer is already running in this process");
  g_lastStarted.store(m_impl.get());
  try {
    m_impl->begin();
  } catch (...) {
    g_owner.store(nullptr);
    throw;
  }
  m_impl->running = true;
#endif
}

#if FATHOM_CUPTI_TRACING
void CuptiTracer::Impl::begin() {
  const auto& library = detail::CuptiLibrary::instance();
  auto& pool = bufferPool();
  pool.configure(options.bufferBytes, options.maxBufferBytes);
  pool.resetStats();
  g_callbackNs.store(0);
  own = {};
  {
    auto& registry = threadRegistry();
    std::lock_guard lock(registry.mutex);
    registry.map.clear();
  }
  g_session.fetch_add(1);

  // The clock first: CUPTI stamps records with whatever source is registered when a kind is enabled.
  if (options.useTimestampCallback) {
    if (library.activityRegisterTimestampCallback == nullptr) {
      own.timestampCallbackError = library.path() + " has no cuptiActivityRegisterTimestampCallback";
    } else if (const CUptiResult rc = library.activityRegisterTimestampCallback(&profilerTimestamp);
               rc != CUPTI_SUCCESS) {
      own.timestampCallbackError = "cuptiActivityRegisterTimestampCallback failed: " + library.describe(rc);
    } else {
      own.timestampCallback = true;
    }
  }
  if (!own.timestampCallback) {
    // cuptiGetTimestamp reads the same source CUPTI stamps records with (its own clock, or a callback registered by
    // an earlier session), so the offset is right either way.
    const detail::ClockCalibration calibration = library.calibrateClock(options.clockCalibrationTries);
    own.clockOffsetNs = calibration.offsetNs;
    own.clockUncertaintyNs = calibration.uncertaintyNs;
  }
  decoder.setClockOffset(own.clockOffsetNs);

  library.check(library.activityRegisterCallbacks(&onBufferRequested, &onBufferCompleted),
                "cuptiActivityRegisterCallbacks");
  for (const KindSwitch& kind : kKinds) {
    if (!(options.kinds.*kind.selected)) {
      continue;
    }
    if (const CUptiResult rc = library.activityEnable(kind.kind); rc != CUPTI_SUCCESS) {
      disableAll(library, nullptr);
      throw ProfilerError(
          fathom::detail::concat("cuptiActivityEnable(", kind.name, ") failed: ", library.describe(rc)));
    }
    enabled.push_back(&kind);
  }
  g_pop.store(library.activityPopExternalCorrelationId, std::memory_order_release);
  if (options.kinds.externalCorrelation) {
    g_push.store(library.activityPushExternalCorrelationId, std::memory_order_release);
  }
}

void CuptiTracer::Impl::disableAll(const detail::CuptiLibrary& library, std::string* errors) {
  for (auto it = enabled.rbegin(); it != enabled.rend(); ++it) {
    if (const CUptiResult rc = library.activityDisable((*it)->kind); rc != CUPTI_SUCCESS && errors != nullptr) {
      *errors += fathom::detail::concat(errors->empty() ? "" : "; ", "cuptiActivityDisable(", (*it)->name,
                                        ") failed: ", library.describe(rc));
    }
  }
  enabled.clear();
}
#endif

void CuptiTracer::stop() {
#if FATHOM_CUPTI_TRACING
  std::lock_guard lock(m_impl->control);
  if (!m_impl->running) {
    return;
  }
  const auto& library = detail::CuptiLibrary::instance();
  g_push.store(nullptr, std::memory_order_release);  // new pushes become no-ops; pops still undo real pushes
  std::string errors;
  // bufferCompleted runs inside this call (on this thread or CUPTI's): it takes the pool's lock, which is free.
  if (const CUptiResult rc = library.activityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED); rc != CUPTI_SUCCESS) {
    errors = "cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED) failed: " + library.describe(rc);
  }
  m_impl->disableAll(library, &errors);
  if (m_impl->options.finalizeOnStop) {
    if (const CUptiResult rc = library.finalize(); rc != CUPTI_SUCCESS) {
      errors += fathom::detail::concat(errors.empty() ? "" : "; ", "cuptiFinalize failed: ", library.describe(rc));
    }
  }
  m_impl->running = false;
  g_owner.store(nullptr);
  FATHOM_CHECK(errors.empty(), ProfilerError, errors);
#endif
}

void CuptiTracer::flush() {
#if FATHOM_CUPTI_TRACING
  std::lock_guard lock(m_impl->control);
  if (!m_impl->running) {
    return;
  }
  const auto& library = detail::CuptiLibrary::instance();
  library.check(library.activityFlushAll(0), "cuptiActivityFlushAll(0)");
#endif
}

std::vector<GpuActivity> CuptiTracer::drain() {
  std::vector<GpuActivity> activities;
#if FATHOM_CUPTI_TRACING
  std::lock_guard lock(m_impl->control);
  const auto& library = detail::CuptiLibrary::instance();
  auto& pool = bufferPool();
  const std::vector<detail::CuptiBufferPool::Completed> completed = pool.takeCompleted();
  if (completed.empty() || !library.loaded()) {
    return activities;
  }
  const std::int64_t begin = nowNs();
  for (const auto& buffer : completed) {
    const std::size_t first = activities.size();
    const auto result = m_impl->decoder.decodeBuffer(library, buffer.data, buffer.validBytes, activities);
    pool.release(buffer.data);
    m_impl->own.records += result.decoded;
    m_impl->own.recordsSkipped += result.skipped;
    m_impl->own.walkErrors += result.status == CUPTI_SUCCESS ? 0 : 1;
    for (std::size_t i = first; i < activities.size(); ++i) {
      // Same rule as GpuTraceBuilder: a record without a start time has no duration to count.
      if (activities[i].kind == GpuActivityKind::Overhead && activities[i].startNs > 0 &&
          activities[i].endNs >= activities[i].startNs) {
        m_impl->own.cuptiOverheadNs += activities[i].endNs - activities[i].startNs;
      }
    }
  }
  m_impl->own.decodeNs += nowNs() - begin;
#endif
  return activities;
}

CuptiTracerStats CuptiTracer::stats() const {
  std::lock_guard lock(m_impl->control);
  CuptiTracerStats stats = m_impl->own;
  if (g_lastStarted.load() == m_impl.get()) {
    const auto pool = bufferPool().stats();
    stats.buffersRequested = pool.requested;
    stats.buffersRefused = pool.refused;
    stats.buffersCompleted = pool.completed;
    stats.buffersAllocated = pool.allocations;
    stats.peakBufferBytes = pool.peakAllocatedBytes;
    stats.bytesRecorded = pool.validBytes;
    stats.recordsDropped = pool.droppedRecords;
    stats.callbackNs = g_callbackNs.load(std::memory_order_relaxed);
  }
  return stats;
}

CuptiThreadMap CuptiTracer::threadMap() {
  auto& registry = threadRegistry();
  std::lock_guard lock(registry.mutex);
  return registry.map;
}

void CuptiTracer::pushExternalId(std::uint64_t id) noexcept {
  PushStack& stack = t_pushStack;
  const std::uint32_t depth = stack.depth++;
  bool reached = false;
#if FATHOM_CUPTI_TRACING
  if (const PushFn push = g_push.load(std::memory_order_acquire); push != nullptr) {
    reached = push(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, id) == CUPTI_SUCCESS;
  }
#else
  (void)id;
#endif
  if (depth < 64) {
    const std::uint64_t bit = std::uint64_t{1} << depth;
    stack.reachedBits = reached ? (stack.reachedBits | bit) : (stack.reachedBits & ~bit);
  } else if (reached) {
    stack.deepReached.push_back(depth);
  }
  if (reached) {
    registerThread();
  }
}

void CuptiTracer::popExternalId() noexcept {
  PushStack& stack = t_pushStack;
  if (stack.depth == 0) {
    return;  // unbalanced pop: nothing of ours to undo
  }
  const std::uint32_t depth = --stack.depth;
  bool reached = false;
  if (depth < 64) {
    reached = ((stack.reachedBits >> depth) & 1u) != 0;
  } else if (!stack.deepReached.empty() && stack.deepReached.back() == depth) {
    stack.deepReached.pop_back();
    reached = true;
  }
#if FATHOM_CUPTI_TRACING
  if (reached) {
    if (const PopFn pop = g_pop.load(std::memory_order_acquire); pop != nullptr) {
      std::uint64_t last = 0;
      pop(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last);
    }
  }
#else
  (void)reached;
#endif
}

}  // namespace fathom::profile
