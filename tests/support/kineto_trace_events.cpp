// SPDX-License-Identifier: Apache-2.0
// The checker's top-level and per-event rules (kineto_trace_checker.h).
#include "kineto_trace_rules.h"

#include <QJsonArray>
#include <QRegularExpression>

#include <cmath>

namespace fathom::test::trace_check_detail {

// ---------------------------------------------------------------------------------------------------------------
// Top level

/// schemaVersion, distributedInfo, displayTimeUnit, baseTimeNanoseconds, deviceProperties.
void checkTopLevel(Context& ctx, const QJsonObject& top) {
  TraceCheck& r = ctx.result;
  // §2.1 / §2.7: schemaVersion:1 is the first key Kineto writes.
  const QJsonValue schema = top.value(u"schemaVersion"_s);
  if (const auto v = integerValue(schema)) {
    r.schemaVersion = static_cast<int>(*v);
    if (*v != 1)
      ctx.warning(u"schema-version"_s, u"schemaVersion is "_s + QString::number(*v) + u", Kineto writes 1"_s);
  } else {
    ctx.error(u"schema-version"_s, schema.isUndefined() ? u"no schemaVersion"_s : u"schemaVersion is not an integer"_s);
  }

  // §2.6.1: HTA refuses a file without an int distributedInfo.rank >= 0 ("The distributedInfo key does not
  // exist"); §2.7: {backend, rank:int, world_size}. json.loads turns "0.0" into a float, so the token must be an
  // integer literal, not just an integral value.
  const QJsonValue info = top.value(u"distributedInfo"_s);
  if (info.isUndefined()) {
    if (!ctx.options.mergedRanks)
      ctx.error(u"distributed-info"_s, u"no distributedInfo (HTA needs distributedInfo.rank)"_s);
  } else if (!info.isObject()) {
    ctx.error(u"distributed-info"_s, u"distributedInfo is not an object"_s);
  } else {
    const QJsonObject di = info.toObject();
    const QByteArray rankToken = ctx.raw.topLevelScalars.value("distributedInfo.rank");
    const QByteArray worldToken = ctx.raw.topLevelScalars.value("distributedInfo.world_size");
    const auto rank = integerValue(di.value(u"rank"_s));
    const auto world = integerValue(di.value(u"world_size"_s));
    if (!di.contains(u"rank"_s)) {
      if (!ctx.options.mergedRanks)
        ctx.error(u"distributed-info"_s, u"distributedInfo has no rank"_s);
    } else if (!rank || !isIntegerToken(rankToken) || *rank < 0) {
      ctx.error(u"distributed-info"_s, u"distributedInfo.rank must be an integer literal >= 0, is '"_s +
                                           QString::fromLatin1(rankToken) + u"'"_s);
    } else {
      r.rank = static_cast<int>(*rank);
    }
    if (!world || !isIntegerToken(worldToken) || *world < 1) {
      ctx.error(u"distributed-info"_s, u"distributedInfo.world_size must be an integer >= 1"_s);
    } else {
      r.worldSize = static_cast<int>(*world);
      if (r.rank >= r.worldSize)  // a rank is one of world_size processes, numbered from 0
        ctx.error(u"distributed-info"_s,
                  u"rank "_s + QString::number(r.rank) + u" is not below world_size "_s + QString::number(r.worldSize));
    }
    r.backend = di.value(u"backend"_s).toString();
    if (r.backend.isEmpty())  // §2.7 lists backend; HTA itself only needs rank
      ctx.warning(u"distributed-info"_s, u"distributedInfo has no backend"_s);
  }

  // §1.6: displayTimeUnit is a display hint only; Perfetto and Catapult reject "us". §2.1: Kineto writes "ms"
  // (or "ns"). So: absent, "ms" or "ns".
  const QJsonValue unit = top.value(u"displayTimeUnit"_s);
  if (!unit.isUndefined()) {
    r.displayTimeUnit = unit.toString();
    if (!unit.isString() || (r.displayTimeUnit != u"ms"_s && r.displayTimeUnit != u"ns"_s))
      ctx.error(u"display-time-unit"_s,
                u"displayTimeUnit must be absent, \"ms\" or \"ns\", is '"_s + r.displayTimeUnit + u"'"_s);
  }

  // §2.1 / §2.7: baseTimeNanoseconds, the integer ns that every relative ts is added to (§1.6: absolute µs do
  // not fit a double). Checked on the token: a double would round 1700000000000000001.
  const QByteArray baseToken = ctx.raw.topLevelScalars.value("baseTimeNanoseconds");
  if (!top.contains(u"baseTimeNanoseconds"_s)) {
    ctx.error(u"base-time"_s, u"no baseTimeNanoseconds"_s);
  } else if (!isIntegerToken(baseToken) || baseToken.startsWith('-')) {
    ctx.error(u"base-time"_s,
              u"baseTimeNanoseconds must be a non-negative integer, is '"_s + QString::fromLatin1(baseToken) + u"'"_s);
  } else {
    r.baseTimeNanoseconds = baseToken.toLongLong();
  }

  // §2.1 / §2.7: deviceProperties (Kineto writes it; a CPU-only run may have no device, hence a warning).
  const QJsonValue devices = top.value(u"deviceProperties"_s);
  if (devices.isUndefined())
    ctx.warning(u"device-properties"_s, u"no deviceProperties"_s);
  else if (!devices.isArray())
    ctx.error(u"device-properties"_s, u"deviceProperties is not an array"_s);
}

// ---------------------------------------------------------------------------------------------------------------
// Per event

/// pid (and tid when `needTid`) as non-negative integers (§1.5: Fathom writes integers only; §2.7 "integer
/// pid, tid"; strings are a Perfetto hack and negative pids are Kineto-only). A present tid is checked even
/// when not needed.
static std::optional<std::pair<qint64, qint64>> checkPidTid(Context& ctx, int index, const QJsonObject& e,
                                                            bool needTid) {
  const auto check = [&](const QString& key, bool needed) -> std::optional<qint64> {
    const QJsonValue v = e.value(key);
    if (v.isUndefined() && !needed)
      return qint64(-1);
    const auto i = integerValue(v);
    if (!i || *i < 0) {
      ctx.error(u"pid-tid"_s, where(index, e) + u": "_s + key + u" must be a non-negative integer"_s);
      return std::nullopt;
    }
    return i;
  };
  const auto pid = check(u"pid"_s, true);
  const auto tid = check(u"tid"_s, needTid);
  if (!pid || !tid)
    return std::nullopt;
  ctx.pids.insert(*pid);
  return std::make_pair(*pid, *tid);
}

/// A time field in µs: numeric, >= 0 (§1.6: Kineto clamps negatives to 0), written with at most 3 decimals
/// (§0 / §2.7: "µs decimal text with exactly 3 fractional digits derived from integer ns"; Kineto prints
/// ns/1000 "." ns%1000). Returns (exact ns, Perfetto ns).
static std::optional<std::pair<qint64, qint64>> checkTime(Context& ctx, int index, const QJsonObject& e,
                                                          const QString& key, const QByteArray& token,
                                                          const QString& rule) {
  const QJsonValue v = e.value(key);
  if (!v.isDouble()) {
    ctx.error(rule, where(index, e) + u": "_s + key + (v.isUndefined() ? u" missing"_s : u" is not a number"_s));
    return std::nullopt;
  }
  if (v.toDouble() < 0) {
    ctx.error(rule, where(index, e) + u": "_s + key + u" is negative"_s);
    return std::nullopt;
  }
  const auto exact = fixedMicrosToNanos(token);
  if (!exact)
    ctx.error(u"ts-format"_s, where(index, e) + u": "_s + key + u" is written '"_s + QString::fromLatin1(token) +
                                  u"', not fixed-point µs with at most 3 decimals"_s);
  const qint64 perfetto = perfettoNanos(v.toDouble());
  return std::make_pair(exact.value_or(qRound64(v.toDouble() * 1000.0)), perfetto);
}

/// An optional ts (metadata rows): checked when present.
static std::optional<std::pair<qint64, qint64>> checkOptionalTs(Context& ctx, int index, const QJsonObject& e) {
  if (!e.contains(u"ts"_s))
    return std::nullopt;
  return checkTime(ctx, index, e, u"ts"_s, ctx.raw.tsTokens.value(index), u"event-ts"_s);
}

static void noteTs(Context& ctx, qint64 ts) {
  ctx.minTs = ctx.minTs ? std::min(*ctx.minTs, ts) : ts;
  ctx.maxTs = ctx.maxTs ? std::max(*ctx.maxTs, ts) : ts;
}

/// args.<key> as an integer, for the GPU/launch rules.
static std::optional<qint64> intArg(const QJsonObject& args, const QString& key) {
  return integerValue(args.value(key));
}

/// kernel / gpu_memcpy / gpu_memset: §2.4 / §2.7 args.stream, args.device, args.correlation; §2.6.5 HTA reads
/// stream (GPU rows >= 0) and correlation by raw name; §2.2 / §2.7 pid = device, tid = stream.
static void checkGpuRow(Context& ctx, int index, const QJsonObject& e, const Slice& s) {
  const QJsonObject args = e.value(u"args"_s).toObject();
  const auto stream = intArg(args, u"stream"_s);
  const auto device = intArg(args, u"device"_s);
  QStringList missing;
  if (!stream || *stream < 0)
    missing << u"stream"_s;
  if (!device || *device < 0)
    missing << u"device"_s;
  if (!s.correlation)
    missing << u"correlation"_s;
  if (!missing.isEmpty()) {
    ctx.error(u"gpu-args"_s, where(index, e) + u": GPU row without integer args."_s + missing.join(u", args."_s));
    return;
  }
  if (s.pid != *device || s.tid != *stream)
    ctx.error(u"gpu-row-placement"_s, where(index, e) + u": on pid/tid "_s + QString::number(s.pid) + u"/"_s +
                                          QString::number(s.tid) + u", but device/stream are "_s +
                                          QString::number(*device) + u"/"_s + QString::number(*stream));
}

/// cuda_runtime / cuda_driver: §2.4 args cbid, correlation; §2.7 launches carry args.correlation and args.cbid.
static void checkLaunch(Context& ctx, int index, const QJsonObject& e, const Slice& s) {
  if (!s.correlation)
    ctx.error(u"launch-args"_s, where(index, e) + u": no integer args.correlation"_s);
  else
    ctx.runtimeCorrelations.insert(*s.correlation);
  if (!intArg(e.value(u"args"_s).toObject(), u"cbid"_s))
    ctx.warning(u"launch-args"_s, where(index, e) + u": no integer args.cbid"_s);
}

/// ProfilerStep#N: §2.5 torch wraps each step in record_function("ProfilerStep#" + str(n)), cat user_annotation;
/// §2.6.6 HTA takes iterations from names matching ProfilerStep\s*#\s*(\d+).
static void checkProfilerStep(Context& ctx, int index, const QJsonObject& e, int sliceIndex) {
  static const QRegularExpression step(u"^ProfilerStep#([0-9]+)$"_s);
  const QString name = e.value(u"name"_s).toString();
  const QRegularExpressionMatch m = step.match(name);
  bool ok = false;
  const int n = m.hasMatch() ? m.captured(1).toInt(&ok) : 0;
  if (!ok) {
    ctx.error(u"profiler-step"_s, where(index, e) + u": not of the form ProfilerStep#<integer>"_s);
    return;
  }
  if (e.value(u"cat"_s).toString() != u"user_annotation"_s) {
    ctx.error(u"profiler-step"_s, where(index, e) + u": cat must be user_annotation"_s);
    return;
  }
  ctx.steps.emplace_back(sliceIndex, n);
}

/// ph X. §2.6.3: HTA needs ts, dur, name, cat, pid, tid (rows with null dur or cat are dropped); §2.7: numeric
/// ts, dur, name, cat, integer pid, tid; §1.2: args is an object.
static void checkComplete(Context& ctx, int index, const QJsonObject& e) {
  bool ok = true;
  const QString name = e.value(u"name"_s).toString();
  if (!e.value(u"name"_s).isString() || name.isEmpty()) {
    ctx.error(u"event-name"_s, where(index, e) + u": X event without a name"_s);
    ok = false;
  }
  if (!e.value(u"cat"_s).isString()) {
    ctx.error(u"event-cat"_s, where(index, e) + u": X event without a string cat"_s);
    ok = false;
  }
  if (e.contains(u"args"_s) && !e.value(u"args"_s).isObject()) {
    ctx.error(u"event-args"_s, where(index, e) + u": args is not an object"_s);
    ok = false;
  }
  const auto row = checkPidTid(ctx, index, e, true);
  const auto ts = checkTime(ctx, index, e, u"ts"_s, ctx.raw.tsTokens.value(index), u"event-ts"_s);
  const auto dur = checkTime(ctx, index, e, u"dur"_s, ctx.raw.durTokens.value(index), u"event-dur"_s);
  if (!ok || !row || !ts || !dur)
    return;

  const QJsonObject args = e.value(u"args"_s).toObject();
  Slice s{index,
          row->first,
          row->second,
          ts->first,
          ts->first + dur->first,
          ts->second,
          ts->second + dur->second,
          name,
          e.value(u"cat"_s).toString(),
          intArg(args, u"correlation"_s)};
  noteTs(ctx, s.start);
  ctx.maxEnd = ctx.maxEnd ? std::max(*ctx.maxEnd, s.end) : s.end;
  const int sliceIndex = static_cast<int>(ctx.slices.size());
  if (isGpuRow(s.cat)) {
    checkGpuRow(ctx, index, e, s);
    ctx.gpuSlices.push_back(sliceIndex);
  } else if (isLaunch(s.cat)) {
    checkLaunch(ctx, index, e, s);
  }
  if (name.startsWith(u"ProfilerStep"_s))
    checkProfilerStep(ctx, index, e, sliceIndex);
  ctx.slices.push_back(std::move(s));
}

/// ph M. §1.3: process_name{name}, process_labels{labels}, process_sort_index{sort_index}, thread_name{name},
/// thread_sort_index{sort_index}; §2.2: Kineto writes them per device and per resource.
static void checkMetadata(Context& ctx, int index, const QJsonObject& e) {
  struct Kind {
    QString name, arg;
    bool thread, integer;
  };
  static const QList<Kind> kinds = {{u"process_name"_s, u"name"_s, false, false},
                                    {u"process_labels"_s, u"labels"_s, false, false},
                                    {u"process_sort_index"_s, u"sort_index"_s, false, true},
                                    {u"thread_name"_s, u"name"_s, true, false},
                                    {u"thread_sort_index"_s, u"sort_index"_s, true, true}};
  const QString name = e.value(u"name"_s).toString();
  const auto kind = std::find_if(kinds.begin(), kinds.end(), [&](const Kind& k) { return k.name == name; });
  if (kind == kinds.end()) {
    ctx.warning(u"metadata-name"_s, where(index, e) + u": unknown metadata event (viewers ignore it)"_s);
    return;
  }
  checkOptionalTs(ctx, index, e);
  const auto row = checkPidTid(ctx, index, e, kind->thread);
  const QJsonValue arg = e.value(u"args"_s).toObject().value(kind->arg);
  const bool argOk = kind->integer ? integerValue(arg).has_value() : (arg.isString() && !arg.toString().isEmpty());
  if (!argOk) {
    ctx.error(u"metadata-args"_s, where(index, e) + u": needs args."_s + kind->arg +
                                      (kind->integer ? u" (integer)"_s : u" (non-empty string)"_s));
    return;
  }
  if (!row)
    return;
  if (name == u"process_name"_s) {
    ctx.namedProcesses.insert(row->first);
    ctx.result.processNames.insert(row->first, arg.toString());
  } else if (name == u"thread_name"_s) {
    ctx.namedThreads.insert(*row);
    ctx.result.threadNames.insert(*row, arg.toString());
  }
}

/// ph s / t / f. §1.4: v1 flows carry id (number or string), cat, name, pid, tid, ts and match on (id, cat,
/// name); an f binds to the enclosing slice only with "bp":"e" (Kineto writes it on every f).
static void checkFlowEvent(Context& ctx, int index, const QJsonObject& e, const QString& ph) {
  const QJsonValue idValue = e.value(u"id"_s);
  QString id;
  if (const auto i = integerValue(idValue))
    id = QString::number(*i);
  else if (idValue.isString())
    id = idValue.toString();
  const QString cat = e.value(u"cat"_s).toString();
  const QString name = e.value(u"name"_s).toString();
  const auto row = checkPidTid(ctx, index, e, true);
  const auto ts = checkTime(ctx, index, e, u"ts"_s, ctx.raw.tsTokens.value(index), u"event-ts"_s);
  if (id.isEmpty() || cat.isEmpty() || name.isEmpty()) {
    ctx.error(u"flow-fields"_s, where(index, e) + u": a flow needs id (number or string), cat and name"_s);
    return;
  }
  if (ph == u"f"_s && e.value(u"bp"_s).toString() != u"e"_s)
    ctx.error(u"flow-bp"_s, where(index, e) + u": flow end without \"bp\":\"e\" binds to the next slice"_s);
  if (!row || !ts)
    return;
  noteTs(ctx, ts->first);
  ctx.flows.push_back({index, ph, id + QChar(0) + cat + QChar(0) + name, id, cat, row->first, row->second, ts->first});
}

/// name "[memory]". §2.5: {"ph":"i","s":"t","cat":"cpu_instant_event","name":"[memory]", args "Total
/// Reserved", "Total Allocated", "Bytes", "Addr", "Device Id", "Device Type"} (HTA's memory::* arg names).
static void checkMemoryEvent(Context& ctx, int index, const QJsonObject& e) {
  ++ctx.result.memoryEvents;
  if (e.value(u"ph"_s).toString() != u"i"_s || e.value(u"cat"_s).toString() != u"cpu_instant_event"_s) {
    ctx.error(u"memory-event"_s, where(index, e) + u": [memory] must be ph i, cat cpu_instant_event"_s);
    return;
  }
  const QJsonObject args = e.value(u"args"_s).toObject();
  QStringList bad;
  for (const QString& key : {u"Bytes"_s, u"Total Allocated"_s, u"Device Id"_s, u"Device Type"_s}) {
    if (!integerValue(args.value(key)))
      bad << key;
  }
  if (!bad.isEmpty())
    ctx.error(u"memory-args"_s, where(index, e) + u": needs integer args "_s + bad.join(u", "_s));
  if (!integerValue(args.value(u"Total Reserved"_s)))
    ctx.warning(u"memory-args"_s, where(index, e) + u": no integer args \"Total Reserved\""_s);
}

/// ph i (I is the legacy spelling, §1.3). §1.3: s is g, p or t (default t); a global instant needs no thread.
static void checkInstant(Context& ctx, int index, const QJsonObject& e) {
  const QString scope = e.value(u"s"_s).toString(u"t"_s);
  if (scope != u"g"_s && scope != u"p"_s && scope != u"t"_s)
    ctx.error(u"instant-scope"_s, where(index, e) + u": s must be g, p or t"_s);
  checkPidTid(ctx, index, e, scope == u"t"_s);
  if (const auto ts = checkTime(ctx, index, e, u"ts"_s, ctx.raw.tsTokens.value(index), u"event-ts"_s))
    noteTs(ctx, ts->first);
  if (e.value(u"name"_s).toString() == u"[memory]"_s)
    checkMemoryEvent(ctx, index, e);
}

/// ph C. §1.3: each key of args is one series; name (+ id) names the counter; counters are process-local (pid,
/// no tid needed). §2.7: Fathom writes counters as ph C for Perfetto.
static void checkCounter(Context& ctx, int index, const QJsonObject& e) {
  const QString name = e.value(u"name"_s).toString();
  if (name.isEmpty())
    ctx.error(u"counter"_s, where(index, e) + u": counter without a name"_s);
  checkPidTid(ctx, index, e, false);
  if (const auto ts = checkTime(ctx, index, e, u"ts"_s, ctx.raw.tsTokens.value(index), u"event-ts"_s))
    noteTs(ctx, ts->first);
  const QJsonObject args = e.value(u"args"_s).toObject();
  if (args.isEmpty())
    ctx.error(u"counter-args"_s, where(index, e) + u": counter without series (args)"_s);
  for (auto it = args.begin(); it != args.end(); ++it) {
    if (!it.value().isDouble())
      ctx.error(u"counter-args"_s, where(index, e) + u": series '"_s + it.key() + u"' is not a number"_s);
  }
  const QJsonValue id = e.value(u"id"_s);
  if (!name.isEmpty())
    ctx.counterNames.insert(id.isUndefined() ? name : name + u"/"_s + id.toVariant().toString());
}

/// One traceEvents entry: ph decides which rules apply.
void checkEvent(Context& ctx, int index, const QJsonValue& value) {
  if (!value.isObject()) {
    ctx.error(u"event-object"_s, u"event #"_s + QString::number(index) + u" is not an object"_s);
    return;
  }
  const QJsonObject e = value.toObject();
  // §1.2 / §1.3: every event has a phase.
  if (!e.value(u"ph"_s).isString()) {
    ctx.error(u"ph"_s, where(index, e) + u": no ph"_s);
    return;
  }
  const QString ph = e.value(u"ph"_s).toString();
  ++ctx.result.eventsByPhase[ph];

  const QJsonValue catValue = e.value(u"cat"_s);
  if (catValue.isString()) {
    const QString cat = catValue.toString();
    ++ctx.result.eventsByCategory[cat];
    // §2.3: Kineto's names; §1.2 allows comma-separated lists, so each part is looked up. Unknown: HTA and the
    // viewers still load it, but it is probably a typo.
    const QStringList parts = cat.split(u',');
    for (const QString& part : parts) {
      if (!isKnownCategory(part.trimmed()))
        ctx.warning(u"unknown-cat"_s, where(index, e) + u": cat '"_s + part + u"' is not a Kineto category"_s);
    }
  } else if (!catValue.isUndefined()) {
    ctx.error(u"event-cat"_s, where(index, e) + u": cat is not a string"_s);
  }

  if (ph == u"X"_s) {
    checkComplete(ctx, index, e);
  } else if (ph == u"M"_s) {
    checkMetadata(ctx, index, e);
  } else if (ph == u"s"_s || ph == u"t"_s || ph == u"f"_s) {
    checkFlowEvent(ctx, index, e, ph);
  } else if (ph == u"i"_s || ph == u"I"_s) {
    if (ph == u"I"_s)
      ctx.warning(u"phase"_s, where(index, e) + u": I is the legacy spelling of i (§1.3)"_s);
    checkInstant(ctx, index, e);
  } else if (ph == u"C"_s) {
    checkCounter(ctx, index, e);
  } else if (ph == u"b"_s || ph == u"n"_s || ph == u"e"_s) {
    // §1.3: nestable async events need id or id2.
    if (!e.contains(u"id"_s) && !e.contains(u"id2"_s))
      ctx.error(u"async-id"_s, where(index, e) + u": async event without id or id2"_s);
    checkPidTid(ctx, index, e, true);
    checkTime(ctx, index, e, u"ts"_s, ctx.raw.tsTokens.value(index), u"event-ts"_s);
  } else if (ph == u"B"_s || ph == u"E"_s) {
    // §1.3 valid, but §2.7: Fathom writes every span as X.
    ctx.warning(u"phase"_s, where(index, e) + u": B/E span; Fathom writes spans as X"_s);
    checkPidTid(ctx, index, e, true);
    checkTime(ctx, index, e, u"ts"_s, ctx.raw.tsTokens.value(index), u"event-ts"_s);
  } else if (QStringList{u"S"_s, u"T"_s, u"p"_s, u"F"_s, u"P"_s, u"N"_s, u"O"_s, u"D"_s, u"V"_s, u"v"_s, u"R"_s, u"c"_s}
                 .contains(ph)) {
    ctx.warning(u"phase"_s, where(index, e) + u": legacy phase (\"avoid\", §1.3)"_s);
  } else {
    ctx.error(u"ph"_s, where(index, e) + u": unknown ph '"_s + ph + u"'"_s);
  }
}

}  // namespace fathom::test::trace_check_detail
