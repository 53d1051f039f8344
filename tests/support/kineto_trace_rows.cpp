// SPDX-License-Identifier: Apache-2.0
// The checker's rules across events: row names, nesting, ProfilerStep order, GPU correlation, flows
// (kineto_trace_checker.h).
#include "kineto_trace_rules.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace fathom::test::trace_check_detail {

// ---------------------------------------------------------------------------------------------------------------
// Across events

/// Slices grouped per (pid, tid), as indices into ctx.slices.
static std::map<std::pair<qint64, qint64>, std::vector<int>> slicesByRow(const Context& ctx) {
  std::map<std::pair<qint64, qint64>, std::vector<int>> rows;
  for (int i = 0; i < static_cast<int>(ctx.slices.size()); ++i)
    rows[{ctx.slices[i].pid, ctx.slices[i].tid}].push_back(i);
  return rows;
}

/// §2.7 "M events for all rows" (§2.2: Kineto names every device and resource): a warning, viewers fall back to
/// the number.
void checkRowNames(Context& ctx) {
  std::set<qint64> warnedPids;
  for (const auto& [row, indices] : slicesByRow(ctx)) {
    if (!ctx.namedProcesses.count(row.first) && warnedPids.insert(row.first).second)
      ctx.warning(u"process-name"_s, u"pid "_s + QString::number(row.first) + u" has X events but no process_name"_s);
    if (!ctx.namedThreads.count(row))
      ctx.warning(u"thread-name"_s, u"pid/tid "_s + QString::number(row.first) + u"/"_s + QString::number(row.second) +
                                        u" has X events but no thread_name"_s);
  }
}

/// The slices of one row that do not nest: each (child, the open slice it crosses). Sorted by start, longer
/// first, a slice must end no later than every slice still open at its start (§1.6: Perfetto requires B/E/X
/// to nest strictly; non-nested overlaps go to an overflow track). A crossing slice is not opened, as Perfetto
/// does not put it on the row either.
static std::vector<std::pair<int, int>> crossings(const Context& ctx, std::vector<int> row, bool perfetto) {
  const auto start = [&](int i) { return perfetto ? ctx.slices[i].truncStart : ctx.slices[i].start; };
  const auto end = [&](int i) { return perfetto ? ctx.slices[i].truncEnd : ctx.slices[i].end; };
  std::sort(row.begin(), row.end(), [&](int a, int b) {
    return std::make_tuple(start(a), -end(a), a) < std::make_tuple(start(b), -end(b), b);
  });
  std::vector<std::pair<int, int>> found;
  std::vector<int> open;
  for (int i : row) {
    while (!open.empty() && end(open.back()) <= start(i))
      open.pop_back();
    if (!open.empty() && end(i) > end(open.back()))
      found.emplace_back(i, open.back());
    else
      open.push_back(i);
  }
  return found;
}

static QString describeSlice(const Slice& s, bool perfetto) {
  return u"#"_s + QString::number(s.event) + u" '"_s + s.name + u"' ["_s +
         QString::number(perfetto ? s.truncStart : s.start) + u", "_s + QString::number(perfetto ? s.truncEnd : s.end) +
         u"] ns"_s;
}

/// X events per (pid, tid) nest strictly, in exact ns ("nesting") and after Perfetto's truncation of
/// int64(ts_us * 1000) and int64(dur_us * 1000) ("nesting-truncated", §1.6: abutting events written as doubles
/// can overlap by 1 ns and be dropped or moved, google/perfetto#5012).
void checkNesting(Context& ctx) {
  for (const auto& [row, indices] : slicesByRow(ctx)) {
    std::set<int> exactFailures;
    for (const auto& [child, parent] : crossings(ctx, indices, false)) {
      exactFailures.insert(child);
      ctx.error(u"nesting"_s, u"pid/tid "_s + QString::number(row.first) + u"/"_s + QString::number(row.second) +
                                  u": "_s + describeSlice(ctx.slices[child], false) + u" overlaps "_s +
                                  describeSlice(ctx.slices[parent], false) + u" without nesting"_s);
    }
    if (!ctx.options.perfettoTruncation)
      continue;
    for (const auto& [child, parent] : crossings(ctx, indices, true)) {
      if (exactFailures.count(child))
        continue;
      ctx.error(u"nesting-truncated"_s,
                u"pid/tid "_s + QString::number(row.first) + u"/"_s + QString::number(row.second) + u": "_s +
                    describeSlice(ctx.slices[child], true) + u" overlaps "_s + describeSlice(ctx.slices[parent], true) +
                    u" after Perfetto's int64(µs * 1000) truncation"_s);
    }
  }
}

/// ProfilerStep#N spans of one thread do not overlap (§2.6.6: an event belongs to the step whose span covers its
/// ts, so overlapping steps are ambiguous; abutting is fine). A step number repeated within a process would merge
/// two iterations in HTA's per-step statistics: a warning.
void checkSteps(Context& ctx) {
  std::map<std::pair<qint64, qint64>, std::vector<int>> byRow;
  std::map<qint64, std::set<int>> numbersByPid;
  std::set<int> numbers;
  for (const auto& [slice, n] : ctx.steps) {
    const Slice& s = ctx.slices[slice];
    byRow[{s.pid, s.tid}].push_back(slice);
    if (!numbersByPid[s.pid].insert(n).second)
      ctx.warning(u"profiler-step"_s,
                  u"ProfilerStep#"_s + QString::number(n) + u" appears twice on pid "_s + QString::number(s.pid));
    numbers.insert(n);
  }
  for (auto& [row, indices] : byRow) {
    std::sort(indices.begin(), indices.end(), [&](int a, int b) { return ctx.slices[a].start < ctx.slices[b].start; });
    for (size_t k = 1; k < indices.size(); ++k) {
      const Slice& prev = ctx.slices[indices[k - 1]];
      const Slice& next = ctx.slices[indices[k]];
      if (next.start < prev.end)
        ctx.error(u"profiler-step-overlap"_s, u"'"_s + next.name + u"' starts before '"_s + prev.name +
                                                  u"' ends on pid/tid "_s + QString::number(row.first) + u"/"_s +
                                                  QString::number(row.second));
    }
  }
  for (int n : numbers)
    ctx.result.profilerSteps << n;
}

/// Every GPU row has a launch with the same correlation (§2.6.5: HTA links runtime and kernel by
/// args.correlation; §3.4: the runtime record and its kernel share correlationId).
void checkGpuCorrelation(Context& ctx) {
  for (int i : ctx.gpuSlices) {
    const Slice& s = ctx.slices[i];
    if (s.correlation && !ctx.runtimeCorrelations.count(*s.correlation))
      ctx.error(u"gpu-correlation"_s, u"event #"_s + QString::number(s.event) + u" '"_s + s.name +
                                          u"': no cuda_runtime/cuda_driver event has correlation "_s +
                                          QString::number(*s.correlation));
  }
}

/// Flows. §1.4: matched on (id, cat, name), one start and one end; each binds to a slice on its own pid/tid, and
/// "Emit s exactly at the launch span's ts and f exactly at the kernel's ts, same pid/tid" (Catapult drops a
/// flow whose start is not at a slice; DevTools binds to an event with identical ts). §2.5: ac2g runs from the
/// cuda_runtime/driver launch to the kernel (or memcpy/memset) with id = the correlation id.
void checkFlows(Context& ctx) {
  std::map<QString, std::vector<int>> byKey;
  for (int i = 0; i < static_cast<int>(ctx.flows.size()); ++i)
    byKey[ctx.flows[i].key].push_back(i);
  for (const auto& [key, members] : byKey) {
    int starts = 0, ends = 0;
    for (int i : members) {
      starts += ctx.flows[i].ph == u"s"_s;
      ends += ctx.flows[i].ph == u"f"_s;
    }
    const Flow& first = ctx.flows[members.front()];
    if (starts != 1 || ends != 1)
      ctx.error(u"flow-unmatched"_s, u"flow id "_s + first.id + u" cat "_s + first.cat + u": "_s +
                                         QString::number(starts) + u" start(s) and "_s + QString::number(ends) +
                                         u" end(s), expected one of each"_s);
    else
      ++ctx.result.flowPairs;
  }

  std::map<std::tuple<qint64, qint64, qint64>, std::vector<int>> slicesAt;  // (pid, tid, start) -> slices
  for (int i = 0; i < static_cast<int>(ctx.slices.size()); ++i)
    slicesAt[{ctx.slices[i].pid, ctx.slices[i].tid, ctx.slices[i].start}].push_back(i);
  for (const Flow& f : ctx.flows) {
    const auto it = slicesAt.find({f.pid, f.tid, f.ts});
    const QString at = u"event #"_s + QString::number(f.event) + u" (flow "_s + f.ph + u" id "_s + f.id + u")"_s;
    if (it == slicesAt.end()) {
      ctx.error(u"flow-unbound"_s, at + u": no X event on pid/tid "_s + QString::number(f.pid) + u"/"_s +
                                       QString::number(f.tid) + u" starts at "_s + QString::number(f.ts) + u" ns"_s);
      continue;
    }
    if (f.cat != u"ac2g"_s || f.ph == u"t"_s)
      continue;
    const bool fits = std::any_of(it->second.begin(), it->second.end(), [&](int i) {
      const Slice& s = ctx.slices[i];
      const bool rightKind = f.ph == u"s"_s ? isLaunch(s.cat) : isGpuRow(s.cat);
      return rightKind && s.correlation && QString::number(*s.correlation) == f.id;
    });
    if (!fits)
      ctx.error(u"flow-wrong-slice"_s,
                at +
                    (f.ph == u"s"_s ? u": ac2g must start on a cuda_runtime/cuda_driver event"_s
                                    : u": ac2g must end on a kernel/gpu_memcpy/gpu_memset event"_s) +
                    u" whose args.correlation is the flow id"_s);
  }
}

/// Copies the collected sets into the result (sorted, unique).
void fillStats(Context& ctx) {
  TraceCheck& r = ctx.result;
  for (qint64 pid : ctx.pids)
    r.pids << pid;
  for (const QString& name : ctx.counterNames)
    r.counterNames << name;
  r.minTsNs = ctx.minTs.value_or(0);
  r.maxTsNs = ctx.maxTs.value_or(0);
  r.maxEndNs = ctx.maxEnd.value_or(0);
}

/// Appends "N more like this" for every rule whose messages were capped.
void noteCapped(const TraceCheckOptions& options, QStringList& messages, const QMap<QString, int>& counts) {
  for (auto it = counts.begin(); it != counts.end(); ++it) {
    if (it.value() > options.maxMessagesPerRule)
      messages << u"["_s + it.key() + u"] "_s + QString::number(it.value() - options.maxMessagesPerRule) +
                      u" more like this"_s;
  }
}

}  // namespace fathom::test::trace_check_detail
