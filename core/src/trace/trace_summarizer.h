// SPDX-License-Identifier: Apache-2.0
// The arithmetic of `fathom trace summary` (summarizeTrace) behind typed inputs, so that every reader of a trace
// that wants the same numbers feeds the same code: summarizeTrace streams a file into it, and TimelineIndex's area
// aggregation feeds the slices it keeps (docs/traces.md, "Summary" and "Timeline index").
#pragma once

#include "fathom/trace/trace_summary.h"
#include "intervals.h"

#include <cstdint>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string_view>
#include <vector>

namespace fathom::trace {
class TraceEventView;
}

namespace fathom::trace::detail {

/// What the summary reads from one complete event's `args`: only these, so a reader that keeps no args (the
/// timeline index) can keep these few instead.
struct SummaryArgs {
  std::optional<std::int64_t> correlation;  ///< args.correlation (launches and GPU activity)
  std::optional<std::int64_t> bytes;        ///< args.bytes (collectives)
  std::string_view collectiveName;          ///< args["Collective name"] (NCCL kernels); empty when absent
};

/// Whether the summary reads the args of a complete event with this category and name (the others' args are never
/// parsed, which keeps the summary fast).
bool summaryReadsArgs(std::string_view category, std::string_view name);
/// Reads SummaryArgs from an `args` object already parsed into `args` (views point into its text).
SummaryArgs summaryArgsOf(const TraceEventView& args);
/// The category the summary and the timeline file a complete event under: its `cat`; for an event of PyTorch's
/// legacy (pre-Kineto) profiler, which writes no `cat` and puts every CPU event in the process "CPU functions"
/// (builds without Kineto, such as Debian's LibTorch 1.13), what Kineto would have written: the ranges PyTorch opens
/// itself (`ProfilerStep#N`, `gloo:all_reduce`, `DistributedDataParallel.forward`, `Optimizer.step#SGD.step`,
/// `enumerate(DataLoader)#...`) as user_annotation, everything else as cpu_op (a user's own record_function ranges
/// cannot be told from ops in that layout). Empty otherwise.
std::string_view summaryCategory(const TraceEventView& e, std::string_view name);
/// The collective a process-group backend's work span stands for (`gloo:all_reduce` -> all_reduce); nullopt for any
/// other name. Gloo runs its collectives on its own worker threads on the CPU, so its span is the collective's time;
/// the summary counts these only in a trace with no collective of its own (PyTorch's traces: Fathom's wrap each
/// collective in a fathom:: span that also carries the bytes).
std::optional<std::string_view> backendCollective(std::string_view name);
/// What a GPU activity event is on the GPU timeline: memory traffic (gpu_memcpy/gpu_memset, or a kernel named
/// Memcpy/Memset), communication (NCCL's kernels: `ncclDevKernel_AllReduce_...`), else compute.
enum class GpuActivity : std::uint8_t { Compute, Communication, Memory };
GpuActivity gpuActivityOf(std::string_view category, std::string_view name);
/// Whether `name` is one of Fathom's collective spans (fathom::all_reduce, all_gather, reduce_scatter, broadcast,
/// barrier, send_recv): what the summary counts as communication on the CPU timeline.
bool isCollectiveSpan(std::string_view name);
/// N of a `ProfilerStep#N` name, read as HTA's `ProfilerStep\s*#\s*(\d+)`; nullopt for any other name.
std::optional<std::int64_t> profilerStepNumber(std::string_view name);

/// The ranks a merged trace's header lists (`distributedInfo.ranks`, written before `traceEvents`); empty for a
/// one-rank trace.
std::vector<int> mergedRanks(const nlohmann::json& metadata);
/// A one-rank trace's `distributedInfo.rank`.
std::optional<int> fileRank(const nlohmann::json& metadata);

/// Accumulates one rank's events and computes a TraceSummary (definitions in trace_summary.h).
///
/// With a clip window [lo, hi), every complete event is first cut to it: an event that does not meet it is left
/// out (a zero-length one counts when lo <= ts < hi), the others count with their clipped start and end. Steps,
/// unions, self times and the GPU step assignment then run on the clipped events, so "the summary of a range" has
/// one meaning wherever it is computed. Counters and instants (memory peaks) count when lo <= ts < hi.
class TraceSummarizer {
public:
  explicit TraceSummarizer(std::optional<Interval> clip = std::nullopt);
  ~TraceSummarizer();
  TraceSummarizer(const TraceSummarizer&) = delete;
  TraceSummarizer& operator=(const TraceSummarizer&) = delete;

  /// One complete event in nanoseconds (end >= start); `thread` identifies its row ("<pid>/<tid>" raw texts).
  void addComplete(std::string_view category, std::string_view name, std::int64_t start, std::int64_t end,
                   std::string_view thread, const SummaryArgs& args);
  /// A `Memory` counter (ph C) at `ts`; `args` is its parsed args object.
  void addMemoryCounter(std::int64_t ts, const TraceEventView& args);
  /// A `[memory]` instant at `ts`; `args` is its parsed args object.
  void addMemoryInstant(std::int64_t ts, const TraceEventView& args);

  /// The summary of everything added (`file`, `rank` and `events` are the caller's to fill).
  TraceSummary finish(std::size_t top);

private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace fathom::trace::detail
