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
//
// Files: kineto_trace_checker.h (this: what a test calls), kineto_trace_raw.{h,cpp} (the raw-text pass and gzip),
// kineto_trace_rules.h (what the rule passes share), kineto_trace_events.cpp (top-level and per-event rules),
// kineto_trace_rows.cpp (rules across events: rows, nesting, steps, correlation, flows), kineto_trace_checker.cpp
// (the two passes put together). Built as the static library fathom_trace_checker (tests/support/CMakeLists.txt).
#pragma once

#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

#include <utility>

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

/// Checks the text of a trace (.json bytes, or .json.gz bytes: gzip is recognised by its magic number).
TraceCheck checkKinetoTraceBytes(const QByteArray& fileBytes, const TraceCheckOptions& options = {});

/// Checks the trace file at `path` (.json or .json.gz).
TraceCheck checkKinetoTrace(const QString& path, const TraceCheckOptions& options = {});

}  // namespace fathom::test
