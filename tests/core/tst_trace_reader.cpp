// SPDX-License-Identifier: Apache-2.0
// core/profile, reading: TraceInput (gzip, concatenated members, corrupt and truncated streams), TraceReader (object
// and array form, events across chunk boundaries, metadata before and after traceEvents, errors with offsets) and
// TraceEventView (members, unescaping, exact microseconds).
#include "error_helpers.h"
#include "trace_fixtures.h"

#include <fathom/common/error.h>
#include <fathom/trace/trace_event_view.h>
#include <fathom/trace/trace_reader.h>

#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QTest>

#include <filesystem>

using namespace fathom::trace;
namespace fs = std::filesystem;
using fathom::test::contains;
using fathom::test::messageOf;

namespace {

/// All event texts of a trace held in memory, read with `chunkBytes`.
std::vector<std::string> eventsOf(std::string text, std::size_t chunkBytes = 1 << 20) {
  TraceReader r(TraceInput::fromBytes("mem.json", std::move(text)), {.chunkBytes = chunkBytes});
  std::vector<std::string> out;
  while (r.next()) {
    out.emplace_back(r.event());
  }
  return out;
}

/// The message of reading a whole trace held in memory.
std::string readError(std::string text, TraceReaderOptions options = {}) {
  return messageOf([&] {
    TraceReader r(TraceInput::fromBytes("mem.json", std::move(text)), options);
    while (r.next()) {
    }
  });
}

const std::string kTricky = "{\"ph\":\"X\",\"name\":\"a}\\\"]{[\",\"args\":{\"s\":\"\\\\\",\"n\":[1,{\"k\":\"]\"}]}}";

}  // namespace

class TestTraceReader : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  fs::path path(const char* name) const { return fs::path(m_dir.path().toStdString()) / name; }

private slots:
  void objectForm() {
    const std::string text = R"({"schemaVersion":1, "distributedInfo": {"rank": 3},
      "traceEvents": [ {"ph":"X","ts":1.5}, )" +
                             kTricky + R"(
      , {}],
      "traceName": "late key", "baseTimeNanoseconds": 12345678901234567})";
    TraceReader r(TraceInput::fromBytes("mem.json", text));
    QVERIFY(r.objectForm());
    QCOMPARE(r.metadata()["distributedInfo"]["rank"].get<int>(), 3);
    QVERIFY(!r.metadata().contains("traceName"));  // not read yet: it follows traceEvents
    QVERIFY(r.next());
    QCOMPARE(QString::fromStdString(std::string(r.event())), QStringLiteral(R"({"ph":"X","ts":1.5})"));
    QCOMPARE(r.eventIndex(), std::uint64_t{0});
    QCOMPARE(r.eventOffset(), std::uint64_t{text.find(R"({"ph":"X","ts")")});
    QVERIFY(r.next());
    QCOMPARE(std::string(r.event()), kTricky);
    QCOMPARE(r.parseEvent()["args"]["n"][1]["k"].get<std::string>(), std::string("]"));
    QVERIFY(r.next());
    QCOMPARE(std::string(r.event()), std::string("{}"));
    QVERIFY(!r.next());
    QVERIFY(!r.next());  // stays at the end
    QCOMPARE(r.eventCount(), std::uint64_t{3});
    QCOMPARE(r.metadata()["traceName"].get<std::string>(), std::string("late key"));
    QCOMPARE(r.metadata()["baseTimeNanoseconds"].get<std::int64_t>(), std::int64_t{12345678901234567});
    QVERIFY(!r.unclosedArray());
    QVERIFY(!r.trailingComma());
  }

  void arrayForm() {
    QCOMPARE(eventsOf("[]").size(), std::size_t{0});
    const auto events = eventsOf(" \n[{\"a\":1},\n{\"b\":[2]} ]\n");
    QCOMPARE(events.size(), std::size_t{2});
    QCOMPARE(events[1], std::string("{\"b\":[2]}"));
    TraceReader r(TraceInput::fromBytes("mem.json", "[{\"a\":1}]"));
    QVERIFY(!r.objectForm());
    QVERIFY(r.metadata().empty());
  }

  void unclosedArrayIsAccepted() {
    for (const char* text : {"[{\"a\":1},{\"b\":2}", "[{\"a\":1},{\"b\":2},\n", "[{\"a\":1},{\"b\":2}\n"}) {
      TraceReader r(TraceInput::fromBytes("mem.json", text));
      int n = 0;
      while (r.next()) {
        ++n;
      }
      QCOMPARE(n, 2);
      QVERIFY(r.unclosedArray());
    }
  }

  void trailingCommaIsTolerated() {
    TraceReader r(TraceInput::fromBytes("mem.json", R"({"traceEvents":[{"a":1},]})"));
    QVERIFY(r.next());
    QVERIFY(!r.next());
    QVERIFY(r.trailingComma());
  }

  void byteOrderMark() { QCOMPARE(eventsOf("\xEF\xBB\xBF[{\"a\":1}]").size(), std::size_t{1}); }

  void chunkBoundaries() {
    // Every chunk size from 16 bytes up cuts events, strings and escapes at every possible place.
    std::vector<std::string> events;
    for (int i = 0; i < 40; ++i) {
      events.push_back(fathom::test::completeEvent("cpu_op", "op\\\"" + std::to_string(i) + "}]", 1, 2,
                                                   std::to_string(i) + ".125", "0.500",
                                                   "{\"deep\":[[[{\"x\":\"\\\\\"}]]]}"));
    }
    events.push_back("{\"big\":\"" + std::string(5000, 'z') + "\"}");  // larger than the buffer: it grows
    const std::string text = fathom::test::objectTrace(events);
    const auto whole = eventsOf(text);
    QCOMPARE(whole, events);
    for (std::size_t chunk : {16, 17, 31, 64, 100, 257, 1000}) {
      QCOMPARE(eventsOf(text, chunk), events);
    }
  }

  void gzipFiles() {
    const std::string text = fathom::test::objectTrace({R"({"ph":"i","ts":1})", R"({"ph":"i","ts":2})"});
    fathom::test::writeTraceFile(path("t.json.gz"), text);
    QVERIFY(isGzip(fathom::test::readRaw(path("t.json.gz"))));
    TraceReader r(path("t.json.gz"));
    QVERIFY(r.next() && r.next() && !r.next());
    // A gzip file under a .json name is still read as gzip: the magic decides.
    fs::copy_file(path("t.json.gz"), path("gz-named.json"));
    QCOMPARE(fathom::test::readText(path("gz-named.json")), text);
    // Concatenated members (cat a.gz b.gz) are one stream.
    fathom::test::writeTraceFile(path("a.gz"), text.substr(0, 40));
    fathom::test::writeTraceFile(path("b.gz"), text.substr(40));
    fathom::test::writeTraceFile(path("ab.json"),
                                 fathom::test::readRaw(path("a.gz")) + fathom::test::readRaw(path("b.gz")));
    QCOMPARE(fathom::test::readText(path("ab.json")), text);
  }

  void brokenGzip() {
    std::string text;
    for (int i = 0; i < 2000; ++i) {
      text += std::to_string(i * 7919 % 10007) + ",";  // poorly compressible: the gzip stream is long
    }
    fathom::test::writeTraceFile(path("c.json.gz"), "[" + text + "1]");
    const std::string gz = fathom::test::readRaw(path("c.json.gz"));
    fathom::test::writeTraceFile(path("cut.json"), gz.substr(0, gz.size() / 2));
    std::string message = messageOf([&] { fathom::test::readText(path("cut.json")); });
    QVERIFY2(contains(message, "cut.json: truncated gzip stream"), message.c_str());
    std::string corrupt = gz;
    corrupt[gz.size() / 2] = static_cast<char>(corrupt[gz.size() / 2] ^ 0x55);
    corrupt[gz.size() / 2 + 1] = static_cast<char>(corrupt[gz.size() / 2 + 1] ^ 0x55);
    fathom::test::writeTraceFile(path("corrupt.json"), corrupt);
    message = messageOf([&] { fathom::test::readText(path("corrupt.json")); });
    QVERIFY2(contains(message, "corrupt.json: corrupt gzip data at compressed byte") ||
                 contains(message, "corrupt.json: truncated gzip stream"),
             message.c_str());
    fathom::test::writeTraceFile(path("tail.json"), gz + "junk");
    message = messageOf([&] { fathom::test::readText(path("tail.json")); });
    QVERIFY2(contains(message, "unexpected bytes after the end of the gzip stream at compressed byte " +
                                   std::to_string(gz.size())),
             message.c_str());
  }

  void malformedFilesNameOffsetAndLine() {
    // A '{' closed by ']' inside the second event, on line 3.
    const std::string text = "{\"traceEvents\":[\n{\"a\":1},\n{\"b\":{\"c\":2]}]}";
    std::string message = readError(text);
    const std::size_t at = text.find("2]") + 1;
    QVERIFY2(contains(message, "mem.json: expected '}' to close an object at byte " + std::to_string(at) + " (line 3)"),
             message.c_str());
    message = readError("{\"traceEvents\":[{\"a\":1} {\"b\":2}]}");
    QVERIFY2(contains(message, "expected ',' or ']' after an event at byte 24 (line 1)"), message.c_str());
    QVERIFY(contains(readError("{\"x\":1} trailing"), "unexpected text after the end of the trace at byte 8"));
    QVERIFY(contains(readError("\n\n  hello"), "must start with '{' (object form) or '[' (array form) at byte 4 "
                                               "(line 3)"));
    QVERIFY(contains(readError(""), "mem.json: empty file"));
    QVERIFY(contains(readError("{\"displayTimeUnit\":\"ms\"}"), "has no traceEvents array"));
    QVERIFY(contains(readError("{\"traceEvents\":{}}"), "traceEvents must be an array"));
    QVERIFY(contains(readError("{\"traceEvents\":[], 7:1}"), "expected a member name in quotes"));
    QVERIFY(contains(readError("{\"meta\": tru, \"traceEvents\":[]}"), "malformed value of \"meta\""));
    QVERIFY(contains(readError("[{\"a\":1},,{}]"), "expected a JSON value"));
    const std::string big = "[{\"s\":\"" + std::string(4096, 'x') + "\"}]";
    QVERIFY(contains(readError(big, {.chunkBytes = 64, .maxValueBytes = 1024}),
                     "a single value larger than the limit of 1024 bytes"));
    QCOMPARE(eventsOf(big, 64).size(), std::size_t{1});  // the default limit takes it
  }

  void truncatedFilesSaySo_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("where");
    QTest::newRow("inside an event") << R"({"traceEvents":[{"a":1},{"b":)"
                                     << "inside event #1";
    QTest::newRow("inside a string") << "{\"traceEvents\":[{\"a\":\"abc"
                                     << "inside event #0";
    QTest::newRow("after an event") << R"({"traceEvents":[{"a":1})"
                                    << "inside traceEvents";
    QTest::newRow("after a comma") << R"({"traceEvents":[{"a":1},)"
                                   << "inside traceEvents";
    QTest::newRow("after the array") << R"({"traceEvents":[{"a":1}])"
                                     << "inside the top-level object";
    QTest::newRow("inside a key") << "{\"traceEv"
                                  << "inside a top-level key";
    QTest::newRow("inside a value") << R"({"meta":{"a":[1,2)"
                                    << "inside the value of \"meta\"";
    QTest::newRow("array form mid-event") << "[{\"a\":1},{\"b"
                                          << "inside event #1";
  }
  void truncatedFilesSaySo() {
    QFETCH(QString, text);
    QFETCH(QString, where);
    const std::string message = readError(text.toStdString());
    QVERIFY2(contains(message, "mem.json: truncated trace: the file ends " + where.toStdString()), message.c_str());
  }

  void parseEventErrors() {
    TraceReader r(TraceInput::fromBytes("mem.json", "[\n{\"a\":1},\n{\"a\":tru}]"));
    QVERIFY(r.next());
    QCOMPARE(r.parseEvent()["a"].get<int>(), 1);
    QVERIFY(r.next());
    const std::string message = messageOf([&] { r.parseEvent(); });
    QVERIFY2(contains(message, "mem.json: malformed event #1 (") && contains(message, "(line 3)"), message.c_str());
    // nlohmann stops at the '}' after "tru": byte 11 (the event) + 8.
    QVERIFY2(contains(message, "invalid literal") && contains(message, "at byte 19"), message.c_str());
    QVERIFY(!contains(message, "column"));
  }

  void readMetadataReadsTheWholeFile() {
    fathom::test::writeTraceFile(path("m.json"),
                                 R"({"traceEvents":[{"ph":"i"}],"distributedInfo":{"rank":5},"x":[1]})");
    const nlohmann::json meta = TraceReader::readMetadata(path("m.json"));
    QCOMPARE(meta["distributedInfo"]["rank"].get<int>(), 5);
    QCOMPARE(meta["x"][0].get<int>(), 1);
    QVERIFY(contains(messageOf([&] { TraceReader::readMetadata(path("none.json")); }), "cannot open"));
  }

  void eventView() {
    TraceEventView v;
    QVERIFY(v.parse(" { \"ph\" : \"X\", \"name\":\"a\\\"b\\u00e9\\ud83d\\ude00\", \"ts\": 12.345, \"dur\":7,\n         "
                    "                  \"pid\":-3, \"args\":{\"k\":[1,2]}, \"id\":\"0x1f\" } "));
    QCOMPARE(v.members().size(), std::size_t{7});
    QCOMPARE(v.phase(), 'X');
    QCOMPARE(std::string(v.string("name").value_or("?")), std::string("a\"b\xc3\xa9\xf0\x9f\x98\x80"));
    QCOMPARE(v.micros("ts").value_or(-1), 12345);
    QCOMPARE(v.micros("dur").value_or(-1), 7000);
    QCOMPARE(v.integer("pid").value_or(0), -3);
    QCOMPARE(std::string(v.raw("args")), std::string(R"({"k":[1,2]})"));
    QCOMPARE(std::string(v.raw("id")), std::string("\"0x1f\""));
    QVERIFY(!v.string("ts"));   // not a string
    QVERIFY(!v.integer("ts"));  // not an integer
    QVERIFY(!v.has("cat"));
    QVERIFY(v.parse("{}"));
    QVERIFY(v.members().empty());
    QCOMPARE(v.phase(), '\0');
    // Malformed events, with where.
    QVERIFY(!v.parse(R"({"a":1,})"));
    QCOMPARE(v.errorOffset(), std::size_t{7});
    QVERIFY(!v.parse(R"({"a" 1})"));
    QCOMPARE(std::string(v.error()), std::string("expected ':' after a member name"));
    QVERIFY(!v.parse(R"([1])"));
    QVERIFY(!v.parse(R"({"a":{"b":1})"));
    QVERIFY(!v.parse(R"({"a":1} x)"));
    QVERIFY(!v.string("a"));  // a failed parse leaves no members
    std::string out;
    QVERIFY(!unescapeJsonString("\\ud83d", out));  // a lone high surrogate
    QVERIFY(!unescapeJsonString("\\x", out));
    QVERIFY(unescapeJsonString("\\/\\b\\f\\n\\r\\t", out));
    QCOMPARE(out, std::string("/\b\f\n\r\t"));
  }

  void eventViewStrict() {
    // parseStrict: the same members as parse(), and the whole grammar checked in the same pass.
    using Strict = TraceEventView::Strict;
    TraceEventView v;
    // (Plain literals where a string holds \": moc's tokenizer reads raw strings as ordinary ones.)
    const std::string event =
        " {\"ph\":\"X\",\"name\":\"a\\\"b\",\"ts\":1.5e3,\"args\":{\"k\":[true,null,-0.25]},\"id\":\"0x1f\"} ";
    QCOMPARE(v.parseStrict(event), Strict::Object);
    QCOMPARE(v.members().size(), std::size_t{5});
    QCOMPARE(std::string(v.members()[1].key), std::string("name"));
    QCOMPARE(std::string(v.string("name").value_or("?")), std::string("a\"b"));
    QCOMPARE(std::string(v.raw("args")), std::string(R"({"k":[true,null,-0.25]})"));
    QCOMPARE(v.micros("ts").value_or(-1), 1'500'000);
    QCOMPARE(v.parseStrict("{}"), Strict::Object);
    QVERIFY(v.members().empty());
    QCOMPARE(v.parseStrict(" [1,{\"a\":2}] "), Strict::NotAnObject);
    QVERIFY(v.members().empty());
    QCOMPARE(v.parseStrict("7"), Strict::NotAnObject);
    // What parse() lets through (it checks the shape, not the values) but JSON does not allow.
    for (const char* bad : {R"({"a":01})", R"({"a":tru})", "{\"a\":\"\\x\"}", "{\"a\":\"\x01\"}", "{\"a\":\"\xff\"}",
                            R"({"a":1.})", R"({"a":[1,]})"}) {
      QVERIFY2(v.parse(bad), bad);
      QCOMPARE(v.parseStrict(bad), Strict::NotJson);
      QVERIFY2(v.members().empty(), bad);  // a malformed text hands out no members
    }
    QCOMPARE(v.parseStrict(R"({"a":1,"b":[1 2]})"), Strict::NotJson);
    QCOMPARE(v.errorOffset(), std::size_t{14});
    QCOMPARE(std::string(v.error()), std::string("expected ',' or ']' in an array"));
  }
};

QTEST_GUILESS_MAIN(TestTraceReader)
#include "tst_trace_reader.moc"
