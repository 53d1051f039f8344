// SPDX-License-Identifier: Apache-2.0
// TraceValidator: a trace written by ChromeTraceWriter passes with no finding; every rule has a fixture that breaks
// it (and only it, or its stated companions); Perfetto's two timestamp conversions; caps, excerpts, offsets.
#include "error_helpers.h"
#include "trace_fixtures.h"

#include <fathom/common/error.h>
#include <fathom/trace/chrome_trace_writer.h>
#include <fathom/trace/trace_validator.h>

#include <QTemporaryDir>
#include <QTest>

#include <filesystem>
#include <map>
#include <set>

using namespace fathom::trace;
namespace fs = std::filesystem;
using fathom::test::completeEvent;
using fathom::test::contains;
using fathom::test::objectTrace;
using fathom::test::traceKeys;

namespace {

const std::string kOp = completeEvent("cpu_op", "aten::mm", 1, 1, "10.000", "5.000");

/// Concatenation by append (GCC 12 reports a false -Wrestrict on `"literal" + std::string` at -O3).
std::string join(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (const std::string_view part : parts) {
    out += part;
  }
  return out;
}

/// Trace text -> the rule it breaks. Other error rules a fixture also breaks are listed in kCompanions.
std::map<std::string, std::string> ruleFixtures() {
  const std::string flowStart = R"({"ph":"s","id":5,"pid":1,"tid":1,"ts":11.000,"cat":"ac2g","name":"ac2g"})";
  const std::string flowEnd = R"({"ph":"f","id":5,"pid":1,"tid":1,"ts":12.000,"cat":"ac2g","name":"ac2g","bp":"e"})";
  const std::string keysWithout = R"("schemaVersion":1,"displayTimeUnit":"ms","baseTimeNanoseconds":1)";
  return {
      {"json", join({R"({"traceEvents":[)", kOp})},
      {"object-form", join({"[", kOp, "]"})},
      {"unclosed-array", join({"[", kOp, ","})},
      {"trailing-comma", join({"{", traceKeys(0), R"(,"traceEvents":[)", kOp, ",]}"})},
      {"distributed-info", objectTrace({kOp}, keysWithout)},
      {"display-time-unit", objectTrace({kOp}, traceKeys(0) + R"(,"displayTimeUnit":"us")")},
      {"base-time", objectTrace({kOp}, R"("distributedInfo":{"rank":0})")},
      {"size", objectTrace({kOp, kOp, kOp})},  // with chromeMaxEvents = 2
      {"event-object", objectTrace({kOp, "[1,2]"})},
      {"ph", objectTrace({R"({"name":"no phase","ts":1})"})},
      {"unknown-phase", objectTrace({R"({"ph":"Q","ts":1})"})},
      {"unicode-escape", objectTrace({completeEvent("cpu_op", "caf\\u00e9", 1, 1, "1.000", "1.000")})},
      {"ts", objectTrace({completeEvent("cpu_op", "early", 1, 1, "-1.000", "1.000")})},
      {"ts-precision", objectTrace({completeEvent("cpu_op", "absolute", 1, 1, "1700000000000000.000", "1.000")})},
      {"x-dur", objectTrace({R"({"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":1.000})"})},
      {"x-name", objectTrace({R"({"ph":"X","cat":"cpu_op","pid":1,"tid":1,"ts":1.000,"dur":1.000})"})},
      {"x-cat", objectTrace({R"({"ph":"X","name":"a","pid":1,"tid":1,"ts":1.000,"dur":1.000})"})},
      {"pid-tid", objectTrace({R"({"ph":"X","cat":"Trace","name":"a","pid":"Spans","tid":1,"ts":1.000,"dur":1.0})"})},
      {"nesting", objectTrace({completeEvent("cpu_op", "a", 1, 1, "0.000", "10.000"),
                               completeEvent("cpu_op", "b", 1, 1, "5.000", "10.000")})},
      {"nesting-truncation", objectTrace({completeEvent("cpu_op", "parent", 1, 1, "0", "1.001"),
                                          completeEvent("cpu_op", "child", 1, 1, "0.500", "0.501")})},
      {"flow-id", objectTrace({kOp, R"({"ph":"s","pid":1,"tid":1,"ts":11.000,"cat":"ac2g","name":"ac2g"})"})},
      {"flow-unmatched", objectTrace({kOp, flowStart})},
      {"flow-binding", objectTrace({kOp, R"({"ph":"s","id":5,"pid":1,"tid":1,"ts":99.000,"cat":"c","name":"n"})",
                                    R"({"ph":"f","id":5,"pid":1,"tid":1,"ts":12.000,"cat":"c","name":"n","bp":"e"})"})},
      {"flow-bp",
       objectTrace({kOp, flowStart, R"({"ph":"f","id":5,"pid":1,"tid":1,"ts":12.0,"cat":"ac2g","name":"ac2g"})"})},
      {"gpu-args", objectTrace({completeEvent("kernel", "gemm", 0, 7, "1.000", "1.000", R"({"correlation":5})")})},
      {"gpu-launch",
       objectTrace({completeEvent("kernel", "gemm", 0, 7, "1.000", "1.000", R"({"stream":7,"correlation":5})")})},
      {"counter-args", objectTrace({R"({"ph":"C","name":"Memory","pid":1,"tid":0,"ts":1.0,"args":{"a":"x"}})"})},
      {"profiler-step", objectTrace({completeEvent("user_annotation", "ProfilerStep#x", 1, 1, "1.000", "1.000")})},
      {"metadata", objectTrace({R"({"ph":"M","name":"process_name","pid":1,"tid":0})"})},
      {"instant-scope", objectTrace({R"({"ph":"i","name":"i","pid":1,"tid":1,"ts":1.0,"s":"z"})"})},
      {"begin-end", objectTrace({R"({"ph":"B","name":"b","pid":1,"tid":1,"ts":1.0})"})},
  };
}

/// Error rules a fixture breaks besides its own, by design.
const std::map<std::string, std::set<std::string>> kCompanions = {
    {"object-form", {"distributed-info"}},  // the array form has no distributedInfo either
    {"unclosed-array", {"object-form", "distributed-info"}},
    {"flow-id", {}},
};

}  // namespace

class TestTraceValidator : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  fs::path path(const std::string& name) const { return fs::path(m_dir.path().toStdString()) / name; }

  TraceValidationReport validateText(const std::string& name, const std::string& text,
                                     TraceValidatorOptions options = {}) {
    fathom::test::writeTraceFile(path(name), text);
    return TraceValidator(std::move(options)).validate(path(name));
  }

  static std::string describe(const TraceValidationReport& r) {
    std::string out;
    for (const auto* list : {&r.errors, &r.warnings}) {
      for (const TraceIssue& i : *list) {
        out += i.rule + ": " + i.message + " [" + i.excerpt + "]\n";
      }
    }
    return out;
  }

private slots:
  void writerOutputIsClean_data() {
    QTest::addColumn<QString>("name");
    QTest::newRow("json") << "good.json";
    QTest::newRow("gzip") << "good.json.gz";
  }
  void writerOutputIsClean() {
    QFETCH(QString, name);
    const fs::path file = path(name.toStdString());
    TraceHeader h;
    h.baseTimeNs = 1000000;
    h.baseTimeUnixNs = 1700000000000000000;
    h.distributed = {.backend = "nccl", .rank = 2, .worldSize = 4};
    {
      ChromeTraceWriter w(file, h);
      w.writeProcessName(100, "rank 2");
      w.writeProcessName(0, "GPU 0");
      w.writeThreadName(0, 7, "stream 7");
      auto at = [&](std::int64_t us) { return h.baseTimeNs + us * 1000; };
      const TraceArg launch[] = {TraceArg::integer("External id", 1), TraceArg::integer("correlation", 5)};
      const TraceArg kernel[] = {TraceArg::integer("stream", 7), TraceArg::integer("correlation", 5)};
      const TraceArg memory[] = {TraceArg::integer("parameters", 1024), TraceArg::integer("gradients", 512)};
      w.write({.category = TraceCategory::UserAnnotation,
               .name = "ProfilerStep#1",
               .startNs = at(0),
               .durationNs = 100000,
               .pid = 100,
               .tid = 100});
      w.write({.name = "aten::mm", .startNs = at(10), .durationNs = 20000, .pid = 100, .tid = 100});
      w.write({.name = "aten::add", .startNs = at(15), .durationNs = 5000, .pid = 100, .tid = 100});
      // A child that ends exactly where its parent (the step) ends.
      w.write({.name = "aten::relu", .startNs = at(90), .durationNs = 10000, .pid = 100, .tid = 100});
      w.write({.phase = TracePhase::Complete,
               .category = TraceCategory::CudaRuntime,
               .name = "cudaLaunchKernel",
               .startNs = at(12),
               .durationNs = 1000,
               .pid = 100,
               .tid = 100,
               .args = launch});
      w.write({.phase = TracePhase::FlowStart,
               .category = TraceCategory::Ac2g,
               .name = "ac2g",
               .startNs = at(12),
               .pid = 100,
               .tid = 100,
               .id = 5});
      w.write({.category = TraceCategory::Kernel,
               .name = "gemm",
               .startNs = at(40),
               .durationNs = 10000,
               .pid = 0,
               .tid = 7,
               .args = kernel});
      w.write({.phase = TracePhase::FlowEnd,
               .category = TraceCategory::Ac2g,
               .name = "ac2g",
               .startNs = at(40),
               .pid = 0,
               .tid = 7,
               .id = 5});
      w.write({.phase = TracePhase::Counter,
               .category = TraceCategory::Memory,
               .name = "Memory",
               .startNs = at(20),
               .pid = 100,
               .tid = 0,
               .args = memory});
      w.write({.phase = TracePhase::Instant,
               .category = TraceCategory::CpuInstantEvent,
               .name = "[memory]",
               .startNs = at(21),
               .pid = 100,
               .tid = 100});
      w.finish();
    }
    const TraceValidationReport r = TraceValidator().validate(file);
    QVERIFY2(r.valid() && r.warningCount == 0, describe(r).c_str());
    QCOMPARE(r.events, std::uint64_t{13});
    QCOMPARE(r.phases.at("X"), std::uint64_t{6});
    QCOMPARE(r.phases.at("M"), std::uint64_t{3});
    QCOMPARE(r.phases.at("s"), std::uint64_t{1});
    QCOMPARE(r.phases.at("f"), std::uint64_t{1});
    QCOMPARE(r.phases.at("C"), std::uint64_t{1});
    QCOMPARE(r.phases.at("i"), std::uint64_t{1});
    QCOMPARE(r.categories.at("cpu_op"), std::uint64_t{3});
    QCOMPARE(r.categories.at("kernel"), std::uint64_t{1});
    QCOMPARE(r.categories.at("ac2g"), std::uint64_t{2});
    QVERIFY(!r.categories.contains("Trace"));  // metadata events carry no cat
  }

  void everyRuleHasAFixture() {
    const auto fixtures = ruleFixtures();
    for (const TraceRule& rule : TraceValidator::rules()) {
      QVERIFY2(fixtures.contains(std::string(rule.id)), std::string(rule.id).c_str());
      QVERIFY(!rule.description.empty() && !rule.source.empty());
    }
    QCOMPARE(fixtures.size(), TraceValidator::rules().size());
  }

  void eachRuleFails_data() {
    QTest::addColumn<QString>("rule");
    for (const TraceRule& rule : TraceValidator::rules()) {
      QTest::newRow(std::string(rule.id).c_str()) << QString::fromUtf8(rule.id.data(), qsizetype(rule.id.size()));
    }
  }
  void eachRuleFails() {
    QFETCH(QString, rule);
    const std::string id = rule.toStdString();
    TraceValidatorOptions options;
    options.chromeMaxEvents = 2;
    const TraceValidationReport r = validateText(id + ".json", ruleFixtures().at(id), options);
    const TraceRule& meta = *std::find_if(TraceValidator::rules().begin(), TraceValidator::rules().end(),
                                          [&](const TraceRule& x) { return x.id == id; });
    const auto& list = meta.level == TraceIssueLevel::Error ? r.errors : r.warnings;
    QVERIFY2(std::any_of(list.begin(), list.end(), [&](const TraceIssue& i) { return i.rule == id; }),
             describe(r).c_str());
    // Precise fixtures: no other error rule fires unless listed as a companion.
    const auto companions = kCompanions.contains(id) ? kCompanions.at(id) : std::set<std::string>{};
    QCOMPARE(r.valid(), meta.level != TraceIssueLevel::Error && companions.empty());
    for (const TraceIssue& e : r.errors) {
      QVERIFY2(e.rule == id || companions.contains(e.rule), describe(r).c_str());
    }
  }

  void perfettoConversionsDiffer() {
    // Nested in exact decimal and in current Perfetto's rounding, crossing by 1 ns under older truncation.
    const TraceValidationReport r = validateText("trunc.json", ruleFixtures().at("nesting-truncation"));
    QVERIFY(r.valid());
    QCOMPARE(r.warnings.size(), std::size_t{1});
    QVERIFY2(contains(r.warnings[0].message, "[500, 1001] ns crosses event #0 [0, 1000] ns on pid 1 tid 1"),
             r.warnings[0].message.c_str());
    // A real overlap is reported once, as an error, not again as a truncation warning.
    const TraceValidationReport n = validateText("nest.json", ruleFixtures().at("nesting"));
    QCOMPARE(n.errorCount, std::uint64_t{1});
    QCOMPARE(n.warningCount, std::uint64_t{0});
    QCOMPARE(n.errors[0].eventIndex, std::int64_t{1});
    QVERIFY(contains(n.errors[0].message, "X event #1 [5000, 15000] ns crosses event #0 [0, 10000] ns"));
    // Abutting spans and equal spans nest; a zero-length span at a parent's end is inside it.
    const TraceValidationReport ok =
        validateText("abut.json", objectTrace({completeEvent("cpu_op", "a", 1, 1, "0.000", "10.000"),
                                               completeEvent("cpu_op", "b", 1, 1, "10.000", "10.000"),
                                               completeEvent("cpu_op", "c", 1, 1, "10.000", "10.000"),
                                               completeEvent("cpu_op", "d", 1, 1, "20.000", "0.000"),
                                               completeEvent("cpu_op", "e", 1, 2, "5.000", "10.000")}));
    QVERIFY2(ok.valid() && ok.warningCount == 0, describe(ok).c_str());
  }

  void flowsPairAcrossTheFile() {
    // The f comes first (GPU events are flushed late in some writers): order in the file does not matter.
    const std::string text = objectTrace(
        {completeEvent("kernel", "k", 0, 7, "40.000", "10.000", R"({"stream":7,"correlation":9})"),
         R"({"ph":"f","id":9,"pid":0,"tid":7,"ts":40.000,"cat":"ac2g","name":"ac2g","bp":"e"})",
         R"({"ph":"s","id":9,"pid":1,"tid":1,"ts":12.000,"cat":"ac2g","name":"ac2g"})",
         completeEvent("cuda_runtime", "cudaLaunchKernel", 1, 1, "12.000", "1.000", R"({"correlation":9})")});
    const TraceValidationReport r = validateText("flows.json", text);
    QVERIFY2(r.valid() && r.warningCount == 0, describe(r).c_str());
    // Same id, other name: not a match.
    const TraceValidationReport other =
        validateText("flows2.json",
                     objectTrace({kOp, R"({"ph":"s","id":5,"pid":1,"tid":1,"ts":11.0,"cat":"ac2g","name":"a"})",
                                  R"({"ph":"f","id":5,"pid":1,"tid":1,"ts":12.0,"cat":"ac2g","name":"b","bp":"e"})"}));
    QCOMPARE(other.issuesPerRule.at("flow-unmatched"), std::uint64_t{2});
  }

  /// A slice whose end is past 2^63 ns is an x-dur finding, not a signed overflow (found by fuzz_trace_validator:
  /// ts 20 us + dur 3.1e20 us made `ts + dur` overflow int64 in the nesting check).
  void durationPastTheClockIsAFinding() {
    const TraceValidationReport r =
        validateText("huge-dur.json",
                     objectTrace({kOp, completeEvent("cpu_op", "forever", 1, 2, "20", "309223372036854775807.25")}));
    QCOMPARE(r.issuesPerRule.count("x-dur"), std::size_t{1});
    QVERIFY2(contains(describe(r), "ts + dur is beyond 2^63 ns"), describe(r).c_str());
  }

  void malformedEventNamesOffset() {
    const std::string text = objectTrace({kOp, R"({"ph":"X","name":tru})", kOp});
    const TraceValidationReport r = validateText("bad-event.json", text);
    QCOMPARE(r.issuesPerRule.at("json"), std::uint64_t{1});
    QCOMPARE(r.errors[0].eventIndex, std::int64_t{1});
    QVERIFY2(
        contains(r.errors[0].message,
                 "bad-event.json: malformed event #1 (an invalid literal (true, false and null are the only words))") &&
            contains(r.errors[0].message, "(line 3)"),
        r.errors[0].message.c_str());
    QCOMPARE(r.events, std::uint64_t{3});  // the checks go on after a bad event
    // A truncated file: one json finding, and the checks stop.
    const TraceValidationReport t = validateText("cut.json", text.substr(0, text.size() / 2));
    QCOMPARE(t.errorCount, std::uint64_t{1});
    QVERIFY(contains(t.errors[0].message, "truncated trace"));
    QVERIFY(fathom::test::throwsType<fathom::StorageError>([&] { TraceValidator().validate(path("missing.json")); }));
  }

  void strictJson_data() {
    // Events the reader's scanner accepts (brackets and strings balance) that JSON.parse refuses.
    QTest::addColumn<QByteArray>("event");
    QTest::addColumn<QString>("reason");
    QTest::newRow("literal") << QByteArray("{\"ph\":\"X\",\"a\":tru}") << "an invalid literal";
    QTest::newRow("leading zero") << QByteArray("{\"ph\":\"X\",\"ts\":01}") << "expected ',' or '}' in an object";
    QTest::newRow("bare dot") << QByteArray("{\"ph\":\"X\",\"ts\":1.}") << "no digit after its '.'";
    QTest::newRow("exponent") << QByteArray("{\"ph\":\"X\",\"ts\":1e}") << "no digit in its exponent";
    QTest::newRow("plus sign") << QByteArray("{\"ph\":\"X\",\"ts\":+1}") << "expected a value";
    QTest::newRow("trailing comma") << QByteArray("{\"ph\":\"X\",}") << "expected a member name in quotes";
    QTest::newRow("array comma") << QByteArray("{\"ph\":\"X\",\"a\":[1,]}") << "expected a value";
    QTest::newRow("missing colon") << QByteArray("{\"ph\" \"X\"}") << "expected ':' after a member name";
    QTest::newRow("raw tab") << QByteArray("{\"ph\":\"X\",\"name\":\"a\tb\"}") << "a raw control character";
    QTest::newRow("bad escape") << QByteArray("{\"ph\":\"X\",\"name\":\"a\\xb\"}") << "an invalid escape";
    QTest::newRow("short \\u") << QByteArray("{\"ph\":\"X\",\"name\":\"\\u12\"}") << "four hex digits";
    QTest::newRow("invalid UTF-8") << QByteArray("{\"ph\":\"X\",\"name\":\"a\xff\"}") << "not well-formed UTF-8";
    QTest::newRow("overlong UTF-8") << QByteArray("{\"ph\":\"X\",\"name\":\"\xc0\xaf\"}") << "not well-formed UTF-8";
  }
  void strictJson() {
    QFETCH(QByteArray, event);
    QFETCH(QString, reason);
    const TraceValidationReport r = validateText("strict.json", objectTrace({kOp, event.toStdString()}));
    QCOMPARE(r.issuesPerRule.count("json"), std::size_t{1});
    QVERIFY2(contains(r.errors[0].message, "malformed event #1 (") &&
                 contains(r.errors[0].message, reason.toStdString()),
             r.errors[0].message.c_str());
    QCOMPARE(r.errors[0].eventIndex, std::int64_t{1});
  }

  void strictJsonAcceptsValidEvents() {
    const TraceValidationReport r = validateText(
        "valid.json",
        objectTrace({completeEvent("cpu_op", "a \\\"q\\\" \\\\ \\/ \\n \xc3\xa9\xf0\x9f\x98\x80", 1, 1, "0.5e1", "1E+0",
                                   "{\"n\":[-0,0.25,1e-3,true,false,null,{},[]],\"s\":\"\"}")}));
    QVERIFY2(r.valid() && r.warningCount == 0, describe(r).c_str());
  }

  void issuesAreCappedAndExcerpted() {
    std::vector<std::string> events;
    for (int i = 0; i < 50; ++i) {
      events.push_back("{\"name\":\"" + std::string(300, 'n') + "\",\"ts\":1}");
    }
    TraceValidatorOptions options;
    options.maxIssuesPerRule = 5;
    std::uint64_t progress = 0;
    options.progressEvery = 10;
    options.onProgress = [&](std::uint64_t n) { progress = n; };
    const TraceValidationReport r = validateText("many.json", objectTrace(events), options);
    QCOMPARE(r.errorCount, std::uint64_t{50});
    QCOMPARE(r.errors.size(), std::size_t{5});
    QCOMPARE(r.issuesPerRule.at("ph"), std::uint64_t{50});
    QCOMPARE(r.errors[4].eventIndex, std::int64_t{4});
    QCOMPARE(r.errors[0].excerpt.size(), std::size_t{163});  // 160 bytes and "..."
    QVERIFY(r.errors[0].excerpt.rfind("{\"name\":\"nnn", 0) == 0);
    QCOMPARE(progress, std::uint64_t{50});
  }
};

QTEST_GUILESS_MAIN(TestTraceValidator)
#include "tst_trace_validator.moc"
