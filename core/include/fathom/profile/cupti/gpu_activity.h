// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>

namespace fathom::profile {

/// A typed integer id of the GPU activity model. Distinct types per meaning, so a CUPTI correlation id cannot be
/// passed where an external id (a CPU op) or a stream id is expected; `.value` is the raw number.
template <typename Tag, typename Rep> struct GpuId {
  Rep value = 0;

  constexpr GpuId() = default;
  constexpr explicit GpuId(Rep v) : value(v) {}
  friend constexpr bool operator==(const GpuId&, const GpuId&) = default;
  // No operator<=>: <compare> trips moc (its predefined __cplusplus is C++17) in Qt tests that include this header.
  friend constexpr bool operator<(const GpuId& a, const GpuId& b) { return a.value < b.value; }
};

/// CUPTI's correlation id: one per runtime/driver API call, shared by the GPU work the call launched.
using CorrelationId = GpuId<struct CorrelationTag, std::uint32_t>;
/// The id the CPU profiler pushed with CuptiTracer::pushExternalId (one per ATen op or Fathom span).
using ExternalId = GpuId<struct ExternalTag, std::uint64_t>;
/// CUDA device ordinal as CUPTI reports it.
using DeviceIndex = GpuId<struct DeviceTag, std::uint32_t>;
/// CUPTI's id of a CUDA context.
using ContextId = GpuId<struct ContextTag, std::uint32_t>;
/// CUPTI's id of a CUDA stream (unique per process; kNoStream when none applies).
using StreamId = GpuId<struct StreamTag, std::uint32_t>;
/// CUPTI's `threadId` of an API record. On Linux this is NOT the kernel's thread id (gettid): CUPTI reports the
/// low 32 bits of pthread_self(), as Kineto's ThreadUtil assumes. Map it with currentCuptiThreadId() /
/// CuptiThreadMap.
using CuptiThreadId = GpuId<struct CuptiThreadTag, std::uint32_t>;

/// CUPTI's "no stream" value (CUPTI_SYNCHRONIZATION_INVALID_VALUE), e.g. on a context synchronization.
inline constexpr StreamId kNoStream{0xFFFFFFFFu};

/// Hash for GpuId keys in unordered containers.
struct GpuIdHash {
  template <typename Tag, typename Rep> std::size_t operator()(GpuId<Tag, Rep> id) const noexcept {
    return std::hash<Rep>{}(id.value);
  }
};

/// CUPTI thread id -> OS thread id (gettid), for the CPU rows of runtime/driver records.
using CuptiThreadMap = std::unordered_map<CuptiThreadId, std::uint64_t, GpuIdHash>;

/// The CUPTI thread id CUPTI writes into API records made on the calling thread (low 32 bits of pthread_self()).
CuptiThreadId currentCuptiThreadId();
/// The calling thread's OS id (gettid), the `tid` of CPU rows.
std::uint64_t currentOsThreadId();

/// What one record describes. Mirrors the CUPTI activity kinds Fathom enables.
enum class GpuActivityKind : std::uint8_t {
  Kernel,               ///< CONCURRENT_KERNEL (or KERNEL)
  Memcpy,               ///< MEMCPY
  Memset,               ///< MEMSET
  Runtime,              ///< RUNTIME: a cuda* call on a CPU thread
  Driver,               ///< DRIVER: a cu* call on a CPU thread
  Synchronization,      ///< SYNCHRONIZATION: the host waiting on a stream, event or context
  ExternalCorrelation,  ///< EXTERNAL_CORRELATION: correlation id -> external id (no time)
  Overhead,             ///< OVERHEAD: CUPTI's or the driver's own cost
};
inline constexpr std::size_t kGpuActivityKindCount = 8;

/// "kernel", "memcpy", "memset", "runtime", "driver", "synchronization", "external_correlation", "overhead".
std::string_view toString(GpuActivityKind kind);

/// Direction of a copy (CUpti_ActivityMemcpyKind, same order).
enum class MemcpyKind : std::uint8_t { Unknown, HtoD, DtoH, HtoA, AtoH, AtoA, AtoD, DtoA, DtoD, HtoH, PtoP };
/// Kind of memory on either side of a copy or under a memset (CUpti_ActivityMemoryKind, same order).
enum class MemoryKind : std::uint8_t { Unknown, Pageable, Pinned, Device, Array, Managed, DeviceStatic, ManagedStatic };
/// What the host waited for (CUpti_ActivitySynchronizationType, same order).
enum class SyncKind : std::uint8_t {
  Unknown,
  EventSynchronize,
  StreamWaitEvent,
  StreamSynchronize,
  ContextSynchronize
};
/// Whose id an external correlation carries (CUpti_ExternalCorrelationKind, same order). Fathom pushes Custom0.
enum class ExternalKind : std::uint8_t { Invalid, Unknown, OpenAcc, Custom0, Custom1, Custom2 };
/// Why CUPTI or the driver spent the time of an overhead record (CUpti_ActivityOverheadKind).
enum class OverheadKind : std::uint8_t {
  Unknown,
  DriverCompiler,
  CuptiBufferFlush,
  CuptiInstrumentation,
  CuptiResource,
  RuntimeTriggeredModuleLoading,
  LazyFunctionLoading,
  CommandBufferFull,
  ActivityBufferRequest,
  UvmActivityInit,
};
inline constexpr std::size_t kOverheadKindCount = 10;
/// What an overhead record is attributed to (CUpti_ActivityObjectKind, same order).
enum class OverheadObject : std::uint8_t { Unknown, Process, Thread, Device, Context, Stream };

/// "HtoD", "DtoH", ... as Kineto writes them; "Unknown" for Unknown.
std::string_view toString(MemcpyKind kind);
/// "Pageable", "Pinned", "Device", "Array", "Managed", "Device Static", "Managed Static", "Unknown".
std::string_view toString(MemoryKind kind);
/// "Event Sync", "Stream Wait Event", "Stream Sync", "Context Sync", "Unknown Sync".
std::string_view toString(SyncKind kind);
/// "Driver Compiler", "Buffer Flush", "Instrumentation", "Resource", ... (Kineto's names where it has one).
std::string_view toString(OverheadKind kind);
/// "invalid", "unknown", "openacc", "custom0", "custom1", "custom2".
std::string_view toString(ExternalKind kind);
/// "process", "thread", "device", "context", "stream", "unknown".
std::string_view toString(OverheadObject kind);

/// Launch configuration of a kernel.
struct KernelInfo {
  std::array<std::int32_t, 3> grid{};   ///< gridX, gridY, gridZ
  std::array<std::int32_t, 3> block{};  ///< blockX, blockY, blockZ
  std::uint16_t registersPerThread = 0;
  std::int32_t staticSharedMemory = 0;   ///< bytes per block
  std::int32_t dynamicSharedMemory = 0;  ///< bytes per block
  std::int64_t queuedNs = 0;             ///< when the launch was queued (profiler clock); 0 when CUPTI did not say
};

/// A copy between host and device memory (or device to device).
struct MemcpyInfo {
  MemcpyKind copyKind = MemcpyKind::Unknown;
  MemoryKind srcKind = MemoryKind::Unknown;
  MemoryKind dstKind = MemoryKind::Unknown;
  std::uint64_t bytes = 0;
  /// The runtime call's correlation id when the copy went through the runtime API (CUPTI fills `correlation` with
  /// the driver call's id for copies); 0 when there is none.
  CorrelationId runtimeCorrelation;
};

/// A memset on the device.
struct MemsetInfo {
  std::uint64_t bytes = 0;
  std::uint32_t value = 0;
  MemoryKind memoryKind = MemoryKind::Unknown;
};

/// A runtime or driver API call on a CPU thread.
struct ApiInfo {
  std::uint32_t cbid = 0;         ///< CUPTI callback id (CUpti_runtime_api_trace_cbid / CUpti_driver_api_trace_cbid)
  std::uint32_t processId = 0;    ///< OS process id (getpid)
  CuptiThreadId threadId;         ///< CUPTI's thread id (see CuptiThreadId)
  std::uint32_t returnValue = 0;  ///< cudaError_t or CUresult
};

/// The host waiting on the device.
struct SyncInfo {
  SyncKind syncKind = SyncKind::Unknown;
  std::uint32_t cudaEventId = 0;  ///< for EventSynchronize / StreamWaitEvent
};

/// Correlation id -> external id: the CPU op that was on top of the calling thread's external id stack.
struct ExternalCorrelationInfo {
  ExternalKind externalKind = ExternalKind::Unknown;
  ExternalId externalId;
};

/// Time CUPTI (or the driver) spent on its own work, attributed to an object. For Device/Context/Stream objects
/// the ids are in GpuActivity::device/context/stream.
struct OverheadInfo {
  OverheadKind overheadKind = OverheadKind::Unknown;
  OverheadObject object = OverheadObject::Unknown;
  std::uint32_t processId = 0;  ///< Process/Thread objects
  CuptiThreadId threadId;       ///< Thread objects
};

/// One CUPTI activity record in Fathom's own, CUPTI-version-independent form. Plain value; `name` points into
/// storage that lives for the whole process (the decoder interns names: distinct names are bounded by the kernels
/// the program loads), or into the caller's storage for synthetic records.
///
/// Invariants: `detail` holds the alternative of `kind` (Kernel: KernelInfo, Memcpy: MemcpyInfo, Memset: MemsetInfo,
/// Runtime and Driver: ApiInfo, Synchronization: SyncInfo, ExternalCorrelation: ExternalCorrelationInfo, Overhead:
/// OverheadInfo); times are on the profiler clock (nowNs()); ExternalCorrelation records carry no time.
struct GpuActivity {
  using Detail =
      std::variant<KernelInfo, MemcpyInfo, MemsetInfo, ApiInfo, SyncInfo, ExternalCorrelationInfo, OverheadInfo>;

  GpuActivityKind kind = GpuActivityKind::Kernel;
  std::int64_t startNs = 0;   ///< profiler clock
  std::int64_t endNs = 0;     ///< profiler clock; >= startNs for well-formed records
  DeviceIndex device;         ///< kernels, copies, memsets, device-level overheads
  ContextId context;          ///< kernels, copies, memsets, syncs
  StreamId stream;            ///< kernels, copies, memsets, syncs (kNoStream when none applies)
  CorrelationId correlation;  ///< every kind but Overhead (0 there)
  std::string_view name;      ///< kernel name (demangled), "Memcpy HtoD (Pageable -> Device)", API function name, ...
  Detail detail;

  /// The payload if this is a kernel, else nullptr (likewise below).
  const KernelInfo* kernel() const { return std::get_if<KernelInfo>(&detail); }
  const MemcpyInfo* memcpy() const { return std::get_if<MemcpyInfo>(&detail); }
  const MemsetInfo* memset() const { return std::get_if<MemsetInfo>(&detail); }
  const ApiInfo* api() const { return std::get_if<ApiInfo>(&detail); }
  const SyncInfo* sync() const { return std::get_if<SyncInfo>(&detail); }
  const ExternalCorrelationInfo* external() const { return std::get_if<ExternalCorrelationInfo>(&detail); }
  const OverheadInfo* overhead() const { return std::get_if<OverheadInfo>(&detail); }
};

/// The name Kineto gives a copy: "Memcpy HtoD (Pageable -> Device)".
std::string memcpyName(MemcpyKind kind, MemoryKind src, MemoryKind dst);
/// The name Kineto gives a memset: "Memset (Device)".
std::string memsetName(MemoryKind kind);

}  // namespace fathom::profile
