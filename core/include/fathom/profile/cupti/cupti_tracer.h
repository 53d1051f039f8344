// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/profile/cupti/gpu_activity.h>
#include <fathom/trace/trace_event.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace fathom::profile {

/// The CUPTI activity kinds a CuptiTracer enables; all of them by default, as Kineto does.
struct CuptiActivityKinds {
  bool kernel = true;               ///< CONCURRENT_KERNEL: kernels, without serializing them
  bool memcpy = true;               ///< MEMCPY
  bool memset = true;               ///< MEMSET
  bool runtime = true;              ///< RUNTIME: cuda* calls (the launches kernels are linked to)
  bool driver = true;               ///< DRIVER: cu* calls (NCCL and the tests launch through the driver API)
  bool synchronization = true;      ///< SYNCHRONIZATION: stream/event/context waits
  bool externalCorrelation = true;  ///< EXTERNAL_CORRELATION: links GPU work to the CPU op that pushed an id
  bool overhead = true;             ///< OVERHEAD: CUPTI's and the driver's own cost
};

/// How a CuptiTracer collects. Checked by the constructor (ConfigError naming the value).
struct CuptiTracerOptions {
  CuptiActivityKinds kinds;
  /// One buffer handed to CUPTI (CUPTI recommends 1-10 MiB); a positive multiple of 8.
  std::size_t bufferBytes = std::size_t{4} << 20;
  /// All buffers together, >= bufferBytes. Past it CUPTI's buffer requests are refused and CUPTI drops (and
  /// counts) records until drain() recycles buffers.
  std::size_t maxBufferBytes = std::size_t{256} << 20;
  /// Register profile::nowNs() as CUPTI's clock before enabling any kind (Kineto's way). When false, or when the
  /// driver refuses the callback, the tracer calibrates an offset instead (see CuptiTracerStats::clockOffsetNs).
  bool useTimestampCallback = true;
  /// Bracketed cuptiGetTimestamp() reads for the fallback offset; the narrowest bracket wins. In [1, 100000].
  int clockCalibrationTries = 64;
  /// Call cuptiFinalize() at the end of stop(): detaches CUPTI from the driver (no residual cost), and a later
  /// start() initializes CUPTI again. Off by default: finalizing while other threads make CUDA calls is unsafe.
  bool finalizeOnStop = false;
};

/// Whether GPU activity can be traced in this process, and if not, why.
struct CuptiAvailability {
  bool available = false;
  /// Empty when available; else one precise sentence: "built without the CUDA headers (...)", "libcupti not
  /// found: ...", "CUPTI 13.0 loaded but no CUDA driver (libcuda.so.1: cannot open shared object file: ...)",
  /// "no CUDA device (...)".
  std::string reason;
  std::string cuptiLibrary;                      ///< the libcupti the loader mapped (empty when none)
  std::uint32_t cuptiVersion = 0;                ///< cuptiGetVersion (130001 = CUDA 13.0 Update 1; 22 = CUDA 12.4)
  int driverVersion = 0;                         ///< cuDriverGetVersion (13000 = CUDA 13.0); 0 without a driver
  std::vector<trace::DeviceProperties> devices;  ///< every visible device (Kineto's `deviceProperties`)
};

/// Counters of one tracer since its last start().
struct CuptiTracerStats {
  std::uint64_t buffersRequested = 0;  ///< CUPTI asked for a buffer
  std::uint64_t buffersRefused = 0;    ///< ... and got none: maxBufferBytes was reached
  std::uint64_t buffersCompleted = 0;  ///< CUPTI handed a buffer back
  std::uint64_t buffersAllocated = 0;  ///< distinct buffers allocated (a reused buffer counts once)
  std::uint64_t peakBufferBytes = 0;   ///< most buffer memory allocated at once
  std::uint64_t bytesRecorded = 0;     ///< valid bytes in the completed buffers
  std::uint64_t records = 0;           ///< records decoded by drain()
  std::uint64_t recordsSkipped = 0;    ///< records of kinds Fathom does not decode
  /// Records CUPTI could not store (cuptiActivityGetNumDroppedRecords, summed over completed buffers): includes
  /// those lost because a request was refused by the cap.
  std::uint64_t recordsDropped = 0;
  std::uint64_t walkErrors = 0;         ///< buffers whose walk ended on an error instead of the end of the buffer
  std::int64_t cuptiOverheadNs = 0;     ///< Σ durations of the OVERHEAD records drained so far
  std::int64_t callbackNs = 0;          ///< time spent in Fathom's bufferRequested/bufferCompleted callbacks
  std::int64_t decodeNs = 0;            ///< time drain() spent walking buffers and decoding records
  bool timestampCallback = false;       ///< records are stamped by profile::nowNs() through CUPTI's callback
  std::string timestampCallbackError;   ///< why not (empty when it is used, or when it was not asked for)
  std::int64_t clockOffsetNs = 0;       ///< fallback: CUPTI clock minus profiler clock, subtracted when decoding
  std::int64_t clockUncertaintyNs = 0;  ///< fallback: half the narrowest calibration bracket
};

/// Records GPU activity through NVIDIA's CUPTI activity API: kernels (concurrent), copies, memsets, runtime and
/// driver calls, synchronizations, external correlations and CUPTI's overhead, as GpuActivity values on the
/// profiler clock. libcupti and libcuda are dlopened: the same binary runs (and reports why not) without CUDA.
///
/// Buffers: CUPTI requests buffers (options.bufferBytes each, at most options.maxBufferBytes in all) and hands
/// them back when full or flushed; drain() decodes the returned ones and recycles them. Call drain() regularly
/// (each profiler step) during long captures, or buffers run out and CUPTI drops records (counted).
///
/// Clock: start() registers profile::nowNs() as CUPTI's timestamp source before enabling any kind, so GPU records
/// line up with CPU spans without conversion; if the driver refuses, an offset is calibrated by bracketing
/// cuptiGetTimestamp() between two nowNs() reads and subtracted while decoding.
///
/// Threading: CUPTI's callbacks and activity state are process-wide, so at most one tracer runs at a time (start()
/// on a second one throws). start(), stop(), flush(), drain() and stats() may be called from any thread; they
/// serialize on an internal mutex. CUPTI calls the buffer callbacks on its own threads and from inside
/// cuptiActivityFlushAll; they take only the buffer pool's lock, which is never held across a CUPTI call.
/// pushExternalId()/popExternalId() are lock-free and may be called from any thread at any time.
class CuptiTracer {
public:
  /// Checks `options` (ConfigError naming the bad value). Does not touch CUPTI: constructing a tracer on a
  /// machine without CUDA succeeds, start() reports why it cannot run.
  explicit CuptiTracer(CuptiTracerOptions options = {});
  /// Stops the tracer if it runs (errors are swallowed: destructors do not throw).
  ~CuptiTracer();
  CuptiTracer(const CuptiTracer&) = delete;
  CuptiTracer& operator=(const CuptiTracer&) = delete;

  /// Loads libcupti and libcuda (once per process), and asks for versions and devices. Never throws.
  static CuptiAvailability probe();

  /// Registers the clock and the buffer callbacks, then enables the kinds. Throws ProfilerError with the
  /// availability reason when tracing cannot run here, when another tracer runs, or naming the CUPTI call that
  /// failed and its result ("cuptiActivityEnable(CUPTI_ACTIVITY_KIND_OVERHEAD) failed: CUPTI_ERROR_..."); nothing
  /// stays enabled after a failure. No-op when already running.
  void start();
  /// Stops pushing external ids, flushes every buffer (forced: partly filled ones too) and disables the kinds.
  /// GPU work still running at stop() may arrive without timestamps: synchronize the devices first. Throws
  /// ProfilerError when a CUPTI call fails (the tracer is stopped anyway). No-op when not running.
  void stop();
  /// Whether start() succeeded and stop() has not been called.
  bool running() const;
  /// Asks CUPTI for the buffers whose records are all complete (cuptiActivityFlushAll(0)); drain() then decodes
  /// them. No-op when not running.
  void flush();
  /// Decodes the buffers CUPTI has handed back so far, in the order it handed them back, and recycles them.
  /// Records are in buffer order, not time order (GpuTraceBuilder sorts and links them).
  std::vector<GpuActivity> drain();
  /// Counters since the last start().
  CuptiTracerStats stats() const;
  /// The options this tracer was built with.
  const CuptiTracerOptions& options() const;

  /// CUPTI thread id -> OS thread id of every thread that pushed an external id while this process had a running
  /// tracer (since the last start()). For GpuTraceBuilder::setThreadMap.
  static CuptiThreadMap threadMap();

  /// Pushes `id` on the calling thread's external correlation stack (CUSTOM0): GPU work launched until the
  /// matching pop is linked to it. A cheap no-op (one atomic load) while no tracer runs. The CPU profiler calls it
  /// around every ATen op and every collective.
  static void pushExternalId(std::uint64_t id) noexcept;
  /// Pops what the matching pushExternalId() pushed. Pops only pushes that reached CUPTI (a push made while no
  /// tracer ran pops nothing), so stacks stay balanced across start() and stop().
  static void popExternalId() noexcept;

private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace fathom::profile
