// SPDX-License-Identifier: Apache-2.0
// The independent Kineto trace checker (tests/support/kineto_trace_checker.h) against hand-written traces: a
// known-good one passes clean, and one edit per rule breaks exactly that rule. Every failing row names the exact
// set of rules it must trip, so a rule that stops firing (or fires where it should not) fails this test.
#include "kineto_trace_checker.h"
#include "kineto_trace_raw.h"

#include <QTemporaryDir>
#include <QTest>

#include <zlib.h>

using namespace Qt::StringLiterals;
using fathom::test::checkKinetoTrace;
using fathom::test::checkKinetoTraceBytes;
using fathom::test::TraceCheck;
using fathom::test::TraceCheckOptions;

namespace {

/// gzip (not zlib) framing, as HTA's *.json.gz expects: windowBits 15 + 16.
QByteArray gzip(const QByteArray& plain) {
  z_stream zs{};
  if (deflateInit2(&zs, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return {};
  QByteArray out(static_cast<qsizetype>(deflateBound(&zs, static_cast<uLong>(plain.size()))), Qt::Uninitialized);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(plain.constData()));
  zs.avail_in = static_cast<uInt>(plain.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&zs, Z_FINISH);
  out.resize(static_cast<qsizetype>(zs.total_out));
  deflateEnd(&zs);
  return rc == Z_STREAM_END ? out : QByteArray();
}

bool writeFile(const QString& path, const QByteArray& bytes) {
  QFile f(path);
  return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

/// The minimal shape of the format notes (§2.7), verbatim.
const char* const kNotesExample =
    "{\"schemaVersion\":1,\"deviceProperties\":[{\"id\":0,\"name\":\"H100\",\"numSms\":132}],\n"
    " \"distributedInfo\":{\"backend\":\"nccl\",\"rank\":0,\"world_size\":8},\n"
    " \"displayTimeUnit\":\"ms\",\"baseTimeNanoseconds\":1700000000000000000,\"traceEvents\":[\n"
    " {\"ph\":\"M\",\"name\":\"process_name\",\"pid\":0,\"tid\":0,\"args\":{\"name\":\"GPU 0\"}},\n"
    " {\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#3\",\"pid\":4242,\"tid\":4242,"
    "\"ts\":10.000,\"dur\":900.000},\n"
    " {\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":4242,\"tid\":4242,\"ts\":20.000,\"dur\":30.000,"
    "\"args\":{\"External id\":17}},\n"
    " {\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":4242,\"tid\":4242,\"ts\":25.000,"
    "\"dur\":5.000,\n"
    "  \"args\":{\"External id\":17,\"cbid\":211,\"correlation\":901}},\n"
    " {\"ph\":\"s\",\"id\":901,\"pid\":4242,\"tid\":4242,\"ts\":25.000,\"cat\":\"ac2g\",\"name\":\"ac2g\"},\n"
    " {\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"sm90_gemm\",\"pid\":0,\"tid\":7,\"ts\":40.000,\"dur\":12.500,\n"
    "  \"args\":{\"External id\":17,\"device\":0,\"stream\":7,\"correlation\":901,\"grid\":[132,1,1],"
    "\"block\":[128,1,1]}},\n"
    " {\"ph\":\"f\",\"id\":901,\"pid\":0,\"tid\":7,\"ts\":40.000,\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\"}]}\n";

}  // namespace

class TestKinetoTraceChecker : public QObject {
  Q_OBJECT

private slots:
  void initTestCase() {
    QFile f(QStringLiteral(FATHOM_TEST_DATA_DIR "/traces/kineto_good_rank0.json"));
    QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(f.fileName()));
    m_good = f.readAll();
    QVERIFY(!m_good.isEmpty());
  }

  void goodTracePasses() {
    const TraceCheck c = checkKinetoTrace(QStringLiteral(FATHOM_TEST_DATA_DIR "/traces/kineto_good_rank0.json"));
    QVERIFY2(c.ok(), qPrintable(c.report()));
    QVERIFY2(c.warnings.isEmpty(), qPrintable(c.report()));
  }

  void goodTraceStats() {
    const TraceCheck c = checkKinetoTraceBytes(m_good);
    QVERIFY2(c.ok(), qPrintable(c.report()));
    QCOMPARE(c.schemaVersion, 1);
    QCOMPARE(c.rank, 0);
    QCOMPARE(c.worldSize, 2);
    QCOMPARE(c.backend, u"nccl"_s);
    QCOMPARE(c.displayTimeUnit, u"ms"_s);
    QCOMPARE(c.baseTimeNanoseconds, Q_INT64_C(1700000000000000001));  // beyond a double's 53 bits: read exactly
    QCOMPARE(c.eventCount, 24);
    const QMap<QString, int> phases{{u"M"_s, 10}, {u"X"_s, 8}, {u"s"_s, 2}, {u"f"_s, 2}, {u"i"_s, 1}, {u"C"_s, 1}};
    QCOMPARE(c.eventsByPhase, phases);
    const QMap<QString, int> cats{
        {u"user_annotation"_s, 2}, {u"cpu_op"_s, 2}, {u"cuda_runtime"_s, 2},      {u"kernel"_s, 1},
        {u"gpu_memcpy"_s, 1},      {u"ac2g"_s, 4},   {u"cpu_instant_event"_s, 1}, {u"memory"_s, 1}};
    QCOMPARE(c.eventsByCategory, cats);
    QCOMPARE(c.profilerSteps, (QList<int>{3, 4}));
    QCOMPARE(c.pids, (QList<qint64>{0, 4242}));
    QCOMPARE(c.processNames.value(0), u"GPU 0"_s);
    QCOMPARE(c.processNames.value(4242), u"python 4242"_s);
    QCOMPARE(c.threadNames.value({4242, 4242}), u"thread 4242 (main, µ-batch loop)"_s);  // plain UTF-8 is fine
    QCOMPARE(c.threadNames.value({0, 7}), u"stream 7"_s);
    QCOMPARE(c.counterNames, QStringList{u"GPU 0 memory"_s});
    QCOMPARE(c.flowPairs, 2);
    QCOMPARE(c.memoryEvents, 1);
    QCOMPARE(c.minTsNs, Q_INT64_C(10000));
    QCOMPARE(c.maxTsNs, Q_INT64_C(930000));
    QCOMPARE(c.maxEndNs, Q_INT64_C(1010000));
  }

  // The example in the format notes has no errors; it names only GPU 0, so the CPU row and both threads warn.
  void notesExampleLoads() {
    const TraceCheck c = checkKinetoTraceBytes(kNotesExample);
    QVERIFY2(c.ok(), qPrintable(c.report()));
    QCOMPARE(c.warningRules(), (QStringList{u"process-name"_s, u"thread-name"_s}));
    QCOMPARE(c.warningsByRule.value(u"thread-name"_s), 2);
    QCOMPARE(c.flowPairs, 1);
  }

  void gzipVariant() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QByteArray packed = gzip(m_good);
    QVERIFY(packed.startsWith("\x1f\x8b"));
    const QString path = dir.filePath(u"rank0.json.gz"_s);
    QVERIFY(writeFile(path, packed));
    const TraceCheck zipped = checkKinetoTrace(path);
    QVERIFY2(zipped.ok(), qPrintable(zipped.report()));
    QVERIFY2(zipped.warnings.isEmpty(), qPrintable(zipped.report()));
    const TraceCheck plain = checkKinetoTraceBytes(m_good);
    QCOMPARE(zipped.eventsByCategory, plain.eventsByCategory);
    QCOMPARE(zipped.threadNames, plain.threadNames);
    QCOMPARE(zipped.maxEndNs, plain.maxEndNs);

    // Two gzip members (what `cat a.gz b.gz` gives) read as one text.
    const qsizetype half = m_good.size() / 2;
    const TraceCheck members = checkKinetoTraceBytes(gzip(m_good.left(half)) + gzip(m_good.mid(half)));
    QVERIFY2(members.ok(), qPrintable(members.report()));
    QCOMPARE(members.eventCount, 24);
  }

  void gzipDamaged() {
    const QByteArray packed = gzip(m_good);
    const TraceCheck cut = checkKinetoTraceBytes(packed.left(packed.size() - 12));
    QCOMPARE(cut.errorRules(), QStringList{u"gzip"_s});
    QByteArray flipped = packed;
    flipped[packed.size() / 2] = static_cast<char>(flipped[packed.size() / 2] ^ 0x55);
    QCOMPARE(checkKinetoTraceBytes(flipped).errorRules(), QStringList{u"gzip"_s});
  }

  void fileNames() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QCOMPARE(checkKinetoTrace(dir.filePath(u"missing.json"_s)).errorRules(), QStringList{u"file"_s});
    const QString fakeGz = dir.filePath(u"rank0.json.gz"_s);
    QVERIFY(writeFile(fakeGz, m_good));
    QCOMPARE(checkKinetoTrace(fakeGz).errorRules(), QStringList{u"gzip"_s});
    const QString oddName = dir.filePath(u"rank0.trace"_s);
    QVERIFY(writeFile(oddName, m_good));
    const TraceCheck c = checkKinetoTrace(oddName);
    QVERIFY2(c.ok(), qPrintable(c.report()));
    QCOMPARE(c.warningRules(), QStringList{u"file-name"_s});
  }

  // Each row edits the good trace (every `from` must occur exactly once) and names the exact rules it breaks.
  void brokenRule_data() {
    QTest::addColumn<QByteArrayList>("edits");  // from, to, from, to, ...
    QTest::addColumn<QStringList>("errors");
    QTest::addColumn<QStringList>("warnings");
    const auto row = [](const char* name, QByteArrayList edits, QStringList errors, QStringList warnings = {}) {
      QTest::newRow(name) << edits << errors << warnings;
    };

    // The container (§1.1, §2.6.2, §2.7).
    row("cut inside traceEvents", {"\"bp\": \"e\"}\n]}", "\"bp\": \"e\"}\n"}, {u"truncated"_s});
    row("cut before the last brace", {"\"bp\": \"e\"}\n]}", "\"bp\": \"e\"}\n]"}, {u"truncated"_s});
    row("cut inside a string", {"\"bp\": \"e\"}\n]}", "\"bp\": \"e"}, {u"truncated"_s});
    row("no traceEvents", {"\"traceEvents\": [", "\"events\": ["}, {u"trace-events"_s});
    row("syntax error",
        {"\"pid\": 0, \"tid\": 7, \"ts\": 40.000, \"dur\"", "\"pid\": 0, \"tid\": 7 \"ts\": 40.000, \"dur\""},
        {u"json"_s});
    row("\\u escape", {"\"aten::mm\"", "\"aten::mm\\u00e9\""}, {u"unicode-escape"_s});
    // Top level (§2.1, §2.6.1, §2.7, §1.6).
    row("no schemaVersion", {"\"schemaVersion\": 1,", ""}, {u"schema-version"_s});
    row("string schemaVersion", {"\"schemaVersion\": 1,", "\"schemaVersion\": \"1\","}, {u"schema-version"_s});
    row("schemaVersion 2", {"\"schemaVersion\": 1,", "\"schemaVersion\": 2,"}, {}, {u"schema-version"_s});
    row("no distributedInfo", {"\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 0, \"world_size\": 2},", ""},
        {u"distributed-info"_s});
    row("no rank", {"\"rank\": 0, ", ""}, {u"distributed-info"_s});
    row("string rank", {"\"rank\": 0,", "\"rank\": \"0\","}, {u"distributed-info"_s});
    row("float rank", {"\"rank\": 0,", "\"rank\": 0.0,"}, {u"distributed-info"_s});
    row("negative rank", {"\"rank\": 0,", "\"rank\": -1,"}, {u"distributed-info"_s});
    row("rank beyond world", {"\"rank\": 0,", "\"rank\": 2,"}, {u"distributed-info"_s});
    row("no world_size", {", \"world_size\": 2", ""}, {u"distributed-info"_s});
    row("no backend", {"\"backend\": \"nccl\", ", ""}, {}, {u"distributed-info"_s});
    row("displayTimeUnit us", {"\"displayTimeUnit\": \"ms\"", "\"displayTimeUnit\": \"us\""}, {u"display-time-unit"_s});
    row("no displayTimeUnit", {"\"displayTimeUnit\": \"ms\",", ""}, {});
    row("displayTimeUnit ns", {"\"displayTimeUnit\": \"ms\"", "\"displayTimeUnit\": \"ns\""}, {});
    row("no baseTimeNanoseconds", {"\"baseTimeNanoseconds\": 1700000000000000001,", ""}, {u"base-time"_s});
    row("fractional baseTimeNanoseconds", {"1700000000000000001", "1700000000000000001.5"}, {u"base-time"_s});
    row("string baseTimeNanoseconds", {"1700000000000000001", "\"1700000000000000001\""}, {u"base-time"_s});
    row("no deviceProperties", {"\"deviceProperties\": [", "\"devices\": ["}, {}, {u"device-properties"_s});
    // Every event, and X events (§1.2, §1.3, §1.5, §2.6.3, §2.7).
    row("no ph",
        {"{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\"", "{\"cat\": \"cpu_op\", \"name\": \"aten::mm\""},
        {u"ph"_s});
    row("unknown ph",
        {"\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\"",
         "\"ph\": \"Z\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\""},
        {u"ph"_s});
    row("legacy ph",
        {"\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::add_\"",
         "\"ph\": \"P\", \"cat\": \"cpu_op\", \"name\": \"aten::add_\""},
        {}, {u"phase"_s});
    row("B span",
        {"\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::add_\"",
         "\"ph\": \"B\", \"cat\": \"cpu_op\", \"name\": \"aten::add_\""},
        {}, {u"phase"_s});
    row("async without id",
        {"\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::add_\"",
         "\"ph\": \"b\", \"cat\": \"cpu_op\", \"name\": \"aten::add_\""},
        {u"async-id"_s});
    row("X without name", {"\"name\": \"aten::mm\", ", ""}, {u"event-name"_s});
    row("X without cat", {"\"cat\": \"cpu_op\", \"name\": \"aten::mm\"", "\"name\": \"aten::mm\""}, {u"event-cat"_s});
    row("X with numeric cat", {"\"cat\": \"cpu_op\", \"name\": \"aten::mm\"", "\"cat\": 3, \"name\": \"aten::mm\""},
        {u"event-cat"_s});
    row("string ts", {"\"ts\": 20.000, \"dur\": 30.000", "\"ts\": \"20.000\", \"dur\": 30.000"}, {u"event-ts"_s});
    row("negative ts", {"\"ts\": 20.000, \"dur\": 30.000", "\"ts\": -20.000, \"dur\": 30.000"}, {u"event-ts"_s});
    row("no dur", {"\"ts\": 20.000, \"dur\": 30.000,", "\"ts\": 20.000,"}, {u"event-dur"_s});
    row("negative dur", {"\"ts\": 20.000, \"dur\": 30.000", "\"ts\": 20.000, \"dur\": -30.000"}, {u"event-dur"_s});
    row("args not an object", {"\"args\": {\"External id\": 18}}", "\"args\": [18]}"}, {u"event-args"_s});
    row("string pid", {"\"name\": \"aten::mm\", \"pid\": 4242", "\"name\": \"aten::mm\", \"pid\": \"4242\""},
        {u"pid-tid"_s});
    row("negative tid",
        {"\"name\": \"aten::mm\", \"pid\": 4242, \"tid\": 4242", "\"name\": \"aten::mm\", \"pid\": 4242, \"tid\": -1"},
        {u"pid-tid"_s});
    row("fractional tid",
        {"\"name\": \"aten::mm\", \"pid\": 4242, \"tid\": 4242",
         "\"name\": \"aten::mm\", \"pid\": 4242, \"tid\": 4242.5"},
        {u"pid-tid"_s});
    row("counter with string pid",
        {"\"name\": \"GPU 0 memory\", \"pid\": 0", "\"name\": \"GPU 0 memory\", \"pid\": \"0\""}, {u"pid-tid"_s});
    // Time text (§0, §1.6, §2.7).
    row("ts with 4 decimals", {"\"ts\": 20.000, \"dur\": 30.000", "\"ts\": 20.0001, \"dur\": 30.000"},
        {u"ts-format"_s});
    row("ts in exponent form", {"\"ts\": 20.000, \"dur\": 30.000", "\"ts\": 2.0e1, \"dur\": 30.000"}, {u"ts-format"_s});
    row("dur with 4 decimals", {"\"ts\": 20.000, \"dur\": 30.000", "\"ts\": 20.000, \"dur\": 30.0000"},
        {u"ts-format"_s});
    row("integer ts", {"\"ts\": 20.000, \"dur\": 30.000", "\"ts\": 20, \"dur\": 30"}, {});
    // Categories (§2.3).
    row("unknown cat", {"\"cat\": \"cpu_op\", \"name\": \"aten::mm\"", "\"cat\": \"cpu_opp\", \"name\": \"aten::mm\""},
        {}, {u"unknown-cat"_s});
    // Metadata (§1.3, §2.2, §2.7).
    row("unknown metadata", {"\"name\": \"thread_sort_index\", \"pid\": 0", "\"name\": \"thread_order\", \"pid\": 0"},
        {}, {u"metadata-name"_s});
    row("thread_name without args.name", {"\"args\": {\"name\": \"stream 7\"}", "\"args\": {\"label\": \"stream 7\"}"},
        {u"metadata-args"_s}, {u"thread-name"_s});
    row("string sort_index", {"\"args\": {\"sort_index\": 7}", "\"args\": {\"sort_index\": \"7\"}"},
        {u"metadata-args"_s});
    row("process_labels without labels", {"\"args\": {\"labels\": \"CPU\"}", "\"args\": {\"label\": \"CPU\"}"},
        {u"metadata-args"_s});
    row("thread_name without tid",
        {"\"name\": \"thread_name\", \"pid\": 0, \"tid\": 7,", "\"name\": \"thread_name\", \"pid\": 0,"},
        {u"pid-tid"_s}, {u"thread-name"_s});
    row("unnamed thread",
        {"{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 0, \"tid\": 7, \"ts\": 0.000, \"args\": {\"name\": "
         "\"stream 7\"}},",
         ""},
        {}, {u"thread-name"_s});
    row("unnamed process",
        {"{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 0, \"tid\": 0, \"ts\": 0.000, \"args\": {\"name\": "
         "\"GPU 0\"}},",
         ""},
        {}, {u"process-name"_s});
    // Nesting (§1.6).
    row("siblings overlap", {"\"ts\": 50.000, \"dur\": 12.500", "\"ts\": 45.000, \"dur\": 12.500"}, {u"nesting"_s});
    row("child outlives parent", {"\"ts\": 10.000, \"dur\": 900.000", "\"ts\": 10.000, \"dur\": 35.000"},
        {u"nesting"_s});
    // Exact: mm [20001, 32501] then add_ at 32501. Perfetto: 32.501 * 1000 truncates to 32500, inside mm.
    row("siblings overlap after truncation",
        {"\"ts\": 20.000, \"dur\": 30.000", "\"ts\": 20.001, \"dur\": 12.500", "\"ts\": 50.000, \"dur\": 12.500",
         "\"ts\": 32.501, \"dur\": 12.500"},
        {u"nesting-truncated"_s});
    // Flows (§1.4, §2.5).
    row("flow without end",
        {"{\"ph\": \"f\", \"id\": 901, \"pid\": 0, \"tid\": 7, \"ts\": 40.000, \"cat\": \"ac2g\", \"name\": \"ac2g\", "
         "\"bp\": \"e\"},",
         ""},
        {u"flow-unmatched"_s});
    row("flow end with another id", {"\"ph\": \"f\", \"id\": 901,", "\"ph\": \"f\", \"id\": 999,"},
        {u"flow-unmatched"_s, u"flow-wrong-slice"_s});
    row("flow start without cat",
        {"\"ts\": 25.000, \"cat\": \"ac2g\", \"name\": \"ac2g\"}", "\"ts\": 25.000, \"name\": \"ac2g\"}"},
        {u"flow-fields"_s, u"flow-unmatched"_s});
    row("flow end without bp",
        {"\"ts\": 40.000, \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"",
         "\"ts\": 40.000, \"cat\": \"ac2g\", \"name\": \"ac2g\""},
        {u"flow-bp"_s});
    row("flow start between slice starts",
        {"\"tid\": 4242, \"ts\": 25.000, \"cat\": \"ac2g\"", "\"tid\": 4242, \"ts\": 26.000, \"cat\": \"ac2g\""},
        {u"flow-unbound"_s});
    row("flow end on another thread",
        {"\"ph\": \"f\", \"id\": 901, \"pid\": 0, \"tid\": 7,", "\"ph\": \"f\", \"id\": 901, \"pid\": 0, \"tid\": 8,"},
        {u"flow-unbound"_s});
    row("flow start on a cpu_op",
        {"\"tid\": 4242, \"ts\": 25.000, \"cat\": \"ac2g\"", "\"tid\": 4242, \"ts\": 20.000, \"cat\": \"ac2g\""},
        {u"flow-wrong-slice"_s});
    // GPU rows and launches (§2.2, §2.4, §2.6.5, §2.7).
    row("kernel without stream",
        {"\"context\": 1, \"stream\": 7, \"correlation\": 901", "\"context\": 1, \"correlation\": 901"},
        {u"gpu-args"_s});
    row("kernel without device", {"\"External id\": 17, \"device\": 0,", "\"External id\": 17,"}, {u"gpu-args"_s});
    row("kernel without correlation", {"\"stream\": 7, \"correlation\": 901, ", "\"stream\": 7, "},
        {u"flow-wrong-slice"_s, u"gpu-args"_s});
    row("memcpy without stream",
        {"\"context\": 1, \"stream\": 7, \"correlation\": 902", "\"context\": 1, \"correlation\": 902"},
        {u"gpu-args"_s});
    row("kernel on the wrong stream row",
        {"\"pid\": 0, \"tid\": 7, \"ts\": 40.000, \"dur\"", "\"pid\": 0, \"tid\": 8, \"ts\": 40.000, \"dur\""},
        {u"flow-unbound"_s, u"gpu-row-placement"_s}, {u"thread-name"_s});
    row("memcpy without its launch", {"\"cbid\": 41, \"correlation\": 902", "\"cbid\": 41, \"correlation\": 903"},
        {u"flow-wrong-slice"_s, u"gpu-correlation"_s});
    row("launch without correlation", {"\"cbid\": 211, \"correlation\": 901", "\"cbid\": 211"},
        {u"flow-wrong-slice"_s, u"gpu-correlation"_s, u"launch-args"_s});
    row("launch without cbid", {"\"cbid\": 211, ", ""}, {}, {u"launch-args"_s});
    // Profiler steps (§2.5, §2.6.6).
    row("step number not an integer", {"\"ProfilerStep#4\"", "\"ProfilerStep#four\""}, {u"profiler-step"_s});
    row("step with a space", {"\"ProfilerStep#4\"", "\"ProfilerStep #4\""}, {u"profiler-step"_s});
    row("step as cpu_op",
        {"\"cat\": \"user_annotation\", \"name\": \"ProfilerStep#4\"",
         "\"cat\": \"cpu_op\", \"name\": \"ProfilerStep#4\""},
        {u"profiler-step"_s});
    row("step inside a step", {"\"ts\": 910.000, \"dur\": 100.000", "\"ts\": 800.000, \"dur\": 100.000"},
        {u"profiler-step-overlap"_s});
    row("steps cross", {"\"ts\": 910.000, \"dur\": 100.000", "\"ts\": 900.000, \"dur\": 110.000"},
        {u"nesting"_s, u"profiler-step-overlap"_s});
    row("step number twice", {"\"ProfilerStep#4\"", "\"ProfilerStep#3\""}, {}, {u"profiler-step"_s});
    // [memory] instants (§2.5) and instants (§1.3).
    row("memory without Device Type", {", \"Device Type\": 1}", "}"}, {u"memory-args"_s});
    row("memory with string Bytes", {"\"Bytes\": 131072", "\"Bytes\": \"131072\""}, {u"memory-args"_s});
    row("memory without Total Reserved", {"\"Total Reserved\": 2097152, ", ""}, {}, {u"memory-args"_s});
    row("memory as cpu_op",
        {"\"cat\": \"cpu_instant_event\", \"name\": \"[memory]\"", "\"cat\": \"cpu_op\", \"name\": \"[memory]\""},
        {u"memory-event"_s});
    row("instant with a bad scope", {"\"ph\": \"i\", \"s\": \"t\"", "\"ph\": \"i\", \"s\": \"x\""},
        {u"instant-scope"_s});
    // Counters (§1.3, §2.7).
    row("counter with a string series", {"\"allocated\": 131072", "\"allocated\": \"131072\""}, {u"counter-args"_s});
    row("counter without series", {"\"args\": {\"allocated\": 131072, \"reserved\": 2097152}", "\"args\": {}"},
        {u"counter-args"_s});
    row("counter without name", {"\"name\": \"GPU 0 memory\", ", ""}, {u"counter"_s});
  }

  void brokenRule() {
    QFETCH(QByteArrayList, edits);
    QFETCH(QStringList, errors);
    QFETCH(QStringList, warnings);
    QVERIFY(edits.size() % 2 == 0);
    QByteArray text = m_good;
    for (qsizetype i = 0; i < edits.size(); i += 2) {
      QVERIFY2(text.count(edits[i]) == 1, edits[i].constData());
      text.replace(edits[i], edits[i + 1]);
    }
    const TraceCheck c = checkKinetoTraceBytes(text);
    QVERIFY2(c.errorRules() == errors, qPrintable(c.report()));
    QVERIFY2(c.warningRules() == warnings, qPrintable(c.report()));
  }

  // ts/dur text: fixed-point µs with at most 3 decimals, read exactly; -1 = rejected.
  void timeTokens_data() {
    QTest::addColumn<QByteArray>("token");
    QTest::addColumn<qint64>("ns");
    QTest::newRow("integer") << QByteArray("25") << Q_INT64_C(25000);
    QTest::newRow("one decimal") << QByteArray("25.5") << Q_INT64_C(25500);
    QTest::newRow("three decimals") << QByteArray("0.001") << Q_INT64_C(1);
    QTest::newRow("large") << QByteArray("86400000000.999") << Q_INT64_C(86400000000999);
    QTest::newRow("negative") << QByteArray("-1.5") << Q_INT64_C(-1500);
    QTest::newRow("four decimals") << QByteArray("25.0001") << Q_INT64_C(-1);
    QTest::newRow("exponent") << QByteArray("2.5e1") << Q_INT64_C(-1);
    QTest::newRow("bare point") << QByteArray("25.") << Q_INT64_C(-1);
    QTest::newRow("leading point") << QByteArray(".5") << Q_INT64_C(-1);
    QTest::newRow("string") << QByteArray("\"25\"") << Q_INT64_C(-1);
    QTest::newRow("overflow") << QByteArray("99999999999999999999") << Q_INT64_C(-1);
  }
  void timeTokens() {
    QFETCH(QByteArray, token);
    QFETCH(qint64, ns);
    QCOMPARE(fathom::test::trace_check_detail::fixedMicrosToNanos(token).value_or(-1), ns);
  }

  void arrayFormIsRejected() {
    const TraceCheck c = checkKinetoTraceBytes("[{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"a\", \"pid\": 1, "
                                               "\"tid\": 1, \"ts\": 1.000, \"dur\": 1.000}]");
    QCOMPARE(c.errorRules(), QStringList{u"object-form"_s});
  }

  void truncationNamesTheMissingClosers() {
    const TraceCheck inEvents = checkKinetoTraceBytes(m_good.left(m_good.lastIndexOf("]}")));
    QCOMPARE(inEvents.errors.size(), 1);
    QVERIFY2(inEvents.errors.first().contains(u"']}'"_s), qPrintable(inEvents.report()));
    const TraceCheck inArgs = checkKinetoTraceBytes(m_good.left(m_good.indexOf("\"sort_index\": 7}")));
    QVERIFY2(inArgs.errors.first().contains(u"'}}]}'"_s), qPrintable(inArgs.report()));
    QCOMPARE(checkKinetoTraceBytes(QByteArray()).errorRules(), QStringList{u"truncated"_s});
  }

  // A merged file (several ranks for one viewer) needs no single rank; a per-rank file does.
  void mergedRanks() {
    QByteArray noRank = m_good;
    noRank.replace("\"rank\": 0, ", "");
    QCOMPARE(checkKinetoTraceBytes(noRank).errorRules(), QStringList{u"distributed-info"_s});
    const TraceCheck merged = checkKinetoTraceBytes(noRank, {.mergedRanks = true});
    QVERIFY2(merged.ok(), qPrintable(merged.report()));
    QCOMPARE(merged.rank, -1);
    QCOMPARE(merged.worldSize, 2);

    QByteArray noInfo = m_good;
    noInfo.replace("\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 0, \"world_size\": 2},", "");
    QVERIFY(checkKinetoTraceBytes(noInfo, {.mergedRanks = true}).ok());
    QByteArray badRank = m_good;
    badRank.replace("\"rank\": 0,", "\"rank\": \"0\",");
    QCOMPARE(checkKinetoTraceBytes(badRank, {.mergedRanks = true}).errorRules(), QStringList{u"distributed-info"_s});
  }

  void perfettoTruncationCanBeOff() {
    QByteArray text = m_good;
    text.replace("\"ts\": 20.000, \"dur\": 30.000", "\"ts\": 20.001, \"dur\": 12.500");
    text.replace("\"ts\": 50.000, \"dur\": 12.500", "\"ts\": 32.501, \"dur\": 12.500");
    QCOMPARE(checkKinetoTraceBytes(text).errorRules(), QStringList{u"nesting-truncated"_s});
    const TraceCheck exactOnly = checkKinetoTraceBytes(text, {.perfettoTruncation = false});
    QVERIFY2(exactOnly.ok(), qPrintable(exactOnly.report()));
  }

  void messagesAreCapped() {
    QByteArray text =
        "{\"schemaVersion\": 1, \"distributedInfo\": {\"backend\": \"gloo\", \"rank\": 0, \"world_size\": 1}, "
        "\"baseTimeNanoseconds\": 0, \"deviceProperties\": [], \"traceEvents\": [";
    for (int i = 0; i < 30; ++i)
      text += (i ? ", " : "") + QByteArray("{\"name\": \"x\"}");
    text += "]}";
    const TraceCheck c = checkKinetoTraceBytes(text, {.maxMessagesPerRule = 5});
    QCOMPARE(c.errorsByRule.value(u"ph"_s), 30);
    QCOMPARE(c.errors.size(), 6);
    QVERIFY2(c.errors.last().contains(u"25 more"_s), qPrintable(c.report()));
  }

private:
  QByteArray m_good;
};

QTEST_GUILESS_MAIN(TestKinetoTraceChecker)
#include "tst_kineto_trace_checker.moc"
