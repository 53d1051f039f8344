// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace fathom::trace {

/// A time range [startNs, endNs) on a trace's clock (nanoseconds relative to its base time, as `ts` * 1000).
struct TimeRange {
  std::int64_t startNs = 0;
  std::int64_t endNs = 0;
};

/// Which timeline the step-time breakdown was measured on.
enum class SummaryTimeline : std::uint8_t {
  Cpu,  ///< no GPU activity in the trace: Fathom's spans and ATen ops on the CPU
  Gpu,  ///< kernels, copies and sets present: the GPU timeline, as Holistic Trace Analysis measures it
};

/// Where the time of one window (a step, or all steps together) went. The kinds can overlap (communication
/// running under compute), so compute + communication + data loading + memory + idle >= span; idle is the time
/// covered by none of them.
struct TimeBreakdown {
  std::int64_t spanNs = 0;           ///< the window's length
  std::int64_t computeNs = 0;        ///< union of compute intervals in the window
  std::int64_t communicationNs = 0;  ///< union of communication intervals in the window
  std::int64_t dataLoadingNs = 0;    ///< union of data loading intervals in the window (CPU spans)
  std::int64_t memoryNs = 0;         ///< GPU timeline only: union of Memcpy/Memset activity
  std::int64_t idleNs = 0;           ///< span minus the union of all of the above (data loading: CPU timeline only)
  std::int64_t overlapNs = 0;        ///< communication time that overlaps compute
  /// The fraction of communication time that overlaps compute (0 without communication).
  double overlapFraction() const {
    return communicationNs > 0 ? static_cast<double>(overlapNs) / static_cast<double>(communicationNs) : 0.0;
  }
};

/// One ProfilerStep#N.
struct StepSummary {
  std::int64_t step = 0;     ///< N
  std::int64_t startNs = 0;  ///< the window's start, relative to the trace's base time
  TimeBreakdown time;        ///< on the GPU timeline the window is the span of the step's GPU work
};

/// One operator or kernel name.
struct OpStats {
  std::string name;          ///< operator, kernel or span name
  std::uint64_t count = 0;   ///< occurrences
  std::int64_t totalNs = 0;  ///< sum of durations
  std::int64_t selfNs = 0;   ///< cpu_op: sum of durations minus their direct cpu_op children; kernels: = totalNs
  std::int64_t maxNs = 0;    ///< the longest one
};

/// One kind of collective.
struct CollectiveStats {
  std::string kind;          ///< "all_reduce", ... (fathom::<kind>, an NCCL kernel's "Collective name", or gloo:<kind>)
  std::uint64_t count = 0;   ///< spans (or kernels)
  std::int64_t totalNs = 0;  ///< sum of the spans' durations (async ones included, so they may overlap)
  std::optional<std::int64_t> bytes;  ///< sum of args.bytes; nullopt when no span carries it (Gloo's work spans)
};

/// The peak of one memory category.
struct MemoryPeak {
  std::string category;  ///< parameter, gradient, ..., "total" (the largest sum of one sample), "Total Allocated"
  std::int64_t peakBytes = 0;
};

/// What summarizeTrace found. Times are nanoseconds; docs/traces.md ("Summary") defines each number.
struct TraceSummary {
  std::string file;                                 ///< the path summarized
  SummaryTimeline timeline = SummaryTimeline::Cpu;  ///< where the breakdown was measured
  std::optional<int> rank;                          ///< distributedInfo.rank
  std::uint64_t events = 0;                         ///< elements of traceEvents (of the rank, when merged)
  std::int64_t traceSpanNs = 0;                     ///< first start to last end of the complete events
  std::vector<StepSummary> steps;                   ///< by step number
  TimeBreakdown total;                              ///< all steps together (the whole trace span when there are none)
  std::vector<OpStats> topOps;                      ///< cpu_op by self time, at most TraceSummaryOptions::top
  std::vector<OpStats> topKernels;                  ///< GPU activity by total time, at most `top`
  std::vector<CollectiveStats> collectives;         ///< by total time
  std::vector<OpStats> spans;                       ///< Fathom's spans (fathom::*) by total time
  std::vector<MemoryPeak> memory;  ///< from `Memory` counters and `[memory]` instants; empty without them
};

struct TraceSummaryOptions {
  /// Rows kept in topOps and topKernels.
  std::size_t top = 10;
  /// The rank to summarize. A merged trace (`distributedInfo.ranks` lists more than one) needs it: its events are
  /// filtered to that rank's rows (pids rank * kMergedPidStride + i). A one-rank trace takes it as a check: it must
  /// be the file's `distributedInfo.rank`.
  std::optional<int> rank;
  /// Summarize only this range: each complete event is cut to it first (one that does not meet it is left out),
  /// then everything is computed as for a whole trace, so steps, unions and self times are those of the range.
  /// Counters and instants count when their ts lies in it. Must not be empty. TimelineIndex::aggregateArea
  /// computes the same numbers from its index.
  std::optional<TimeRange> range;
  /// Called every `progressEvery` events with the count so far.
  std::function<void(std::uint64_t)> onProgress;
  std::uint64_t progressEvery = 10'000'000;  ///< >= 1
};

/// Summarizes one rank's trace (`.json` or `.json.gz`), read streaming with exact nanosecond timestamps.
///
/// Definitions (docs/traces.md):
/// - Steps are `ProfilerStep#N` spans; without any, the window is the whole trace span.
/// - CPU timeline (no GPU activity): compute = union of `cpu_op` intervals on the training threads (those with a
///   ProfilerStep, fathom::forward, fathom::backward or fathom::optimizer_step span; all threads when none has
///   one); communication = union of Fathom's collective spans (fathom::all_reduce, all_gather, reduce_scatter,
///   broadcast, barrier, send_recv; on any row); data loading = union of fathom::data_loader and torch's
///   `enumerate(DataLoader)...` spans; idle = window minus the union of the three.
/// - GPU timeline: per step, the GPU work launched in it (a kernel's cuda_runtime launch, found by correlation,
///   lies in the step; without one, the kernel's own start does); the window is that work's span; kernels whose
///   name starts with "nccl" are communication, "Memcpy"/"Memset" kernels and gpu_memcpy/gpu_memset are memory,
///   other kernels compute; idle = window minus the union of all GPU work (as HTA). Data loading still comes from
///   the CPU spans of the step.
/// - Overlap = |communication ∩ compute| / |communication|.
///
/// Memory is bounded by the work it needs: 24 bytes per cpu_op and 32 per GPU activity (self times and unions need
/// them sorted per row), 16 per Fathom span and per top-level training op, plus the names; the file is streamed.
/// Throws StorageError for unreadable or malformed files, ConfigError for a merged trace without options.rank and
/// for a rank the trace does not hold.
TraceSummary summarizeTrace(const std::filesystem::path& path, const TraceSummaryOptions& options = {});

}  // namespace fathom::trace
