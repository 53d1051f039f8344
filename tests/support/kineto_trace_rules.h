// SPDX-License-Identifier: Apache-2.0
// What the checker's rule passes share: the events they collect, the findings they add, and the passes themselves
// (kineto_trace_events.cpp, kineto_trace_rows.cpp). Internal to the checker (kineto_trace_checker.h).
#pragma once

#include "kineto_trace_checker.h"
#include "kineto_trace_raw.h"

#include <QJsonObject>
#include <QJsonValue>

#include <optional>
#include <set>
#include <vector>

namespace fathom::test::trace_check_detail {

using namespace Qt::StringLiterals;

// ---------------------------------------------------------------------------------------------------------------
// JSON value helpers

/// An integer in a JSON number (QJsonDocument gives doubles; 4242 and 4242.0 both qualify, 4242.5 does not).
inline std::optional<qint64> integerValue(const QJsonValue& v) {
  if (!v.isDouble())
    return std::nullopt;
  const double d = v.toDouble();
  if (!std::isfinite(d) || std::trunc(d) != d || std::fabs(d) > 9007199254740992.0)
    return std::nullopt;
  return v.toInteger();
}

/// "-12" or "12", as written (a JSON reader in Python gives a float for "12.0").
inline bool isIntegerToken(const QByteArray& token) {
  const QByteArray digits = token.startsWith('-') ? token.mid(1) : token;
  return !digits.isEmpty() && std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// ---------------------------------------------------------------------------------------------------------------
// Findings

/// One X event, as the nesting, flow, step and correlation rules need it.
struct Slice {
  int event;
  qint64 pid, tid;
  qint64 start, end;            // exact ns from the text
  qint64 truncStart, truncEnd;  // what Perfetto computes (§1.6)
  QString name, cat;
  std::optional<qint64> correlation;  // args.correlation
};

/// One flow event (ph s, t or f).
struct Flow {
  int event;
  QString ph;
  QString key;  // id + cat + name: flows match on all three (§1.4)
  QString id, cat;
  qint64 pid, tid, ts;
};

struct Context {
  Context(const TraceCheckOptions& o, TraceCheck& r, const RawScan& s) : options(o), result(r), raw(s) {}
  const TraceCheckOptions& options;
  TraceCheck& result;
  const RawScan& raw;
  std::vector<Slice> slices;
  std::vector<Flow> flows;
  std::set<qint64> namedProcesses;
  std::set<std::pair<qint64, qint64>> namedThreads;
  std::set<qint64> runtimeCorrelations;
  std::vector<int> gpuSlices;              // indices into slices
  std::vector<std::pair<int, int>> steps;  // (slice index, N)
  std::set<qint64> pids;
  std::set<QString> counterNames;
  std::optional<qint64> minTs, maxTs, maxEnd;

  void add(QStringList& messages, QMap<QString, int>& counts, const QString& rule, const QString& what) {
    const int count = ++counts[rule];
    if (count <= options.maxMessagesPerRule)
      messages << u"["_s + rule + u"] "_s + what;
  }
  void error(const QString& rule, const QString& what) { add(result.errors, result.errorsByRule, rule, what); }
  void warning(const QString& rule, const QString& what) { add(result.warnings, result.warningsByRule, rule, what); }
};

/// "event #12 (X 'aten::mm')", to say where a finding is.
inline QString where(int index, const QJsonObject& e) {
  QString s = u"event #"_s + QString::number(index);
  const QString ph = e.value(u"ph"_s).toString();
  const QString name = e.value(u"name"_s).toString();
  if (!ph.isEmpty() || !name.isEmpty())
    s += u" ("_s + ph + u" '"_s + name + u"')"_s;
  return s;
}

/// Kineto's category names (§2.3), the flow categories (§2.5: ac2g, fwdbwd), Kineto's span rows (§2.2: Trace)
/// and "memory", the category issue 8 gives Fathom's counters (§2.7 only says counters are ph C).
inline bool isKnownCategory(const QString& cat) {
  static const QStringList known =
      u"cpu_op user_annotation gpu_user_annotation gpu_memcpy gpu_memset kernel external_correlation cuda_runtime "
      u"cuda_driver cpu_instant_event python_function overhead mtia_runtime mtia_ccp_events cuda_sync glow_runtime "
      u"cuda_profiler_range hpu_op xpu_runtime collective_comm ac2g fwdbwd Trace memory"_s.split(u' ');
  return known.contains(cat);
}

inline bool isGpuRow(const QString& cat) {
  return cat == u"kernel"_s || cat == u"gpu_memcpy"_s || cat == u"gpu_memset"_s;
}
inline bool isLaunch(const QString& cat) {
  return cat == u"cuda_runtime"_s || cat == u"cuda_driver"_s;
}

/// schemaVersion, distributedInfo, displayTimeUnit, baseTimeNanoseconds, deviceProperties.
void checkTopLevel(Context& ctx, const QJsonObject& top);
/// One traceEvents entry: ph decides which rules apply.
void checkEvent(Context& ctx, int index, const QJsonValue& value);

// Rules across events, run after every event was seen (kineto_trace_rows.cpp).
void checkRowNames(Context& ctx);
void checkNesting(Context& ctx);
void checkSteps(Context& ctx);
void checkGpuCorrelation(Context& ctx);
void checkFlows(Context& ctx);
/// Copies what Context gathered into the TraceCheck's statistics.
void fillStats(Context& ctx);
/// Appends "N more like this" for every rule whose messages were capped.
void noteCapped(const TraceCheckOptions& options, QStringList& messages, const QMap<QString, int>& counts);

}  // namespace fathom::test::trace_check_detail
