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

namespace fathom::trace {
namespace {

// The ATen operators whose self time is a linear layer's product (forward: addmm with a bias, mm without; both
// gradients: mm) and the attention core's batched products. Their self time is the BLAS call: the operators below
// them (resize, views) count with the rest of the compute.
constexpr std::array<std::string_view, 2> kMatmulOps{"aten::mm", "aten::addmm"};
constexpr std::array<std::string_view, 2> kBatchedMatmulOps{"aten::bmm", "aten::baddbmm"};
constexpr std::string_view kOptimizerSpan = "fathom::optimizer_step";

bool isOneOf(std::string_view name, const auto& names) {
  return std::find(names.begin(), names.end(), name) != names.end();
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
    if (merged) {
      const std::optional<std::int64_t> pid = event.integer("pid");
      if (!pid || !rank || *pid / kMergedPidStride != *rank) {
        continue;
      }
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
  FATHOM_CHECK(whole.timeline == SummaryTimeline::Cpu, ConfigError, path.string(),
               " has GPU activity: its operator classes are kernels, which the CPU breakdown does not price");
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
