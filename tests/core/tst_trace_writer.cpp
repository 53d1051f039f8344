// SPDX-License-Identifier: Apache-2.0
// core/profile, writing: the text primitives (timestamps, strings), TraceFileSink (atomic files, gzip, onChunk) and
// ChromeTraceWriter (exact bytes of small traces, clamping, argument types, header checks).
#include "error_helpers.h"
#include "trace_fixtures.h"

#include "trace/trace_json.h"
#include <fathom/common/error.h>
#include <fathom/trace/chrome_trace_writer.h>
#include <fathom/trace/trace_event_view.h>
#include <fathom/trace/trace_reader.h>

#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <filesystem>
#include <limits>

using namespace fathom::trace;
namespace fs = std::filesystem;
using fathom::test::contains;
using fathom::test::messageOf;
using fathom::test::readRaw;
using fathom::test::readText;

namespace {

std::string micros(std::int64_t ns) {
  std::string out;
  appendMicros(out, ns);
  return out;
}

std::string quoted(std::string_view text) {
  std::string out;
  appendJsonString(out, text);
  return out;
}

/// A header with round numbers: base 1000 ns on the profiler clock, rank 1 of 2.
TraceHeader smallHeader() {
  TraceHeader h;
  h.baseTimeNs = 1000;
  h.baseTimeUnixNs = 1700000000123456789;
  h.distributed = {.backend = "gloo", .rank = 1, .worldSize = 2};
  h.traceName = "rank1";
  return h;
}

}  // namespace

class TestTraceWriter : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  fs::path path(const char* name) const { return fs::path(m_dir.path().toStdString()) / name; }

private slots:
  void micros_data() {
    QTest::addColumn<qint64>("ns");
    QTest::addColumn<QString>("text");
    QTest::newRow("zero") << qint64(0) << "0.000";
    QTest::newRow("1 ns") << qint64(1) << "0.001";
    QTest::newRow("999 ns") << qint64(999) << "0.999";
    QTest::newRow("1 us") << qint64(1000) << "1.000";
    QTest::newRow("1001 ns") << qint64(1001) << "1.001";
    QTest::newRow("10 us 20 ns") << qint64(10020) << "10.020";
    QTest::newRow("one day") << qint64(86400000000000) << "86400000000.000";
    QTest::newRow("unix epoch ns") << qint64(1700000000123456789) << "1700000000123456.789";
    QTest::newRow("int64 max") << std::numeric_limits<qint64>::max() << "9223372036854775.807";
    QTest::newRow("-1 ns") << qint64(-1) << "-0.001";
    QTest::newRow("-1500 ns") << qint64(-1500) << "-1.500";
    QTest::newRow("int64 min") << std::numeric_limits<qint64>::min() << "-9223372036854775.808";
  }
  void micros() {
    QFETCH(qint64, ns);
    QFETCH(QString, text);
    QCOMPARE(QString::fromStdString(::micros(ns)), text);
    // The reverse is exact too.
    QCOMPARE(parseMicros(::micros(ns)).value_or(-42), ns);
  }

  void parseMicrosEdges() {
    QCOMPARE(parseMicros("12.345").value_or(-1), 12345);
    QCOMPARE(parseMicros("7").value_or(-1), 7000);
    QCOMPARE(parseMicros("-0.5").value_or(0), -500);
    QCOMPARE(parseMicros("0.0001").value_or(-1), 0);     // below a nanosecond: truncated
    QCOMPARE(parseMicros("1.9999").value_or(-1), 1999);  // truncated, not rounded
    QCOMPARE(parseMicros("1.5e3").value_or(-1), 1500000);
    QCOMPARE(parseMicros("1.001").value_or(-1), 1001);  // a double would give 1000.9999999999999
    QVERIFY(!parseMicros(""));
    QVERIFY(!parseMicros("abc"));
    QVERIFY(!parseMicros("1."));
    QVERIFY(!parseMicros(".5"));
    QVERIFY(!parseMicros("1.0x"));
    QVERIFY(!parseMicros("\"1.0\""));
    QVERIFY(!parseMicros("9223372036854775.808"));  // one past int64
  }

  void perfettoConversions() {
    // "1.001" is 1000.9999999999999 ns as a double: older Perfetto truncates to 1000, current Perfetto rounds.
    QCOMPARE(perfettoTruncatedNs(1.001), 1000);
    QCOMPARE(perfettoRoundedNs(1.001), 1001);
    QCOMPARE(perfettoTruncatedNs(2.5), 2500);
    QCOMPARE(perfettoRoundedNs(-0.0015), -2);
    QCOMPARE(perfettoTruncatedNs(std::nan("")), std::numeric_limits<std::int64_t>::min());
    QCOMPARE(perfettoRoundedNs(1e300), std::numeric_limits<std::int64_t>::max());
  }

  void escaping_data() {
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<QByteArray>("expected");
    QTest::newRow("plain") << QByteArray("aten::mm") << QByteArray("\"aten::mm\"");
    QTest::newRow("empty") << QByteArray("") << QByteArray("\"\"");
    QTest::newRow("quote") << QByteArray("say \"hi\"") << QByteArray("\"say \\\"hi\\\"\"");
    QTest::newRow("backslash") << QByteArray("C:\\dir") << QByteArray("\"C:\\\\dir\"");
    QTest::newRow("newline and tab") << QByteArray("a\nb\tc\r") << QByteArray("\"a b c \"");
    QTest::newRow("nul and 0x1f") << QByteArray("a\0b\x1f", 4) << QByteArray("\"a b \"");
    QTest::newRow("DEL stays") << QByteArray("a\x7f") << QByteArray("\"a\x7f\"");
    QTest::newRow("2-byte") << QByteArray("caf\xc3\xa9") << QByteArray("\"caf\xc3\xa9\"");
    QTest::newRow("3-byte") << QByteArray("\xe2\x82\xac") << QByteArray("\"\xe2\x82\xac\"");
    QTest::newRow("4-byte") << QByteArray("\xf0\x9f\x98\x80") << QByteArray("\"\xf0\x9f\x98\x80\"");
    const QByteArray fffd("\xef\xbf\xbd");
    QTest::newRow("lone 0xff") << QByteArray("a\xff"
                                             "b")
                               << QByteArray("\"a" + fffd + "b\"");
    QTest::newRow("lone continuation") << QByteArray("\x80") << QByteArray("\"" + fffd + "\"");
    QTest::newRow("truncated 3-byte") << QByteArray("\xe2\x82") << QByteArray("\"" + fffd + fffd + "\"");
    QTest::newRow("overlong /") << QByteArray("\xc0\xaf") << QByteArray("\"" + fffd + fffd + "\"");
    QTest::newRow("overlong E0") << QByteArray("\xe0\x80\xaf") << QByteArray("\"" + fffd + fffd + fffd + "\"");
    QTest::newRow("surrogate") << QByteArray("\xed\xa0\x80") << QByteArray("\"" + fffd + fffd + fffd + "\"");
    QTest::newRow("above U+10FFFF") << QByteArray("\xf4\x90\x80\x80")
                                    << QByteArray("\"" + fffd + fffd + fffd + fffd + "\"");
    QTest::newRow("valid after invalid") << QByteArray("\xff\xc3\xa9") << QByteArray("\"" + fffd + "\xc3\xa9\"");
  }
  void escaping() {
    QFETCH(QByteArray, input);
    QFETCH(QByteArray, expected);
    const std::string out = quoted(std::string_view(input.constData(), static_cast<std::size_t>(input.size())));
    QCOMPARE(QByteArray::fromStdString(out), expected);
    QVERIFY(!contains(out, "\\u"));
  }

  void exactSmallTrace() {
    const fs::path file = path("small.json");
    TraceHeader h = smallHeader();
    h.metadataJson = R"({"fathom": {"run_id": 3}})";
    h.devices.push_back({.id = 0, .name = "H100", .totalGlobalMem = 80, .computeMajor = 9, .numSms = 132});
    ChromeTraceWriter w(file, h);
    w.writeProcessName(42, "rank 1");
    w.writeThreadSortIndex(42, 7, 3);
    const TraceArg args[] = {TraceArg::integer("External id", 17), TraceArg::string("Input Dims", "[[2, 3]]"),
                             TraceArg::json("grid", "[1,1,1]")};
    w.write({.phase = TracePhase::Complete,
             .category = TraceCategory::CpuOp,
             .name = "aten::mm",
             .startNs = 2000,
             .durationNs = 1500,
             .pid = 42,
             .tid = 7,
             .args = args});
    w.write({.phase = TracePhase::FlowStart,
             .category = TraceCategory::Ac2g,
             .name = "ac2g",
             .startNs = 2000,
             .pid = 42,
             .tid = 7,
             .id = 901});
    w.write({.phase = TracePhase::FlowEnd,
             .category = TraceCategory::Ac2g,
             .name = "ac2g",
             .startNs = 5000,
             .pid = 0,
             .tid = 7,
             .id = 901});
    w.write({.phase = TracePhase::Instant,
             .category = TraceCategory::CpuInstantEvent,
             .scope = 'g',
             .name = "[memory]",
             .startNs = 1999,
             .pid = 42,
             .tid = 7});
    QVERIFY(!fs::exists(file));  // still "<file>.partial"
    QVERIFY(fs::exists(path("small.json.partial")));
    w.finish();
    QVERIFY(!fs::exists(path("small.json.partial")));
    QCOMPARE(w.eventCount(), std::uint64_t{6});
    const std::string expected =
        R"({"schemaVersion":1,"deviceProperties":[{"id":0,"name":"H100","totalGlobalMem":80,"computeMajor":9,)"
        R"("computeMinor":0,"maxThreadsPerBlock":0,"maxThreadsPerMultiprocessor":0,"regsPerBlock":0,)"
        R"("regsPerMultiprocessor":0,"warpSize":0,"sharedMemPerBlock":0,"sharedMemPerMultiprocessor":0,"numSms":132,)"
        R"("sharedMemPerBlockOptin":0}],"fathom": {"run_id": 3},"distributedInfo":{"backend":"gloo","rank":1,)"
        R"("world_size":2},"displayTimeUnit":"ms","baseTimeNanoseconds":1700000000123456789,"traceEvents":[)"
        "\n"
        R"({"ph":"M","name":"process_name","pid":42,"tid":0,"ts":0.000,"args":{"name":"rank 1"}},)"
        "\n"
        R"({"ph":"M","name":"thread_sort_index","pid":42,"tid":7,"ts":0.000,"args":{"sort_index":3}},)"
        "\n"
        R"({"ph":"X","cat":"cpu_op","name":"aten::mm","pid":42,"tid":7,"ts":1.000,"dur":1.500,)"
        R"("args":{"External id":17,"Input Dims":"[[2, 3]]","grid":[1,1,1]}},)"
        "\n"
        R"({"ph":"s","cat":"ac2g","name":"ac2g","pid":42,"tid":7,"ts":1.000,"id":901},)"
        "\n"
        R"({"ph":"f","cat":"ac2g","name":"ac2g","pid":0,"tid":7,"ts":4.000,"id":901,"bp":"e"},)"
        "\n"
        R"({"ph":"i","cat":"cpu_instant_event","name":"[memory]","pid":42,"tid":7,"ts":0.999,"s":"g"})"
        "\n"
        R"(],"traceName":"rank1"})"
        "\n";
    QCOMPARE(QString::fromStdString(readRaw(file)), QString::fromStdString(expected));
  }

  void emptyTraceAndTrailingKeys() {
    const fs::path file = path("empty.json");
    ChromeTraceWriter w(file, smallHeader());
    w.finish(R"({"fathomMerge":{"inputs":[]}})");
    QCOMPARE(QString::fromStdString(readRaw(file)),
             QString::fromStdString(
                 R"({"schemaVersion":1,"deviceProperties":[],"distributedInfo":{"backend":"gloo","rank":1,)"
                 R"("world_size":2},"displayTimeUnit":"ms","baseTimeNanoseconds":1700000000123456789,)"
                 "\"traceEvents\":[\n],\"fathomMerge\":{\"inputs\":[]},\"traceName\":\"rank1\"}\n"));
    // And the reader takes it: no events, all keys.
    TraceReader r(file);
    QVERIFY(!r.next());
    QVERIFY(r.metadata().contains("fathomMerge"));
  }

  void timestampsRelativeToBase() {
    const fs::path file = path("clamp.json");
    TraceHeader h = smallHeader();
    h.baseTimeNs = 1000000;
    ChromeTraceWriter w(file, h);
    // Starts 500 ns before the base and ends 1500 ns after it: ts 0, the end is kept (dur 1.500).
    w.write({.name = "straddles", .startNs = 999500, .durationNs = 2000, .pid = 1, .tid = 1});
    // Entirely before the base: ts 0, dur 0.
    w.write({.name = "before", .startNs = 10, .durationNs = 20, .pid = 1, .tid = 1});
    // Exactly at the base, a negative duration clamps to 0.
    w.write({.name = "negative", .startNs = 1000000, .durationNs = -5, .pid = 1, .tid = 1});
    // 12 days after the base: 13 significant digits, still exact.
    w.write({.name = "late", .startNs = 1000000 + 1036800000000001, .durationNs = 999, .pid = 1, .tid = 1});
    w.finish();
    const std::string text = readRaw(file);
    QVERIFY2(contains(text, R"("name":"straddles","pid":1,"tid":1,"ts":0.000,"dur":1.500})"), text.c_str());
    QVERIFY(contains(text, R"("name":"before","pid":1,"tid":1,"ts":0.000,"dur":0.000})"));
    QVERIFY(contains(text, R"("name":"negative","pid":1,"tid":1,"ts":0.000,"dur":0.000})"));
    QVERIFY(contains(text, R"("name":"late","pid":1,"tid":1,"ts":1036800000000.001,"dur":0.999})"));
  }

  void argTypesAndScopes() {
    const fs::path file = path("args.json");
    ChromeTraceWriter w(file, smallHeader());
    const TraceArg args[] = {TraceArg::integer("neg", -7),        TraceArg::real("half", 0.5),
                             TraceArg::real("nan", std::nan("")), TraceArg::real("inf", INFINITY),
                             TraceArg::boolean("yes", true),      TraceArg::boolean("no", false),
                             TraceArg::json("none", ""),          TraceArg::string("we\"ird\nkey", "v")};
    w.write({.phase = TracePhase::Counter,
             .category = TraceCategory::Memory,
             .name = "Memory",
             .startNs = 1000,
             .pid = 1,
             .tid = 0,
             .args = args});
    w.write({.phase = TracePhase::Instant, .scope = 'x', .name = "bad scope", .startNs = 1000, .pid = 1, .tid = 0});
    w.write({.phase = TracePhase::Instant, .scope = 'p', .name = "process", .startNs = 1000, .pid = 1, .tid = 0});
    w.finish();
    const std::string text = readRaw(file);
    QVERIFY2(
        contains(
            text,
            R"({"ph":"C","cat":"memory","name":"Memory","pid":1,"tid":0,"ts":0.000,"args":{"neg":-7,)"
            "\"half\":0.5,\"nan\":null,\"inf\":null,\"yes\":true,\"no\":false,\"none\":null,\"we\\\"ird key\":\"v\"}}"),
        text.c_str());
    QVERIFY(contains(text, R"("name":"bad scope","pid":1,"tid":0,"ts":0.000,"s":"t"})"));
    QVERIFY(contains(text, R"("name":"process","pid":1,"tid":0,"ts":0.000,"s":"p"})"));
  }

  void metadataHelpers() {
    const fs::path file = path("meta.json");
    ChromeTraceWriter w(file, smallHeader());
    w.writeProcessLabels(3, "GPU 0");
    w.writeProcessSortIndex(3, -2);
    w.writeThreadName(3, 9, "stream 9");
    w.finish();
    const std::string text = readRaw(file);
    QVERIFY(
        contains(text, R"({"ph":"M","name":"process_labels","pid":3,"tid":0,"ts":0.000,"args":{"labels":"GPU 0"}})"));
    QVERIFY(contains(text,
                     R"({"ph":"M","name":"process_sort_index","pid":3,"tid":0,"ts":0.000,"args":{"sort_index":-2}})"));
    QVERIFY(contains(text, R"({"ph":"M","name":"thread_name","pid":3,"tid":9,"ts":0.000,"args":{"name":"stream 9"}})"));
  }

  void headerIsChecked() {
    auto make = [&](TraceHeader h) { ChromeTraceWriter w(path("bad.json"), h); };
    TraceHeader h = smallHeader();
    h.metadataJson = R"({"traceEvents": []})";
    QVERIFY(contains(messageOf([&] { make(h); }), "must not define \"traceEvents\""));
    h.metadataJson = "[1, 2]";
    QVERIFY(contains(messageOf([&] { make(h); }), "must be a JSON object"));
    h.metadataJson = "{oops";
    QVERIFY(contains(messageOf([&] { make(h); }), "is not valid JSON"));
    h = smallHeader();
    h.distributed.rank = -1;
    QVERIFY(fathom::test::throwsType<fathom::ConfigError>([&] { make(h); }));
    QVERIFY(contains(messageOf([&] { make(h); }), "rank must be >= 0, got -1"));
    h = smallHeader();
    h.distributed.worldSize = 0;
    QVERIFY(contains(messageOf([&] { make(h); }), "world_size must be >= 1, got 0"));
    QVERIFY(!fs::exists(path("bad.json")));
    QVERIFY(!fs::exists(path("bad.json.partial")));  // a refused header leaves nothing behind
  }

  void abandonedFileLeavesNothing() {
    {
      ChromeTraceWriter w(path("gone.json"), smallHeader());
      w.write({.name = "x", .startNs = 1000, .pid = 1, .tid = 1});
      QVERIFY(fs::exists(path("gone.json.partial")));
    }  // destroyed before finish()
    QVERIFY(!fs::exists(path("gone.json.partial")));
    QVERIFY(!fs::exists(path("gone.json")));
    // A stale partial file from a crash is replaced, and the final name is only ever a whole file.
    writeRawFile(path("stale.json.partial"), "garbage");
    ChromeTraceWriter w(path("stale.json"), smallHeader());
    w.finish();
    QVERIFY(!contains(readRaw(path("stale.json")), "garbage"));
  }

  void sinkErrorsNameTheFile() {
    const fs::path missingDir = path("no-such-dir") / "t.json";
    const std::string message = messageOf([&] { TraceFileSink sink(missingDir); });
    QVERIFY2(contains(message, "no-such-dir/t.json.partial"), message.c_str());
    QVERIFY(contains(message, "No such file or directory"));
    QVERIFY(fathom::test::throwsType<fathom::StorageError>([&] { TraceFileSink sink(missingDir); }));
    QVERIFY(contains(messageOf([&] { TraceFileSink sink(path("o.json"), {.compressionLevel = 10}); }),
                     "compressionLevel must be 0..9, got 10"));
    QVERIFY(contains(messageOf([&] { TraceFileSink sink(path("o.json"), {.bufferBytes = 8}); }),
                     "bufferBytes must be 64 B .. 1 GiB, got 8"));
    TraceFileSink sink(path("twice.json"));
    sink.finish();
    QVERIFY(contains(messageOf([&] { sink.finish(); }), "already finished"));
    QVERIFY(contains(messageOf([&] { sink.write("x"); }), "already finished"));
  }

  void onChunkFailureAbortsTheFile() {
    TraceFileOptions options;
    options.bufferBytes = 64;
    options.onChunk = [](std::string_view) { throw fathom::StorageError("telemetry is gone"); };
    TraceFileSink sink(path("chunky.json"), options);
    QCOMPARE(QString::fromStdString(messageOf([&] { sink.write(std::string(100, 'x')); })),
             QStringLiteral("telemetry is gone"));
    QVERIFY(!fs::exists(path("chunky.json.partial")));
    QVERIFY(contains(messageOf([&] { sink.write("y"); }), "abandoned"));
  }

  void gzipRoundTripAndChunks_data() {
    QTest::addColumn<QString>("name");
    QTest::newRow("plain") << "many.json";
    QTest::newRow("gzip") << "many.json.gz";
  }
  void gzipRoundTripAndChunks() {
    QFETCH(QString, name);
    const fs::path file = path(name.toStdString().c_str());
    std::string streamed;
    std::size_t chunks = 0;
    TraceFileOptions options;
    options.bufferBytes = 4096;  // many blocks
    options.onChunk = [&](std::string_view block) {
      streamed += block;
      ++chunks;
    };
    ChromeTraceWriter w(file, smallHeader(), options);
    std::vector<std::string> names;
    for (int i = 0; i < 5000; ++i) {
      names.push_back("op " + std::to_string(i) + (i % 7 == 0 ? " \"quoted\" \xc3\xa9" : ""));
      const TraceArg args[] = {TraceArg::integer("i", i)};
      w.write({.name = names.back(), .startNs = 1000 + i * 10, .durationNs = 5, .pid = 1, .tid = 2, .args = args});
    }
    w.finish();
    const std::string onDisk = readRaw(file);
    QCOMPARE(streamed.size(), onDisk.size());
    QVERIFY(streamed == onDisk);  // onChunk saw exactly the bytes on disk, in order
    QVERIFY(chunks > 2);
    QCOMPARE(isGzip(onDisk), name.endsWith(".gz"));
    QCOMPARE(w.sink().bytesOut(), std::uint64_t{onDisk.size()});
    if (name.endsWith(".gz")) {
      QVERIFY(onDisk.size() * 4 < w.sink().bytesIn());  // level 1 still compresses this well
    }
    TraceReader r(file);
    TraceEventView view;
    int i = -1;  // event 0 is ours, in order
    while (r.next()) {
      ++i;
      QVERIFY(view.parse(r.event()));
      QCOMPARE(QString::fromStdString(std::string(view.string("name").value_or("?"))),
               QString::fromStdString(names[static_cast<std::size_t>(i)]));
      QCOMPARE(view.micros("ts").value_or(-1), std::int64_t{i} * 10);
    }
    QCOMPARE(i, 4999);
    QCOMPARE(r.metadata()["distributedInfo"]["rank"].get<int>(), 1);
  }

private:
  static void writeRawFile(const fs::path& file, std::string_view bytes) {
    TraceFileSink sink(file, {.gzip = false});
    sink.write(bytes);
    sink.finish();
  }
};

QTEST_GUILESS_MAIN(TestTraceWriter)
#include "tst_trace_writer.moc"
