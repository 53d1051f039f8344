// SPDX-License-Identifier: Apache-2.0
#include "trace_summarizer.h"

#include "fathom/common/memory_category.h"
#include "fathom/trace/trace_event_view.h"

#include "string_table.h"
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace fathom::trace::detail {
namespace {

constexpr std::string_view kFathomPrefix = "fathom::";
constexpr std::array<std::string_view, 6> kCollectiveSpans = {"fathom::all_reduce",     "fathom::all_gather",
                                                              "fathom::reduce_scatter", "fathom::broadcast",
                                                              "fathom::barrier",        "fathom::send_recv"};
constexpr std::array<std::string_view, 3> kTrainingSpans = {"fathom::forward", "fathom::backward",
                                                            "fathom::optimizer_step"};

/// The process PyTorch's legacy profiler puts every CPU event in, and the prefixes of the ranges torch opens.
constexpr std::string_view kLegacyCpuProcess = "CPU functions";
constexpr std::string_view kProfilerStepPrefix = "ProfilerStep";
constexpr std::string_view kDataLoaderPrefix = "enumerate(DataLoader)";
constexpr std::string_view kGlooPrefix = "gloo:";
/// The record_function ranges PyTorch itself opens (Kineto files them as user_annotation): the step, Gloo's work,
/// DDP's forward, the optimizer's step and zero_grad, the DataLoader's next batch.
constexpr std::array<std::string_view, 5> kTorchRanges = {kProfilerStepPrefix, kGlooPrefix, "DistributedDataParallel.",
                                                          "Optimizer.", kDataLoaderPrefix};

template <std::size_t N> bool isOneOf(std::string_view text, const std::array<std::string_view, N>& set) {
  return std::find(set.begin(), set.end(), text) != set.end();
}

/// A JSON number's value as int64 (doubles truncated); nullopt for anything else.
std::optional<std::int64_t> numberOf(std::string_view raw) {
  std::int64_t i = 0;
  if (auto [end, error] = std::from_chars(raw.data(), raw.data() + raw.size(), i);
      error == std::errc() && end == raw.data() + raw.size() && !raw.empty()) {
    return i;
  }
  double d = 0;
  if (auto [end, error] = std::from_chars(raw.data(), raw.data() + raw.size(), d);
      error == std::errc() && end == raw.data() + raw.size() && !raw.empty() && std::abs(d) < 9.2e18) {
    return static_cast<std::int64_t>(d);
  }
  return std::nullopt;
}

using Names = StringTable;

struct CpuOp {
  std::int64_t start;
  std::int64_t end;
  std::uint32_t name;
  std::uint32_t thread;
};

struct GpuOp {
  std::int64_t start;
  std::int64_t end;
  std::int64_t correlation;  ///< -1 without one
  GpuActivity kind;
};

/// Adds one occurrence to a per-name table.
void count(OpStats& s, std::int64_t duration, std::int64_t self) {
  ++s.count;
  s.totalNs += duration;
  s.selfNs += self;
  s.maxNs = std::max(s.maxNs, duration);
}

}  // namespace

struct TraceSummarizer::Impl {
  explicit Impl(std::optional<Interval> clipWindow) : clip(clipWindow) {}

  /// Cuts [start, end] to the clip window; false when the event lies outside it (see the class comment).
  bool clipTo(std::int64_t& start, std::int64_t& end) const {
    if (!clip) {
      return true;
    }
    if (start == end) {
      return clip->start <= start && start < clip->end;
    }
    if (start >= clip->end || end <= clip->start) {
      return false;
    }
    start = std::max(start, clip->start);
    end = std::min(end, clip->end);
    return true;
  }
  bool inClip(std::int64_t ts) const { return !clip || (clip->start <= ts && ts < clip->end); }

  TraceSummary finish(std::size_t top) {
    TraceSummary s;
    s.traceSpanNs = m_traceEnd > m_traceStart ? m_traceEnd - m_traceStart : 0;
    s.timeline = m_gpuOps.empty() ? SummaryTimeline::Cpu : SummaryTimeline::Gpu;
    if (m_collectives.empty() && m_communication.empty()) {
      // A trace with no collective of its own (PyTorch's): its backend's work spans are the communication.
      m_collectives = std::move(m_backendCollectives);
      m_communication = std::move(m_backendCommunication);
    }
    s.topOps = selfTimes();
    sortAndCut(s.topOps, top, [](const OpStats& a, const OpStats& b) { return a.selfNs > b.selfNs; });
    for (auto& [name, stats] : m_kernels) {
      s.topKernels.push_back(stats);
    }
    sortAndCut(s.topKernels, top, [](const OpStats& a, const OpStats& b) { return a.totalNs > b.totalNs; });
    for (auto& [name, stats] : m_spans) {
      s.spans.push_back(stats);
    }
    sortAndCut(s.spans, s.spans.size(), [](const OpStats& a, const OpStats& b) { return a.totalNs > b.totalNs; });
    for (auto& [kind, stats] : m_collectives) {
      s.collectives.push_back(stats);
    }
    std::sort(s.collectives.begin(), s.collectives.end(), [](const auto& a, const auto& b) {
      return a.totalNs != b.totalNs ? a.totalNs > b.totalNs : a.kind < b.kind;
    });
    s.memory = memoryPeaks();
    if (s.timeline == SummaryTimeline::Cpu) {
      breakdownCpu(s);
    } else {
      breakdownGpu(s);
    }
    return s;
  }

  void addComplete(std::string_view cat, std::string_view name, std::int64_t start, std::int64_t end,
                   std::string_view threadKey, const SummaryArgs& args) {
    if (!clipTo(start, end)) {
      return;
    }
    m_traceStart = std::min(m_traceStart, start);
    m_traceEnd = std::max(m_traceEnd, end);
    if (cat == "cpu_op") {
      m_cpuOps.push_back({start, end, m_opNames.intern(name), m_threads.intern(threadKey)});
    } else if (cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset") {
      addGpu(cat, name, start, end, args);
    } else if (cat == "cuda_runtime" || cat == "cuda_driver") {
      if (args.correlation) {
        m_launches[*args.correlation] = start;
      }
    } else if (name.starts_with(kProfilerStepPrefix)) {
      addStep(threadKey, name, start, end);
    } else if (name.starts_with(kFathomPrefix)) {
      addFathomSpan(threadKey, name, start, end, args);
    } else if (name.starts_with(kDataLoaderPrefix)) {
      m_data.push_back({start, end});
    } else if (const std::optional<std::string_view> kind = backendCollective(name)) {
      m_backendCommunication.push_back({start, end});
      addCollective(m_backendCollectives, *kind, end - start, std::nullopt);  // PyTorch's spans carry no bytes
    }
  }

  void addGpu(std::string_view cat, std::string_view name, std::int64_t start, std::int64_t end,
              const SummaryArgs& args) {
    const GpuActivity kind = gpuActivityOf(cat, name);
    m_gpuOps.push_back({start, end, args.correlation.value_or(-1), kind});
    OpStats& stats = m_kernels[std::string(name)];
    stats.name = name;
    count(stats, end - start, end - start);
    if (kind == GpuActivity::Communication) {
      const std::string_view collective = args.collectiveName.empty() ? name : args.collectiveName;
      addCollective(m_collectives, collective, end - start, args.bytes);
    }
  }

  void addStep(std::string_view threadKey, std::string_view name, std::int64_t start, std::int64_t end) {
    const std::optional<std::int64_t> step = profilerStepNumber(name);
    if (!step) {
      return;  // not a step name HTA reads either
    }
    Interval& window = m_steps.try_emplace(*step, Interval{start, end}).first->second;
    window = {std::min(window.start, start), std::max(window.end, end)};  // one step over several rows: its union
    m_trainingThreads.insert(m_threads.intern(threadKey));
  }

  void addFathomSpan(std::string_view threadKey, std::string_view name, std::int64_t start, std::int64_t end,
                     const SummaryArgs& args) {
    OpStats& stats = m_spans[std::string(name)];
    stats.name = name;
    count(stats, end - start, end - start);
    if (isOneOf(name, kTrainingSpans)) {
      m_trainingThreads.insert(m_threads.intern(threadKey));
    } else if (isOneOf(name, kCollectiveSpans)) {
      m_communication.push_back({start, end});
      addCollective(m_collectives, name.substr(kFathomPrefix.size()), end - start, args.bytes);
    } else if (name == "fathom::data_loader") {
      m_data.push_back({start, end});
    }
  }

  static void addCollective(std::map<std::string, CollectiveStats>& to, std::string_view kind, std::int64_t duration,
                            std::optional<std::int64_t> bytes) {
    CollectiveStats& c = to[std::string(kind)];
    c.kind = kind;
    ++c.count;
    c.totalNs += duration;
    if (bytes) {
      c.bytes = c.bytes.value_or(0) + *bytes;
    }
  }

  void addMemoryCounter(std::int64_t ts, const TraceEventView& args) {
    if (!inClip(ts)) {
      return;
    }
    std::int64_t total = 0;
    for (const TraceEventView::Member& m : args.members()) {
      if (const auto bytes = numberOf(m.value)) {
        // A category under its current key, also when an earlier release wrote its singular name ("parameter").
        const std::optional<MemoryCategory> category = memoryCategoryFromString(m.key);
        peak(category ? std::string(toString(*category)) : std::string(m.key), *bytes);
        total += *bytes;
      }
    }
    peak("total", total);
  }

  void addMemoryInstant(std::int64_t ts, const TraceEventView& args) {
    if (!inClip(ts)) {
      return;
    }
    for (const char* key : {"Total Allocated", "Total Reserved"}) {
      if (const auto bytes = numberOf(args.raw(key))) {
        peak(key, *bytes);
      }
    }
  }

  void peak(const std::string& category, std::int64_t bytes) {
    const auto [it, added] = m_memory.try_emplace(category, bytes);
    it->second = std::max(it->second, bytes);
  }

  std::vector<MemoryPeak> memoryPeaks() const {
    std::vector<MemoryPeak> out;
    for (const MemoryCategory known : kProfiledMemoryCategories) {  // the profiler's categories in its order
      if (const auto it = m_memory.find(std::string(toString(known))); it != m_memory.end()) {
        out.push_back({it->first, it->second});
      }
    }
    for (const auto& [category, bytes] : m_memory) {  // the rest, by name; "total" last
      const std::optional<MemoryCategory> known = memoryCategoryFromString(category);
      const bool listed = known && std::find(kProfiledMemoryCategories.begin(), kProfiledMemoryCategories.end(),
                                             *known) != kProfiledMemoryCategories.end();
      if (!listed && category != "total") {
        out.push_back({category, bytes});
      }
    }
    if (const auto it = m_memory.find("total"); it != m_memory.end()) {
      out.push_back({it->first, it->second});
    }
    return out;
  }

  template <typename Less> static void sortAndCut(std::vector<OpStats>& rows, std::size_t top, Less less) {
    std::sort(rows.begin(), rows.end(), [&](const OpStats& a, const OpStats& b) {
      return less(a, b) || (!less(b, a) && a.name < b.name);  // ties by name: stable, testable output
    });
    rows.resize(std::min(rows.size(), top));
  }

  /// Self time per cpu_op name: each op's duration minus its direct cpu_op children on the same thread. On the
  /// way, collects the top-level ops of the training threads, merged per thread, into m_computeTops: their union
  /// is the compute time, without a copy of every op.
  std::vector<OpStats> selfTimes() {
    const bool allThreads = m_trainingThreads.empty();
    // Parents before their children: by start, then the longer first. Stable: the order the ops came in (the file's,
    // or a timeline lane's, which keeps it) decides between ops of the same start and end, which PyTorch's
    // microsecond timestamps make common (TBackward0 and its aten::t); a parent comes first there.
    std::stable_sort(m_cpuOps.begin(), m_cpuOps.end(), [](const CpuOp& a, const CpuOp& b) {
      return a.thread != b.thread ? a.thread < b.thread : a.start != b.start ? a.start < b.start : a.end > b.end;
    });
    std::vector<OpStats> stats(m_opNames.size());
    struct Open {
      const CpuOp* op;
      std::int64_t children;
    };
    std::vector<Open> open;  // the ops enclosing the current one, innermost last
    auto close = [&](const Open& o) {
      OpStats& s = stats[o.op->name];
      const std::int64_t duration = o.op->end - o.op->start;
      count(s, duration, std::max<std::int64_t>(duration - o.children, 0));
    };
    for (std::size_t i = 0; i < m_cpuOps.size(); ++i) {
      const CpuOp& op = m_cpuOps[i];
      if (i > 0 && op.thread != m_cpuOps[i - 1].thread) {
        for (; !open.empty(); open.pop_back()) {
          close(open.back());
        }
      }
      // Close what ended before op starts, and anything op crosses without nesting (not its ancestor).
      while (!open.empty() && (open.back().op->end <= op.start || op.end > open.back().op->end)) {
        close(open.back());
        open.pop_back();
      }
      if (!open.empty()) {
        open.back().children += op.end - op.start;
      } else if (allThreads || m_trainingThreads.contains(op.thread)) {
        const bool continues = !m_computeTops.empty() && i > 0 && m_cpuOps[i - 1].thread == op.thread &&
                               m_computeTops.back().end >= op.start;
        if (continues) {
          m_computeTops.back().end = std::max(m_computeTops.back().end, op.end);
        } else {
          m_computeTops.push_back({op.start, op.end});
        }
      }
      open.push_back({&op, 0});
    }
    for (; !open.empty(); open.pop_back()) {
      close(open.back());
    }
    for (std::uint32_t id = 0; id < stats.size(); ++id) {
      stats[id].name = m_opNames[id];
    }
    std::erase_if(stats, [](const OpStats& s) { return s.count == 0; });
    return stats;
  }

  /// The windows to break down: the steps, or the whole trace.
  std::vector<std::pair<std::int64_t, Interval>> windows() const {
    std::vector<std::pair<std::int64_t, Interval>> out(m_steps.begin(), m_steps.end());
    if (out.empty() && m_traceEnd > m_traceStart) {
      out.push_back({-1, {m_traceStart, m_traceEnd}});
    }
    return out;
  }

  static void addTo(TimeBreakdown& total, const TimeBreakdown& t) {
    total.spanNs += t.spanNs;
    total.computeNs += t.computeNs;
    total.communicationNs += t.communicationNs;
    total.dataLoadingNs += t.dataLoadingNs;
    total.memoryNs += t.memoryNs;
    total.idleNs += t.idleNs;
    total.overlapNs += t.overlapNs;
  }

  void breakdownCpu(TraceSummary& s) {
    std::vector<CpuOp>().swap(m_cpuOps);  // self times are done: give the ops' memory back before the unions
    const IntervalUnion compute = detail::unite(std::move(m_computeTops));
    const IntervalUnion communication = detail::unite(m_communication);
    const IntervalUnion data = detail::unite(m_data);
    const IntervalUnion busy = detail::unite(detail::unite(compute, communication), data);
    const IntervalUnion overlap = detail::intersect(compute, communication);
    for (const auto& [step, w] : windows()) {
      TimeBreakdown t;
      t.spanNs = w.end - w.start;
      t.computeNs = detail::measure(compute, w.start, w.end);
      t.communicationNs = detail::measure(communication, w.start, w.end);
      t.dataLoadingNs = detail::measure(data, w.start, w.end);
      t.idleNs = t.spanNs - detail::measure(busy, w.start, w.end);
      t.overlapNs = detail::measure(overlap, w.start, w.end);
      addTo(s.total, t);
      if (step >= 0) {
        s.steps.push_back({step, w.start, t});
      }
    }
  }

  void breakdownGpu(TraceSummary& s) const {
    const auto steps = windows();
    // Each GPU op goes to the step its launch (or, without one, its start) falls in; ops outside every step are
    // left out once steps exist.
    std::vector<std::vector<const GpuOp*>> perStep(steps.size());
    std::vector<std::size_t> byStart(steps.size());  // step indices by window start, for a binary search
    std::iota(byStart.begin(), byStart.end(), std::size_t{0});
    std::sort(byStart.begin(), byStart.end(),
              [&](std::size_t a, std::size_t b) { return steps[a].second.start < steps[b].second.start; });
    for (const GpuOp& op : m_gpuOps) {
      const auto launch = m_launches.find(op.correlation);
      const std::int64_t t = launch != m_launches.end() ? launch->second : op.start;
      const auto after = std::upper_bound(byStart.begin(), byStart.end(), t,
                                          [&](std::int64_t v, std::size_t i) { return v < steps[i].second.start; });
      if (after != byStart.begin()) {
        const std::size_t i = *std::prev(after);
        if (steps[i].first < 0 || t <= steps[i].second.end) {
          perStep[i].push_back(&op);
        }
      } else if (!steps.empty() && steps.front().first < 0) {
        perStep.front().push_back(&op);  // no steps: the whole trace is the one window
      }
    }
    const IntervalUnion data = detail::unite(m_data);
    for (std::size_t i = 0; i < steps.size(); ++i) {
      std::array<std::vector<Interval>, 3> byKind;
      Interval window{std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::min()};
      for (const GpuOp* op : perStep[i]) {
        byKind[static_cast<std::size_t>(op->kind)].push_back({op->start, op->end});
        window = {std::min(window.start, op->start), std::max(window.end, op->end)};
      }
      TimeBreakdown t;
      if (!perStep[i].empty()) {
        const IntervalUnion compute = detail::unite(byKind[0]);
        const IntervalUnion communication = detail::unite(byKind[1]);
        const IntervalUnion memory = detail::unite(byKind[2]);
        t.spanNs = window.end - window.start;
        t.computeNs = detail::measure(compute, window.start, window.end);
        t.communicationNs = detail::measure(communication, window.start, window.end);
        t.memoryNs = detail::measure(memory, window.start, window.end);
        t.idleNs = t.spanNs - detail::measure(detail::unite(detail::unite(compute, communication), memory),
                                              window.start, window.end);
        t.overlapNs = detail::measure(detail::intersect(compute, communication), window.start, window.end);
      } else {
        window = {steps[i].second.start, steps[i].second.start};
      }
      t.dataLoadingNs = detail::measure(data, steps[i].second.start, steps[i].second.end);
      addTo(s.total, t);
      if (steps[i].first >= 0) {
        s.steps.push_back({steps[i].first, window.start, t});
      }
    }
  }

  std::optional<Interval> clip;
  Names m_opNames;
  Names m_threads;
  std::vector<CpuOp> m_cpuOps;
  std::vector<GpuOp> m_gpuOps;
  std::vector<Interval> m_computeTops;  ///< top-level ops of the training threads (selfTimes() fills it)
  std::unordered_map<std::int64_t, std::int64_t> m_launches;  ///< correlation -> launch start
  std::map<std::int64_t, Interval> m_steps;                   ///< ProfilerStep#N -> its span
  std::unordered_set<std::uint32_t> m_trainingThreads;
  std::vector<Interval> m_communication;
  std::vector<Interval> m_data;
  std::map<std::string, OpStats> m_kernels;
  std::map<std::string, OpStats> m_spans;
  std::map<std::string, CollectiveStats> m_collectives;
  // Gloo's work spans (backendCollective): the communication of a trace without collectives of its own (finish()).
  std::vector<Interval> m_backendCommunication;
  std::map<std::string, CollectiveStats> m_backendCollectives;
  std::map<std::string, std::int64_t> m_memory;
  std::int64_t m_traceStart = std::numeric_limits<std::int64_t>::max();
  std::int64_t m_traceEnd = std::numeric_limits<std::int64_t>::min();
};

std::vector<int> mergedRanks(const nlohmann::json& meta) {
  std::vector<int> ranks;
  const auto dist = meta.find("distributedInfo");
  if (dist == meta.end() || !dist->is_object()) {
    return ranks;
  }
  const auto list = dist->find("ranks");
  if (list == dist->end() || !list->is_array() || list->size() < 2) {
    return ranks;
  }
  for (const nlohmann::json& r : *list) {
    if (r.is_number_integer()) {
      ranks.push_back(r.get<int>());
    }
  }
  return ranks;
}

std::optional<int> fileRank(const nlohmann::json& meta) {
  const auto dist = meta.find("distributedInfo");
  if (dist != meta.end() && dist->is_object()) {
    if (const auto rank = dist->find("rank"); rank != dist->end() && rank->is_number_integer()) {
      return rank->get<int>();
    }
  }
  return std::nullopt;
}

std::string_view summaryCategory(const TraceEventView& e, std::string_view name) {
  if (const std::optional<std::string_view> cat = e.string("cat")) {
    return *cat;
  }
  if (e.string("pid") != kLegacyCpuProcess) {
    return {};
  }
  const bool range = std::any_of(kTorchRanges.begin(), kTorchRanges.end(),
                                 [&](std::string_view prefix) { return name.starts_with(prefix); });
  return range ? "user_annotation" : "cpu_op";
}

std::optional<std::string_view> backendCollective(std::string_view name) {
  if (!name.starts_with(kGlooPrefix) || name.size() == kGlooPrefix.size()) {
    return std::nullopt;
  }
  return name.substr(kGlooPrefix.size());
}

GpuActivity gpuActivityOf(std::string_view category, std::string_view name) {
  if (category != "kernel" || name.starts_with("Memcpy") || name.starts_with("Memset")) {
    return GpuActivity::Memory;
  }
  return name.starts_with("nccl") ? GpuActivity::Communication : GpuActivity::Compute;
}

bool isCollectiveSpan(std::string_view name) {
  return isOneOf(name, kCollectiveSpans);
}

bool summaryReadsArgs(std::string_view category, std::string_view name) {
  if (category == "cpu_op") {
    return false;
  }
  if (category == "kernel" || category == "gpu_memcpy" || category == "gpu_memset" || category == "cuda_runtime" ||
      category == "cuda_driver") {
    return true;
  }
  return !name.starts_with(kProfilerStepPrefix) && isOneOf(name, kCollectiveSpans);
}

SummaryArgs summaryArgsOf(const TraceEventView& args) {
  SummaryArgs out;
  out.correlation = numberOf(args.raw("correlation"));
  out.bytes = numberOf(args.raw("bytes"));
  out.collectiveName = args.string("Collective name").value_or(std::string_view{});
  return out;
}

std::optional<std::int64_t> profilerStepNumber(std::string_view name) {
  if (!name.starts_with(kProfilerStepPrefix)) {
    return std::nullopt;
  }
  // HTA's ProfilerStep\s*#\s*(\d+)
  std::size_t digits = name.find('#');
  digits = digits == std::string_view::npos ? digits : name.find_first_not_of(' ', digits + 1);
  std::int64_t step = 0;
  if (digits == std::string_view::npos ||
      std::from_chars(name.data() + digits, name.data() + name.size(), step).ec != std::errc()) {
    return std::nullopt;
  }
  return step;
}

TraceSummarizer::TraceSummarizer(std::optional<Interval> clip) : m_impl(std::make_unique<Impl>(clip)) {}
TraceSummarizer::~TraceSummarizer() = default;

void TraceSummarizer::addComplete(std::string_view category, std::string_view name, std::int64_t start,
                                  std::int64_t end, std::string_view thread, const SummaryArgs& args) {
  m_impl->addComplete(category, name, start, end, thread, args);
}

void TraceSummarizer::addMemoryCounter(std::int64_t ts, const TraceEventView& args) {
  m_impl->addMemoryCounter(ts, args);
}

void TraceSummarizer::addMemoryInstant(std::int64_t ts, const TraceEventView& args) {
  m_impl->addMemoryInstant(ts, args);
}

TraceSummary TraceSummarizer::finish(std::size_t top) {
  return m_impl->finish(top);
}

}  // namespace fathom::trace::detail
