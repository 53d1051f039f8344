// SPDX-License-Identifier: Apache-2.0
#include "fathom/trace/operator_class_times.h"

#include "event_fields.h"
#include "fathom/common/error.h"
#include "fathom/trace/trace_event_view.h"
#include "fathom/trace/trace_merge.h"
#include "fathom/trace/trace_reader.h"
#include "intervals.h"
#include "trace_summarizer.h"

#include <algorithm>
#include <array>
#include <limits>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace fathom::trace {
namespace {

// The ATen operators whose self time is a linear layer's product (forward: addmm with a bias, mm without; both
// gradients: mm) and the attention core's batched products. Their self time is the BLAS call: the operators below
// them (resize, views) count with the rest of the compute.
constexpr std::array<std::string_view, 2> kMatmulOps{"aten::mm", "aten::addmm"};
constexpr std::array<std::string_view, 2> kBatchedMatmulOps{"aten::bmm", "aten::baddbmm"};
constexpr std::string_view kOptimizerSpan = "fathom::optimizer_step";
/// On a GPU the attention core may be one of PyTorch's fused kernels rather than batched products.
constexpr std::array<std::string_view, 3> kFusedAttentionPrefixes{"aten::_scaled_dot_product", "aten::_flash_attention",
                                                                  "aten::_efficient_attention"};

bool isOneOf(std::string_view name, const auto& names) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

/// Whether `event` is on `rank`'s rows: every event of a one-rank trace, the rank's pids of a merged one.
bool ofRank(const TraceEventView& event, bool merged, std::optional<int> rank) {
  if (!merged) {
    return true;
  }
  const std::optional<std::int64_t> pid = event.integer("pid");
  return pid && rank && mergedRankOf(*pid) == *rank;
}

/// The class of the time of an operator's kernels on a GPU: matmul or attention; nullopt for the rest.
enum class KernelClass : std::uint8_t { Matmul, Attention };
std::optional<KernelClass> kernelClassOf(std::string_view op) {
  if (isOneOf(op, kMatmulOps)) {
    return KernelClass::Matmul;
  }
  const bool fused = std::any_of(kFusedAttentionPrefixes.begin(), kFusedAttentionPrefixes.end(),
                                 [&](std::string_view prefix) { return op.starts_with(prefix); });
  return fused || isOneOf(op, kBatchedMatmulOps) ? std::optional(KernelClass::Attention) : std::nullopt;
}

/// The GPU timeline's classes: kernel time in [lo, hi) (the GPU windows of the steps).
struct KernelClassTimes {
  std::int64_t matmulNs = 0;
  std::int64_t attentionNs = 0;
  std::int64_t optimizerNs = 0;
};

/// Each compute kernel's time in [lo, hi) goes to the class of the operator that launched it (its `External id` is
/// the innermost cpu_op's at the launch, so aten::mm's kernels are matmul as its self time is on the CPU), or to
/// the optimizer when its launch (`correlation`) lies in a fathom::optimizer_step span. Two streaming passes: the
/// operators, launches and spans may come after the kernels in the file.
KernelClassTimes kernelClassTimes(const std::filesystem::path& path, std::optional<int> rank, std::int64_t lo,
                                  std::int64_t hi) {
  std::unordered_map<std::int64_t, KernelClass> opClasses;  // External id -> class, for the classed ops only
  std::unordered_map<std::int64_t, std::int64_t> launches;  // correlation -> the launch's start (CPU clock)
  std::vector<detail::Interval> optimizerSpans;
  TraceEventView event;
  TraceEventView args;
  {
    TraceReader reader(path);
    const bool merged = !detail::mergedRanks(reader.metadata()).empty();
    while (reader.next()) {
      const detail::EventTimes times = detail::readCheckedEvent(reader, event);
      if (times.phase != 'X' || !ofRank(event, merged, rank)) {
        continue;
      }
      const std::string_view name = event.string("name").value_or("");
      const std::string_view cat = detail::summaryCategory(event, name);
      if (name == kOptimizerSpan) {
        optimizerSpans.push_back({*times.ts, *times.ts + times.dur});
      } else if (cat == "cpu_op") {
        const std::optional<KernelClass> kind = kernelClassOf(name);
        std::optional<std::int64_t> id;
        if (kind && args.parse(event.raw("args")) && (id = args.integer("External id"))) {
          opClasses[*id] = *kind;
        }
      } else if (cat == "cuda_runtime" || cat == "cuda_driver") {
        std::optional<std::int64_t> correlation;
        if (args.parse(event.raw("args")) && (correlation = args.integer("correlation"))) {
          launches[*correlation] = *times.ts;
        }
      }
    }
  }
  const detail::IntervalUnion optimizer = detail::unite(std::move(optimizerSpans));
  auto inOptimizer = [&](std::int64_t t) { return detail::measure(optimizer, t, t + 1) > 0; };

  KernelClassTimes out;
  TraceReader reader(path);
  const bool merged = !detail::mergedRanks(reader.metadata()).empty();
  while (reader.next()) {
    const detail::EventTimes times = detail::readCheckedEvent(reader, event);
    if (times.phase != 'X' || event.string("cat") != "kernel" || !ofRank(event, merged, rank) ||
        detail::gpuActivityOf("kernel", event.string("name").value_or("")) != detail::GpuActivity::Compute) {
      continue;  // communication and memory kernels are not compute, as the summary files them
    }
    const std::int64_t length = std::min(*times.ts + times.dur, hi) - std::max(*times.ts, lo);
    if (length <= 0 || !args.parse(event.raw("args"))) {
      continue;
    }
    const std::optional<std::int64_t> id = args.integer("External id");
    if (const auto op = id ? opClasses.find(*id) : opClasses.end(); op != opClasses.end()) {
      (op->second == KernelClass::Matmul ? out.matmulNs : out.attentionNs) += length;
    } else if (const std::optional<std::int64_t> correlation = args.integer("correlation")) {
      const auto launch = launches.find(*correlation);
      if (launch != launches.end() && inOptimizer(launch->second)) {
        out.optimizerNs += length;
      }
    }
  }
  return out;
}

/// The optimizer spans and collective spans of `rank`'s rows inside [lo, hi), as unions.
struct SpanUnions {
  detail::IntervalUnion optimizer;
  detail::IntervalUnion communication;
};

SpanUnions spanUnions(const std::filesystem::path& path, std::optional<int> rank, std::int64_t lo, std::int64_t hi) {
  TraceReader reader(path);
  const bool merged = !detail::mergedRanks(reader.metadata()).empty();
  TraceEventView event;
  std::vector<detail::Interval> optimizer;
  std::vector<detail::Interval> communication;
  while (reader.next()) {
    const detail::EventTimes times = detail::readCheckedEvent(reader, event);
    if (times.phase != 'X') {
      continue;
    }
    if (!ofRank(event, merged, rank)) {
      continue;
    }
    const std::string_view name = event.string("name").value_or("");
    const bool isOptimizer = name == kOptimizerSpan;
    if (!isOptimizer && !detail::isCollectiveSpan(name)) {
      continue;
    }
    const std::int64_t start = std::max(*times.ts, lo);
    const std::int64_t end = std::min(*times.ts + times.dur, hi);
    if (start < end) {
      (isOptimizer ? optimizer : communication).push_back({start, end});
    }
  }
  return {detail::unite(std::move(optimizer)), detail::unite(std::move(communication))};
}

std::int64_t measureAll(const detail::IntervalUnion& u) {
  return detail::measure(u, std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max());
}

}  // namespace

OperatorClassTimes operatorClassTimes(const std::filesystem::path& path, std::optional<int> rank) {
  TraceSummaryOptions options;
  options.rank = rank;
  options.top = std::numeric_limits<std::size_t>::max();
  const TraceSummary whole = summarizeTrace(path, options);
  FATHOM_CHECK(!whole.steps.empty(), ConfigError, path.string(),
               " has no ProfilerStep window: record it with a schedule (fathom train --profile) so that steps are "
               "marked");
  std::int64_t lo = std::numeric_limits<std::int64_t>::max();
  std::int64_t hi = std::numeric_limits<std::int64_t>::min();
  for (const StepSummary& s : whole.steps) {
    lo = std::min(lo, s.startNs);
    hi = std::max(hi, s.startNs + s.time.spanNs);
  }
  FATHOM_CHECK(lo < hi, ConfigError, path.string(), ": its ProfilerStep windows are empty");
  options.range = TimeRange{lo, hi};
  const TraceSummary steps = summarizeTrace(path, options);

  OperatorClassTimes out;
  out.steps = static_cast<int>(whole.steps.size());
  for (const StepSummary& s : whole.steps) {
    out.spanNs += s.time.spanNs;
  }
  if (whole.timeline == SummaryTimeline::Gpu) {
    // The kernels of each class, in the steps' GPU windows.
    const KernelClassTimes kernels = kernelClassTimes(path, rank, lo, hi);
    out.matmulNs = kernels.matmulNs;
    out.batchedMatmulNs = kernels.attentionNs;
    out.optimizerNs = kernels.optimizerNs;
  } else {
    for (const OpStats& op : steps.topOps) {
      if (isOneOf(op.name, kMatmulOps)) {
        out.matmulNs += op.selfNs;
      } else if (isOneOf(op.name, kBatchedMatmulOps)) {
        out.batchedMatmulNs += op.selfNs;
      }
    }
    // The optimizer's own work: its spans less the collectives inside them (ZeRO and FSDP gather parameters there).
    const SpanUnions spans = spanUnions(path, rank, lo, hi);
    out.optimizerNs = measureAll(spans.optimizer) - measureAll(detail::intersect(spans.optimizer, spans.communication));
  }

  const TimeBreakdown& t = steps.total;
  out.communicationNs = t.communicationNs;
  out.exposedCommunicationNs = t.communicationNs - t.overlapNs;
  // Each class is clamped into what is left of the compute union, so the classes add up to it whatever the
  // profiler's rounding (a self time is a difference of rounded microseconds).
  std::int64_t left = t.computeNs;
  for (std::int64_t* part : {&out.matmulNs, &out.batchedMatmulNs, &out.optimizerNs}) {
    *part = std::clamp<std::int64_t>(*part, 0, left);
    left -= *part;
  }
  out.otherComputeNs = left;
  out.otherNs = std::max<std::int64_t>(0, out.spanNs - t.computeNs - out.exposedCommunicationNs);
  out.collectives = steps.collectives;
  return out;
}

}  // namespace fathom::trace
