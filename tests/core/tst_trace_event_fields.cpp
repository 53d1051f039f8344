// SPDX-License-Identifier: Apache-2.0
// What every reader of a trace accepts of `ph`, `ts` and `dur` (docs/traces.md, "What the readers accept"): a trace
// whose ts are strings, whose events lack ph, or whose X events have a negative or missing dur is refused by the
// summary, the merge, the timeline index and the range export alike, with a StorageError naming the file, the event,
// the byte, the field and what was expected (issue 20: the summary printed 0.000 for every step and the merge copied
// such events). The validator reports the same events as errors. Valid neighbours (metadata without ts, a zero dur)
// still load.
#include "trace_fixtures.h"

#include <fathom/common/error.h>
#include <fathom/trace/timeline_index.h>
#include <fathom/trace/trace_merge.h>
#include <fathom/trace/trace_range_export.h>
#include <fathom/trace/trace_summary.h>
#include <fathom/trace/trace_validator.h>

#include <QTemporaryDir>
#include <QTest>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

using namespace Qt::StringLiterals;
namespace fs = std::filesystem;
using fathom::test::completeEvent;
using fathom::test::objectTrace;
using fathom::test::traceKeys;

namespace {

/// Step 1 [0, 100) with one op; the broken event is #1 (the op), so the message must name that one.
std::string traceWithOp(const std::string& op) {
  return objectTrace({completeEvent("user_annotation", "ProfilerStep#1", 1, 1, "0.000", "100.000"), op,
                      completeEvent("cpu_op", "aten::add", 1, 1, "60.000", "5.000")});
}

/// The message of the StorageError `run` throws; fails the test when it throws nothing or something else.
std::string storageError(const std::function<void()>& run) {
  try {
    run();
  } catch (const fathom::StorageError& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("unexpected exception: ") + e.what();
  }
  return "no exception";
}

}  // namespace

class TestTraceEventFields : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;

  fs::path write(const std::string& name, const std::string& text) const {
    const fs::path path = fs::path(m_dir.path().toStdString()) / name;
    fathom::test::writeTraceFile(path, text);
    return path;
  }

private slots:
  void refusedByEveryReader_data() {
    QTest::addColumn<QString>("op");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("expected");
    const auto op = [](const std::string& text) { return QString::fromStdString(text); };
    QTest::newRow("ts a string") << op(completeEvent("cpu_op", "aten::mm", 1, 1, "\"10.000\"", "50.000")) << "\"ts\""
                                 << "expected a JSON number of microseconds";
    QTest::newRow("ts a word") << op(completeEvent("cpu_op", "aten::mm", 1, 1, "\"soon\"", "50.000")) << "\"ts\""
                               << "expected a JSON number of microseconds";
    QTest::newRow("no ts") << op(R"({"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"dur":50.000})")
                           << "has no \"ts\""
                           << "expected a JSON number of microseconds";
    QTest::newRow("no ph") << op(R"({"cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":10.000,"dur":50.000})")
                           << "has no \"ph\""
                           << "expected a phase string";
    QTest::newRow("ph a number") << op(R"({"ph":7,"name":"aten::mm","pid":1,"tid":1,"ts":10.000,"dur":50.000})")
                                 << "\"ph\" is 7"
                                 << "expected a phase string";
    QTest::newRow("negative dur") << op(completeEvent("cpu_op", "aten::mm", 1, 1, "10.000", "-50.000"))
                                  << "\"dur\" is -50.000"
                                  << "expected a JSON number of microseconds >= 0";
    QTest::newRow("dur a string") << op(completeEvent("cpu_op", "aten::mm", 1, 1, "10.000", "\"50\""))
                                  << "\"dur\" is \"50\""
                                  << "expected a JSON number of microseconds >= 0";
    QTest::newRow("X without dur") << op(R"({"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":10.0})")
                                   << "has no \"dur\""
                                   << "expected a JSON number of microseconds >= 0";
    QTest::newRow("instant ts null") << op(R"({"ph":"i","s":"t","name":"mark","pid":1,"tid":1,"ts":null})")
                                     << "\"ts\" is null"
                                     << "expected a JSON number of microseconds";
  }

  void refusedByEveryReader() {
    QFETCH(QString, op);
    QFETCH(QString, field);
    QFETCH(QString, expected);
    const fs::path path = write("broken.json", traceWithOp(op.toStdString()));
    const fs::path other =
        write("rank1.json", objectTrace({completeEvent("cpu_op", "x", 1, 1, "0.000", "1.000")}, traceKeys(1)));
    const fs::path merged = fs::path(m_dir.path().toStdString()) / "merged.json";
    const fs::path range = fs::path(m_dir.path().toStdString()) / "range.json";
    const std::vector<std::pair<const char*, std::function<void()>>> readers = {
        {"summary", [&] { fathom::trace::summarizeTrace(path); }},
        {"merge",
         [&] {
           fathom::trace::mergeTraces(std::vector<fs::path>{path, other}, merged);
         }},
        {"timeline index", [&] { fathom::trace::TimelineIndex::load(path); }},
        {"range export",
         [&] {
           fathom::trace::exportTraceRange(path, range, {.range = fathom::trace::TimeRange{0, 200'000}});
         }},
    };
    for (const auto& [what, read] : readers) {
      const QString message = QString::fromStdString(storageError(read));
      // The file, the event, where it is, the field and what was expected.
      QVERIFY2(message.startsWith(QString::fromStdString(path.string()) + u": event #1: "_s) &&
                   message.contains(field) && message.contains(expected) && message.contains(u" at byte "_s) &&
                   message.contains(u"(line 3)"_s),
               qPrintable(QString::fromLatin1(what) + u": "_s + message));
    }
    QVERIFY2(!fs::exists(merged) && !fs::exists(merged.string() + ".partial"), "the merge wrote a file");
    QVERIFY2(!fs::exists(range) && !fs::exists(range.string() + ".partial"), "the range export wrote a file");

    // The validator, which reports rather than throws, calls the same event an error.
    const fathom::trace::TraceValidationReport report = fathom::trace::TraceValidator().validate(path);
    QVERIFY(!report.valid());
    bool named = false;
    for (const fathom::trace::TraceIssue& issue : report.errors) {
      named = named || (issue.eventIndex == 1 && QString::fromStdString(issue.message).contains(expected));
    }
    QVERIFY2(named, "the validator does not name event #1 with what was expected");
  }

  /// What the rules allow: metadata without ts, a zero dur, integer and exponent timestamps.
  void validNeighboursStillLoad() {
    const fs::path path =
        write("fine.json", objectTrace({R"({"ph":"M","name":"process_name","pid":1,"tid":0,"args":{"name":"r0"}})",
                                        completeEvent("user_annotation", "ProfilerStep#1", 1, 1, "0", "100"),
                                        completeEvent("cpu_op", "aten::mm", 1, 1, "1e1", "50.000"),
                                        completeEvent("cpu_op", "aten::empty", 1, 1, "70.000", "0.000")}));
    const fathom::trace::TraceSummary summary = fathom::trace::summarizeTrace(path);
    QCOMPARE(summary.events, std::uint64_t{4});
    QCOMPARE(summary.steps.size(), std::size_t{1});
    QCOMPARE(summary.steps.front().time.computeNs, std::int64_t{50'000});
    QVERIFY(fathom::trace::TimelineIndex::load(path).has_value());
  }
};

QTEST_GUILESS_MAIN(TestTraceEventFields)
#include "tst_trace_event_fields.moc"
