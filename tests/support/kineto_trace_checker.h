// SPDX-License-Identifier: Apache-2.0
// An independent checker for the Kineto-style trace JSON that Fathom's profiler exports (issue 8: "a checker in
// the tests, written from the format notes, not the exporter's own code, accepts the traces too").
//
// Every rule comes from /work/shared/reference/trace-formats.md (the "format notes"); the section is cited next to
// each rule as (§x.y). §7 of the notes is why this exists: HTA and Perfetto's trace_processor cannot be installed
// here, so their loader rules (§1.6, §2.6, §2.7) are applied by hand. Nothing here is taken from the exporter or from
// `fathom trace validate`: this file uses a different JSON stack on purpose (QJsonDocument + a raw-text scan, zlib for
// .json.gz), so a bug shared by the exporter and its own validator cannot hide from the tests.
//
// Two passes read the same bytes:
//   1. a raw-text scan, because QJsonDocument hides what Perfetto and HTA see: ts/dur/rank as written (a double
//      cannot tell "25.0001" from "25.000" or "0" from "0.0"), \u escapes, and a file cut before its closers;
//   2. QJsonDocument for the structure. Event i of the scan is traceEvents[i] of the document (same text order).
//
// Findings are "[rule] where: what" lines; `errorsByRule` / `warningsByRule` count every hit, the message lists
// keep the first few per rule. Depends only on QtCore and zlib.
#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QMap>
#include <QRegularExpression>
#include <QString>
#include <QStringList>

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

namespace fathom::test {

/// What to expect of the file.
struct TraceCheckOptions {
  /// Several ranks merged into one file for a viewer (not an HTA input): distributedInfo and its rank are then
  /// optional, but still checked when present.
  bool mergedRanks = false;
  /// Also report X events that nest in exact nanoseconds but not after Perfetto's truncating µs→ns conversion.
  bool perfettoTruncation = true;
  /// Messages kept per rule; later hits are only counted, so a broken 100k-event trace stays readable.
  int maxMessagesPerRule = 20;
};

/// The verdict and what was seen. Times are nanoseconds relative to baseTimeNanoseconds, read exactly from the
/// text where it has at most 3 decimals.
struct TraceCheck {
  QStringList errors;  ///< "[rule] where: what", at most maxMessagesPerRule per rule (then one "N more" line)
  QStringList warnings;
  QMap<QString, int> errorsByRule;  ///< every hit, including those beyond the message cap
  QMap<QString, int> warningsByRule;

  int schemaVersion = 0;
  int rank = -1;  ///< distributedInfo.rank; -1 when absent
  int worldSize = 0;
  QString backend;
  QString displayTimeUnit;  ///< empty when absent
  qint64 baseTimeNanoseconds = 0;

  int eventCount = 0;
  QMap<QString, int> eventsByCategory;  ///< by the `cat` string as written
  QMap<QString, int> eventsByPhase;
  QList<int> profilerSteps;  ///< the N of every well-formed ProfilerStep#N, sorted, unique
  QList<qint64> pids;        ///< every integer pid on any event, sorted, unique
  QMap<qint64, QString> processNames;
  QMap<std::pair<qint64, qint64>, QString> threadNames;  ///< (pid, tid) -> thread_name
  QStringList counterNames;                              ///< ph C names ("name/id" with an id), sorted, unique
  int flowPairs = 0;                                     ///< matched s/f pairs
  int memoryEvents = 0;                                  ///< [memory] instants
  qint64 minTsNs = 0;                                    ///< over events other than metadata
  qint64 maxTsNs = 0;
  qint64 maxEndNs = 0;  ///< max ts + dur over X events

  bool ok() const { return errors.isEmpty(); }
  QStringList errorRules() const { return errorsByRule.keys(); }
  QStringList warningRules() const { return warningsByRule.keys(); }
  /// Everything found, one line each, for QVERIFY2 messages.
  QString report() const {
    QStringList lines;
    for (const QString& e : errors)
      lines << QStringLiteral("error ") + e;
    for (const QString& w : warnings)
      lines << QStringLiteral("warning ") + w;
    return lines.join(QLatin1Char('\n'));
  }
};

namespace trace_check_detail {

using namespace Qt::StringLiterals;

// ---------------------------------------------------------------------------------------------------------------
// Raw text

/// What the text says that QJsonDocument does not.
struct RawScan {
  bool truncated = false;                        ///< EOF inside a string or before every container was closed
  QByteArray missingClosers;                     ///< e.g. "]}" when cut inside traceEvents
  QList<qsizetype> unicodeEscapes;               ///< byte offsets of every \u escape
  QMap<QByteArray, QByteArray> topLevelScalars;  ///< "baseTimeNanoseconds", "distributedInfo.rank" -> token
  QList<QByteArray> tsTokens;                    ///< by traceEvents index; empty where absent
  QList<QByteArray> durTokens;
};

inline bool isTokenChar(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' || c == '+' || c == '.';
}

/// A JSON tokenizer reduced to what the rules need: container nesting, the current key of every object, string
/// extents and scalar tokens. Malformed JSON is left to QJsonDocument; this pass only must not crash on it.
inline RawScan scanRaw(const QByteArray& text) {
  struct Frame {
    char kind;           // '{' or '['
    QByteArrayView key;  // the object's current key (a view into `text`)
    bool expectKey;      // true between '{' or ',' and the next key
  };
  RawScan scan;
  std::vector<Frame> stack;
  int event = -1;
  const auto inTraceEventsArray = [&] {
    return stack.size() == 2 && stack[0].kind == '{' && stack[0].key == "traceEvents" && stack[1].kind == '[';
  };
  const auto beginValue = [&] {
    if (inTraceEventsArray()) {
      ++event;
      scan.tsTokens.append(QByteArray());
      scan.durTokens.append(QByteArray());
    }
  };
  const auto recordScalar = [&](QByteArrayView token) {
    const bool eventField = stack.size() == 3 && stack[0].kind == '{' && stack[0].key == "traceEvents" &&
                            stack[1].kind == '[' && stack[2].kind == '{' && event >= 0;
    if (eventField && stack[2].key == "ts")
      scan.tsTokens[event] = token.toByteArray();
    else if (eventField && stack[2].key == "dur")
      scan.durTokens[event] = token.toByteArray();
    else if (stack.size() <= 2 &&
             std::all_of(stack.begin(), stack.end(), [](const Frame& f) { return f.kind == '{'; })) {
      QByteArrayList path;
      for (const Frame& f : stack)
        path << f.key.toByteArray();
      scan.topLevelScalars.insert(path.join('.'), token.toByteArray());
    }
  };

  const qsizetype n = text.size();
  qsizetype i = 0;
  bool insideString = false;
  while (i < n) {
    const char c = text[i];
    if (c == '{' || c == '[') {
      beginValue();
      stack.push_back({c, {}, c == '{'});
      ++i;
    } else if (c == '}' || c == ']') {
      if (!stack.empty())
        stack.pop_back();
      ++i;
    } else if (c == ',') {
      if (!stack.empty() && stack.back().kind == '{')
        stack.back().expectKey = true;
      ++i;
    } else if (c == ':') {
      if (!stack.empty())
        stack.back().expectKey = false;
      ++i;
    } else if (c == '"') {
      qsizetype j = i + 1;
      while (j < n && text[j] != '"') {
        if (text[j] == '\\') {
          if (j + 1 < n && text[j + 1] == 'u')
            scan.unicodeEscapes.append(j);
          ++j;  // skip the escaped character (it may be a quote)
        }
        ++j;
      }
      if (j >= n) {
        insideString = true;
        break;
      }
      const QByteArrayView str = QByteArrayView(text).sliced(i + 1, j - i - 1);
      if (!stack.empty() && stack.back().kind == '{' && stack.back().expectKey) {
        stack.back().key = str;
      } else {
        beginValue();
        recordScalar(QByteArrayView(text).sliced(i, j - i + 1));  // with its quotes, so it never reads as a number
      }
      i = j + 1;
    } else if (isTokenChar(c)) {
      qsizetype j = i;
      while (j < n && isTokenChar(text[j]))
        ++j;
      beginValue();
      recordScalar(QByteArrayView(text).sliced(i, j - i));
      i = j;
    } else {
      ++i;  // whitespace, or a stray byte QJsonDocument will report
    }
  }
  scan.truncated = insideString || !stack.empty() || text.trimmed().isEmpty();
  for (auto it = stack.rbegin(); it != stack.rend(); ++it)
    scan.missingClosers += it->kind == '{' ? '}' : ']';
  return scan;
}

/// Nanoseconds from a µs token written in fixed point with at most 3 decimals ("25", "25.5", "25.000"), exactly;
/// nullopt for anything else ("25.0001", "2.5e1", "25.", strings). Hand-rolled: it runs once per event.
inline std::optional<qint64> fixedMicrosToNanos(const QByteArray& token) {
  const auto digit = [&](qsizetype i) { return i < token.size() && token[i] >= '0' && token[i] <= '9'; };
  qsizetype i = 0;
  const bool negative = !token.isEmpty() && token[0] == '-';
  if (negative)
    ++i;
  if (!digit(i))
    return std::nullopt;
  qint64 whole = 0;
  for (; digit(i); ++i) {
    if (whole > (std::numeric_limits<qint64>::max() / 1000 - 1) / 10)
      return std::nullopt;  // would overflow as ns
    whole = whole * 10 + (token[i] - '0');
  }
  qint64 frac = 0;
  int fracDigits = 0;
  if (i < token.size() && token[i] == '.') {
    for (++i; digit(i); ++i) {
      if (++fracDigits > 3)
        return std::nullopt;
      frac = frac * 10 + (token[i] - '0');
    }
    if (fracDigits == 0)
      return std::nullopt;
  }
  if (i != token.size())
    return std::nullopt;
  for (; fracDigits < 3; ++fracDigits)
    frac *= 10;
  const qint64 ns = whole * 1000 + frac;
  return negative ? -ns : ns;
}

/// Perfetto's conversion of a JSON µs number to ns: static_cast<int64_t>(value.asDouble() * 1000.0), a
/// truncation (§1.6 CoerceToTs; Perfetto's X-event code applies the same conversion to dur).
inline qint64 perfettoNanos(double micros) {
  return static_cast<qint64>(micros * 1000.0);
}

/// gunzip with zlib; windowBits 15+32 detects the gzip (or zlib) header. Concatenated members are joined.
inline std::optional<QByteArray> gunzip(const QByteArray& compressed, QString* error) {
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 32) != Z_OK) {
    *error = u"inflateInit2 failed"_s;
    return std::nullopt;
  }
  QByteArray out;
  QByteArray chunk(256 * 1024, Qt::Uninitialized);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.constData()));
  zs.avail_in = static_cast<uInt>(compressed.size());
  int rc = Z_OK;
  while (true) {
    zs.next_out = reinterpret_cast<Bytef*>(chunk.data());
    zs.avail_out = static_cast<uInt>(chunk.size());
    rc = inflate(&zs, Z_NO_FLUSH);
    out.append(chunk.constData(), chunk.size() - zs.avail_out);
    if (rc == Z_STREAM_END && zs.avail_in > 0) {
      inflateReset(&zs);  // another gzip member follows
      continue;
    }
    if (rc != Z_OK)
      break;
    if (zs.avail_in == 0 && zs.avail_out != 0) {
      rc = Z_BUF_ERROR;  // input exhausted before the end of the stream
      break;
    }
  }
  const QString zmsg = zs.msg ? QString::fromLatin1(zs.msg) : QString::number(rc);
  inflateEnd(&zs);
  if (rc != Z_STREAM_END) {
    *error = u"gzip stream is corrupt or truncated ("_s + zmsg + u")"_s;
    return std::nullopt;
  }
  return out;
}

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

// ---------------------------------------------------------------------------------------------------------------
// Top level

/// schemaVersion, distributedInfo, displayTimeUnit, baseTimeNanoseconds, deviceProperties.
inline void checkTopLevel(Context& ctx, const QJsonObject& top) {
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
inline std::optional<std::pair<qint64, qint64>> checkPidTid(Context& ctx, int index, const QJsonObject& e,
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
inline std::optional<std::pair<qint64, qint64>> checkTime(Context& ctx, int index, const QJsonObject& e,
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
inline std::optional<std::pair<qint64, qint64>> checkOptionalTs(Context& ctx, int index, const QJsonObject& e) {
  if (!e.contains(u"ts"_s))
    return std::nullopt;
  return checkTime(ctx, index, e, u"ts"_s, ctx.raw.tsTokens.value(index), u"event-ts"_s);
}

inline void noteTs(Context& ctx, qint64 ts) {
  ctx.minTs = ctx.minTs ? std::min(*ctx.minTs, ts) : ts;
  ctx.maxTs = ctx.maxTs ? std::max(*ctx.maxTs, ts) : ts;
}

/// args.<key> as an integer, for the GPU/launch rules.
inline std::optional<qint64> intArg(const QJsonObject& args, const QString& key) {
  return integerValue(args.value(key));
}

/// kernel / gpu_memcpy / gpu_memset: §2.4 / §2.7 args.stream, args.device, args.correlation; §2.6.5 HTA reads
/// stream (GPU rows >= 0) and correlation by raw name; §2.2 / §2.7 pid = device, tid = stream.
inline void checkGpuRow(Context& ctx, int index, const QJsonObject& e, const Slice& s) {
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
inline void checkLaunch(Context& ctx, int index, const QJsonObject& e, const Slice& s) {
  if (!s.correlation)
    ctx.error(u"launch-args"_s, where(index, e) + u": no integer args.correlation"_s);
  else
    ctx.runtimeCorrelations.insert(*s.correlation);
  if (!intArg(e.value(u"args"_s).toObject(), u"cbid"_s))
    ctx.warning(u"launch-args"_s, where(index, e) + u": no integer args.cbid"_s);
}

/// ProfilerStep#N: §2.5 torch wraps each step in record_function("ProfilerStep#" + str(n)), cat user_annotation;
/// §2.6.6 HTA takes iterations from names matching ProfilerStep\s*#\s*(\d+).
inline void checkProfilerStep(Context& ctx, int index, const QJsonObject& e, int sliceIndex) {
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
inline void checkComplete(Context& ctx, int index, const QJsonObject& e) {
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
inline void checkMetadata(Context& ctx, int index, const QJsonObject& e) {
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
inline void checkFlowEvent(Context& ctx, int index, const QJsonObject& e, const QString& ph) {
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
inline void checkMemoryEvent(Context& ctx, int index, const QJsonObject& e) {
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
inline void checkInstant(Context& ctx, int index, const QJsonObject& e) {
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
inline void checkCounter(Context& ctx, int index, const QJsonObject& e) {
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
inline void checkEvent(Context& ctx, int index, const QJsonValue& value) {
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

// ---------------------------------------------------------------------------------------------------------------
// Across events

/// Slices grouped per (pid, tid), as indices into ctx.slices.
inline std::map<std::pair<qint64, qint64>, std::vector<int>> slicesByRow(const Context& ctx) {
  std::map<std::pair<qint64, qint64>, std::vector<int>> rows;
  for (int i = 0; i < static_cast<int>(ctx.slices.size()); ++i)
    rows[{ctx.slices[i].pid, ctx.slices[i].tid}].push_back(i);
  return rows;
}

/// §2.7 "M events for all rows" (§2.2: Kineto names every device and resource): a warning, viewers fall back to
/// the number.
inline void checkRowNames(Context& ctx) {
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
inline std::vector<std::pair<int, int>> crossings(const Context& ctx, std::vector<int> row, bool perfetto) {
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

inline QString describeSlice(const Slice& s, bool perfetto) {
  return u"#"_s + QString::number(s.event) + u" '"_s + s.name + u"' ["_s +
         QString::number(perfetto ? s.truncStart : s.start) + u", "_s + QString::number(perfetto ? s.truncEnd : s.end) +
         u"] ns"_s;
}

/// X events per (pid, tid) nest strictly, in exact ns ("nesting") and after Perfetto's truncation of
/// int64(ts_us * 1000) and int64(dur_us * 1000) ("nesting-truncated", §1.6: abutting events written as doubles
/// can overlap by 1 ns and be dropped or moved, google/perfetto#5012).
inline void checkNesting(Context& ctx) {
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
inline void checkSteps(Context& ctx) {
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
inline void checkGpuCorrelation(Context& ctx) {
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
inline void checkFlows(Context& ctx) {
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
inline void fillStats(Context& ctx) {
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
inline void noteCapped(const TraceCheckOptions& options, QStringList& messages, const QMap<QString, int>& counts) {
  for (auto it = counts.begin(); it != counts.end(); ++it) {
    if (it.value() > options.maxMessagesPerRule)
      messages << u"["_s + it.key() + u"] "_s + QString::number(it.value() - options.maxMessagesPerRule) +
                      u" more like this"_s;
  }
}

}  // namespace trace_check_detail

/// Checks the text of a trace (.json bytes, or .json.gz bytes: gzip is recognised by its magic number).
inline TraceCheck checkKinetoTraceBytes(const QByteArray& fileBytes, const TraceCheckOptions& options = {}) {
  using namespace trace_check_detail;
  TraceCheck result;
  QByteArray text = fileBytes;
  // §2.6.1: HTA reads *.json and *.json.gz; 1f 8b is gzip's magic number (RFC 1952).
  if (text.startsWith("\x1f\x8b")) {
    QString why;
    const auto plain = gunzip(text, &why);
    if (!plain) {
      result.errors << u"[gzip] "_s + why;
      result.errorsByRule[u"gzip"_s] = 1;
      return result;
    }
    text = *plain;
  }
  const RawScan raw = scanRaw(text);
  Context ctx(options, result, raw);

  // §1.1: Perfetto's tokenizer rejects \uXXXX escapes; emit plain UTF-8.
  for (qsizetype offset : raw.unicodeEscapes)
    ctx.error(u"unicode-escape"_s, u"\\u escape at byte "_s + QString::number(offset));

  // §1.1: "Fathom should still always close the file" (only the array form may omit its ']').
  if (raw.truncated) {
    ctx.error(u"truncated"_s, text.trimmed().isEmpty() ? u"the file is empty"_s
                                                       : u"the file ends early: missing '"_s +
                                                             QString::fromLatin1(raw.missingClosers) + u"'"_s);
    noteCapped(options, result.errors, result.errorsByRule);
    return result;
  }

  // §1.1 / §2.6.2 / §2.7: the object form {"traceEvents":[...], ...}; HTA needs it.
  QJsonParseError parseError;
  const QJsonDocument doc = QJsonDocument::fromJson(text, &parseError);
  if (parseError.error != QJsonParseError::NoError) {
    ctx.error(u"json"_s, parseError.errorString() + u" at byte "_s + QString::number(parseError.offset));
  } else if (!doc.isObject()) {
    ctx.error(u"object-form"_s, u"the trace is not a JSON object (the array form has no room for distributedInfo)"_s);
  } else if (!doc.object().value(u"traceEvents"_s).isArray()) {
    ctx.error(u"trace-events"_s, u"no traceEvents array"_s);
  } else {
    const QJsonObject top = doc.object();
    checkTopLevel(ctx, top);
    const QJsonArray events = top.value(u"traceEvents"_s).toArray();
    result.eventCount = static_cast<int>(events.size());
    for (int i = 0; i < result.eventCount; ++i)
      checkEvent(ctx, i, events.at(i));
    checkRowNames(ctx);
    checkNesting(ctx);
    checkSteps(ctx);
    checkGpuCorrelation(ctx);
    checkFlows(ctx);
    fillStats(ctx);
  }
  noteCapped(options, result.errors, result.errorsByRule);
  noteCapped(options, result.warnings, result.warningsByRule);
  return result;
}

/// Checks the trace file at `path` (.json or .json.gz).
inline TraceCheck checkKinetoTrace(const QString& path, const TraceCheckOptions& options = {}) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) {
    TraceCheck result;
    result.errors << QStringLiteral("[file] cannot read ") + path + QStringLiteral(": ") + file.errorString();
    result.errorsByRule[QStringLiteral("file")] = 1;
    return result;
  }
  const QByteArray bytes = file.readAll();
  TraceCheck result = checkKinetoTraceBytes(bytes, options);
  const bool gzipped = bytes.startsWith("\x1f\x8b");
  // §2.6.1: HTA picks up *.json and *.json.gz files; a .gz name on plain text would fail its gzip.open.
  if (path.endsWith(QStringLiteral(".gz")) && !gzipped) {
    result.errors << QStringLiteral("[gzip] ") + path + QStringLiteral(" is named .gz but is not gzip");
    ++result.errorsByRule[QStringLiteral("gzip")];
  } else if (!path.endsWith(QStringLiteral(".json")) && !path.endsWith(QStringLiteral(".json.gz"))) {
    result.warnings << QStringLiteral("[file-name] HTA loads only *.json and *.json.gz: ") + QFileInfo(path).fileName();
    ++result.warningsByRule[QStringLiteral("file-name")];
  }
  return result;
}

}  // namespace fathom::test
