// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/profile/cupti/gpu_activity.h>
#include <fathom/trace/trace_event.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fathom::profile {

/// The collective a Comm span recorded (parallel::CommRecord, with names instead of LibTorch types), as the CPU
/// profiler hands it over. Views must stay valid until GpuTraceBuilder::build() returns.
struct CollectiveInfo {
  std::string_view kind;       ///< "all_reduce", "all_gather", "reduce_scatter", ... (parallel::toString(CommKind))
  std::int64_t bytes = 0;      ///< CommRecord::bytes: the whole buffer the collective operates on
  std::int64_t elements = 0;   ///< CommRecord::elements: element count of that buffer
  std::string_view dtype;      ///< c10::toString(ScalarType), as PyTorch's record_param_comms writes it ("Float")
  int groupSize = 1;           ///< ranks in the group
  std::uint64_t sequence = 0;  ///< CommRecord::sequence
  std::string_view label;      ///< CommRecord::label ("ddp.bucket.3"); may be empty
};

/// The CPU op an external id stands for: the op that was on top of the launching thread's external id stack.
/// Views must stay valid until GpuTraceBuilder::build() returns.
struct CpuLaunchContext {
  std::uint32_t pid = 0;    ///< OS process id of the op's row
  std::uint64_t tid = 0;    ///< OS thread id (gettid) of the op's row: runtime calls made inside it go there too
  std::string_view opName;  ///< "aten::mm", "nccl:all_reduce", ...
  /// The collective of the innermost Comm span around the op, when there is one: NCCL kernels launched inside are
  /// tagged with it.
  std::optional<CollectiveInfo> collective;
};

/// Kineto's pid -1 for CUPTI overhead rows, written as the unsigned 32-bit value it wraps to: never an OS pid
/// (Linux's pid_max is at most 2^22) and never a device index. Fathom's pids are non-negative integers.
inline constexpr std::uint32_t kOverheadPid = 0xFFFFFFFFu;

/// How GpuTraceBuilder lays rows out.
struct GpuTraceBuilderOptions {
  std::uint32_t overheadPid = kOverheadPid;  ///< the process row of CUPTI's overhead records
  /// process_sort_index of GPU d is gpuSortIndexBase + d (below CPU processes, whose sort index is their pid);
  /// the overhead row gets gpuSortIndexBase + 65535.
  std::int64_t gpuSortIndexBase = std::int64_t{1} << 24;
  /// Leave out the runtime calls Kineto leaves out (noisyRuntimeCallbackIds(): cudaGetDevice, cudaSetDevice,
  /// cudaGetLastError, cudaEventCreate/Record/Destroy). They launch nothing, so linking is unaffected.
  bool skipNoisyRuntimeCalls = true;
  std::size_t maxListedUnlinked = 8;  ///< how many unlinked kernel names GpuTraceStats lists
};

/// What one build() saw and linked: the numbers the GPU-machine check reads.
struct GpuTraceStats {
  std::uint64_t kernels = 0;                  ///< kernel records (emitted or not)
  std::uint64_t kernelsLinkedToLaunch = 0;    ///< ... with the runtime/driver record of the call that launched them
  std::uint64_t kernelsLinkedToCpuOp = 0;     ///< ... whose call an external id links to a CPU op the lookup knows
  std::uint64_t ncclKernels = 0;              ///< kernels named nccl* (isNcclKernelName)
  std::uint64_t ncclKernelsTagged = 0;        ///< ... tagged with a collective (CpuLaunchContext::collective)
  std::uint64_t memcpys = 0;                  ///< copy records
  std::uint64_t memsets = 0;                  ///< memset records
  std::uint64_t memoryOpsLinkedToLaunch = 0;  ///< copies and memsets linked to their call
  std::uint64_t runtimeCalls = 0;             ///< runtime API records (skipped noisy ones included)
  std::uint64_t runtimeCallsSkipped = 0;      ///< ... left out by skipNoisyRuntimeCalls
  std::uint64_t driverCalls = 0;              ///< driver API records
  std::uint64_t syncs = 0;                    ///< synchronization records
  std::uint64_t syncsWithoutRow = 0;          ///< ... with neither their call's record nor a known device: not written
  std::uint64_t externalCorrelations = 0;     ///< external correlation records (CUSTOM0)
  std::uint64_t externalCorrelationsIgnored = 0;  ///< ... of other kinds (not Fathom's)
  std::uint64_t overheadRecords = 0;              ///< CUPTI overhead records
  std::int64_t overheadNs = 0;                    ///< Σ their durations
  std::uint64_t flows = 0;                        ///< ac2g flow pairs written
  std::uint64_t recordsOutOfOrder = 0;  ///< GPU records that arrived before their launch record (linked anyway)
  std::uint64_t gpuBeforeLaunch = 0;    ///< GPU records that start before the call that launched them (clock skew)
  std::uint64_t invalidTimestamps = 0;  ///< records without usable times (start 0, or end < start): not written
  /// GPU records that ended after the next record on their stream began (Hopper's programmatic dependent launch
  /// lets a kernel start while its predecessor drains): their end is cut to the next start, so each stream stays
  /// one nested row, and the cut is kept in the event's `overlap_trimmed_ns` arg.
  std::uint64_t overlapsTrimmed = 0;
  std::uint64_t unmappedThreads = 0;     ///< CUPTI thread ids with no OS thread id: their rows use the CUPTI id
  std::uint64_t threadMapConflicts = 0;  ///< API records whose CPU op names another OS thread than the thread map
  std::uint64_t eventsEmitted = 0;       ///< TraceEvents passed to the sink (metadata and flows included)
  std::vector<std::string> unlinkedKernelNames;  ///< the first distinct names of kernels without a launch record

  /// Every kernel has its launch record: what the GPU-machine check requires.
  bool allKernelsLinked() const { return kernelsLinkedToLaunch == kernels; }
};

/// Kernel names NCCL uses: "ncclKernel_AllReduce_...", "ncclDevKernel_..." (demangled), and their mangled forms
/// ("_Z29ncclDevKernel_..."). Holistic Trace Analysis types a kernel as communication by the same prefix.
bool isNcclKernelName(std::string_view name);
/// Runtime API callback ids skipNoisyRuntimeCalls leaves out (Kineto's block list without cudaEventSynchronize,
/// which blocks the host and explains idle time).
std::span<const std::uint32_t> noisyRuntimeCallbackIds();

/// Turns drained GPU activity into trace events in Kineto's layout, linked to the CPU side:
///  - kernels (`kernel`), copies (`gpu_memcpy`) and memsets (`gpu_memset`) on pid = device, tid = stream;
///  - runtime/driver calls (`cuda_runtime`/`cuda_driver`) on the calling thread's CPU row;
///  - synchronizations (`cuda_sync`) on the CPU row of the call that waited (they nest inside it; Kineto puts them
///    on the stream's row, where they would overlap the stream's kernels), else on the GPU row;
///  - CUPTI overhead (`overhead`) on its own process row (options.overheadPid), one thread row per overhead kind;
///  - `ac2g` flows from each call to the first GPU record it launched (id = correlation id);
///  - metadata: process_name "GPU d" (+ process_labels with the device name when setDevices() knows it),
///    thread_name "stream s", sort indices.
/// Records arrive in any order (CUPTI's buffers interleave kinds and threads): add() everything, then build().
///
/// Linking: a GPU record and the call that launched it share CUPTI's correlation id (a copy may instead name the
/// runtime call in MemcpyInfo::runtimeCorrelation); an external correlation record maps that correlation id to the
/// external id the CPU profiler pushed, and the lookup maps the external id to the CPU op. NCCL kernels whose op
/// carries a CollectiveInfo get Kineto's collective args plus Fathom's bytes, label and sequence.
///
/// Pure logic: no CUPTI, no clocks, no threads; not thread-safe.
class GpuTraceBuilder {
public:
  /// Receives each event; the event's args (and the strings they view) live until the call returns.
  using Sink = std::function<void(const trace::TraceEvent&)>;
  /// external id -> the CPU op, or nullptr when the CPU profiler does not know it. Called during build().
  using LaunchLookup = std::function<const CpuLaunchContext*(ExternalId)>;

  explicit GpuTraceBuilder(GpuTraceBuilderOptions options = {});

  /// How external ids become CPU ops (without one, nothing links to CPU ops).
  void setLaunchLookup(LaunchLookup lookup);
  /// CUPTI thread id -> OS thread id (CuptiTracer::threadMap()). Threads it lacks are learned from runtime calls
  /// linked to a CPU op (the op's tid), else keep the CUPTI id as their row.
  void setThreadMap(CuptiThreadMap map);
  /// The devices' properties (CuptiAvailability::devices): process labels, and "blocks per SM"/"warps per SM".
  void setDevices(std::vector<trace::DeviceProperties> devices);

  /// Appends records (a drain()'s worth, or synthetic ones). Their `name` views must outlive build().
  void add(std::span<const GpuActivity> activities);
  /// Records added so far.
  std::size_t size() const { return m_activities.size(); }
  /// Drops the records (keeps the lookup, thread map and devices).
  void clear() { m_activities.clear(); }

  /// Links everything added and passes the events to `sink`: metadata first, then records by start time (each GPU
  /// record followed by its flow pair). May be called again (e.g. after more add()s); each call emits everything.
  GpuTraceStats build(const Sink& sink) const;

private:
  GpuTraceBuilderOptions m_options;
  LaunchLookup m_lookup;
  CuptiThreadMap m_threadMap;
  std::vector<trace::DeviceProperties> m_devices;
  std::vector<GpuActivity> m_activities;
};

}  // namespace fathom::profile
