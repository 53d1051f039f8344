// SPDX-License-Identifier: Apache-2.0
// mergeTraces: wall-clock alignment in exact nanoseconds, pid/flow/correlation renumbering, row names and sort
// order, the merged header, gzip in and out, and the inputs it refuses.
#include "error_helpers.h"
#include "trace_fixtures.h"

#include <fathom/common/error.h>
#include <fathom/trace/trace_event_view.h>
#include <fathom/trace/trace_merge.h>
#include <fathom/trace/trace_reader.h>
#include <fathom/trace/trace_summary.h>
#include <fathom/trace/trace_validator.h>

#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QTest>

#include <filesystem>

using namespace fathom::trace;
namespace fs = std::filesystem;
using fathom::test::completeEvent;
using fathom::test::contains;
using fathom::test::messageOf;
using fathom::test::objectTrace;
using fathom::test::traceKeys;

namespace {

constexpr std::int64_t kBase = 1700000000000000000;

/// One rank's trace: a CPU op that launches a kernel (ac2g flow, correlation and External id), the kernel on
/// GPU row (pid 0, tid 7). `pid` is the rank's OS process id.
std::vector<std::string> rankEvents(int pid) {
  const std::string p = std::to_string(pid);
  return {
      R"({"ph":"M","name":"process_name","pid":)" + p + R"(,"tid":0,"ts":0.000,"args":{"name":"python"}})",
      completeEvent("cpu_op", "aten::mm", pid, pid, "10.000", "5.000", R"({"External id":17,"Input Dims":[[2,3]]})"),
      completeEvent("cuda_runtime", "cudaLaunchKernel", pid, pid, "12.000", "1.000",
                    R"({"External id":17,"cbid":211,"correlation":901})"),
      R"({"ph":"s","id":901,"pid":)" + p + R"(,"tid":)" + p + R"(,"ts":12.000,"cat":"ac2g","name":"ac2g"})",
      completeEvent("kernel", "gemm", 0, 7, "20.000", "3.000",
                    R"({"device":0,"stream":7,"correlation":901,"External id":17,"queued":-1})"),
      R"({"ph":"f","id":901,"pid":0,"tid":7,"ts":20.000,"cat":"ac2g","name":"ac2g","bp":"e"})",
  };
}

/// The events of a file whose `name` member is `name`, as parsed JSON.
std::vector<nlohmann::json> eventsNamed(const fs::path& file, std::string_view name) {
  TraceReader r(file);
  std::vector<nlohmann::json> out;
  while (r.next()) {
    nlohmann::json e = r.parseEvent();
    if (e.value("name", "") == name) {
      out.push_back(std::move(e));
    }
  }
  return out;
}

/// A trace as PyTorch's legacy export_chrome_trace writes it: a bare array, no `cat`, no distributedInfo, every CPU
/// event in the process "CPU functions" (whole microseconds). `scale` stretches rank-specific durations.
std::string legacyTrace(int scale) {
  using fathom::test::legacyEvent;
  std::string text = "[";
  for (const std::string& e :
       {legacyEvent("ProfilerStep#0", 1, 0, 100 * scale), legacyEvent("aten::mm", 1, 10, 10 + 30 * scale),
        legacyEvent("gloo:all_reduce", 3, 50, 50 + 20 * scale), legacyEvent("aten::add_", 1, 90, 95)}) {
    text += text.size() > 1 ? ", " : "";
    text += e;
  }
  return text + "]";
}

std::vector<std::string> eventTexts(const fs::path& file) {
  TraceReader r(file);
  std::vector<std::string> out;
  while (r.next()) {
    out.emplace_back(r.event());
  }
  return out;
}

}  // namespace

class TestTraceMerge : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  fs::path path(const std::string& name) const { return fs::path(m_dir.path().toStdString()) / name; }

  fs::path writeRank(const std::string& name, int rank, std::int64_t base, std::vector<std::string> events,
                     int worldSize = 2) {
    fathom::test::writeTraceFile(path(name), objectTrace(events, traceKeys(rank, worldSize, base)));
    return path(name);
  }

private slots:
  void twoRanks() {
    std::vector<std::string> rank1 = rankEvents(5151);
    rank1.push_back(R"({"ph":"M","name":"process_sort_index","pid":0,"tid":0,"args":{"sort_index":3}})");
    rank1.push_back(R"({"ph":"X","cat":"Trace","name":"span","pid":"Spans","tid":"Spans","ts":1.000,"dur":1.000})");
    const fs::path a = writeRank("r0.json", 0, kBase, rankEvents(4242));
    const fs::path b = writeRank("r1.json", 1, kBase + 5000, rank1);  // started 5 us later on the wall clock
    const fs::path out = path("merged.json");
    const std::vector<fs::path> inputs{b, a};  // any order: the output follows the ranks
    const TraceMergeResult result = mergeTraces(inputs, out);

    QCOMPARE(result.inputs.size(), std::size_t{2});
    QCOMPARE(result.inputs[0].rank, 0);
    QCOMPARE(result.inputs[1].shiftNs, std::int64_t{5000});
    QCOMPARE(result.baseTimeNs, kBase);
    QCOMPARE(result.worldSize, 2);
    QCOMPARE(result.inputs[1].pids.size(), std::size_t{3});
    QCOMPARE(result.inputs[1].pids[2], (std::pair<std::string, std::uint32_t>{"\"Spans\"", 1002}));

    const std::vector<std::string> texts = eventTexts(out);
    // Rank 0: times unchanged; ids renumbered id * 2 + 0; other args byte for byte.
    QVERIFY(std::find(texts.begin(), texts.end(),
                      R"({"ph":"X","cat":"cpu_op","name":"aten::mm","pid":0,"tid":4242,"ts":10.000,"dur":5.000,)"
                      R"("args":{"External id":34,"Input Dims":[[2,3]]}})") != texts.end());
    // Rank 1: shifted by exactly 5.000 us, pids 1000+, ids * 2 + 1.
    QVERIFY(std::find(texts.begin(), texts.end(),
                      R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1000,"tid":5151,"ts":17.000,)"
                      R"("dur":1.000,"args":{"External id":35,"cbid":211,"correlation":1803}})") != texts.end());
    QVERIFY(std::find(texts.begin(), texts.end(),
                      R"({"ph":"f","id":1803,"pid":1001,"tid":7,"ts":25.000,"cat":"ac2g","name":"ac2g","bp":"e"})") !=
            texts.end());
    QVERIFY(std::find(texts.begin(), texts.end(),
                      R"({"ph":"X","cat":"kernel","name":"gemm","pid":1,"tid":7,"ts":20.000,"dur":3.000,)"
                      R"("args":{"device":0,"stream":7,"correlation":1802,"External id":34,"queued":-1}})") !=
            texts.end());

    // Row names: the file's own, prefixed; pids it never named get "pid N" or their string.
    auto names = eventsNamed(out, "process_name");
    std::map<int, std::string> byPid;
    for (const auto& e : names) {
      byPid[e["pid"].get<int>()] = e["args"]["name"].get<std::string>();
    }
    QCOMPARE(byPid.size(), std::size_t{5});
    QCOMPARE(QString::fromStdString(byPid[0]), QStringLiteral("rank 0 · python"));
    QCOMPARE(QString::fromStdString(byPid[1]), QStringLiteral("rank 0 · pid 0"));
    QCOMPARE(QString::fromStdString(byPid[1000]), QStringLiteral("rank 1 · python"));
    QCOMPARE(QString::fromStdString(byPid[1001]), QStringLiteral("rank 1 · pid 0"));
    QCOMPARE(QString::fromStdString(byPid[1002]), QStringLiteral("rank 1 · Spans"));
    // Sort order: rank blocks; rank 1's own index for its GPU row is kept inside its block.
    std::map<int, std::int64_t> sortIndex;
    for (const auto& e : eventsNamed(out, "process_sort_index")) {
      sortIndex[e["pid"].get<int>()] = e["args"]["sort_index"].get<std::int64_t>();
    }
    QCOMPARE(sortIndex.size(), std::size_t{5});
    QCOMPARE(sortIndex[0], std::int64_t{0});
    QCOMPARE(sortIndex[1], std::int64_t{1});
    QCOMPARE(sortIndex[1001], std::int64_t{1000003});
    QCOMPARE(sortIndex[1002], std::int64_t{1000002});

    TraceReader r(out);
    while (r.next()) {
    }
    const nlohmann::json& meta = r.metadata();
    QCOMPARE(meta["distributedInfo"].dump(),
             std::string(R"({"backend":"gloo","rank":0,"ranks":[0,1],"world_size":2})"));
    QCOMPARE(meta["baseTimeNanoseconds"].get<std::int64_t>(), kBase);
    QCOMPARE(meta["traceName"].get<std::string>(), std::string("merged.json"));
    const nlohmann::json& record = meta["fathomMerge"];
    QCOMPARE(record["inputs"].size(), std::size_t{2});
    QCOMPARE(record["inputs"][1]["shiftNs"].get<std::int64_t>(), std::int64_t{5000});
    QCOMPARE(record["inputs"][1]["pids"]["5151"].get<int>(), 1000);
    QCOMPARE(record["inputs"][1]["pids"]["Spans"].get<int>(), 1002);
    QCOMPARE(r.eventCount(), result.events);
    // The inputs' events, then the row names and sort indices it added (and a thread name for "Spans").
    QCOMPARE(result.events, std::uint64_t{6 + 8 + 3 + 5});
    const std::vector<nlohmann::json> spans = eventsNamed(out, "span");
    QCOMPARE(spans.size(), std::size_t{1});
    QCOMPARE(spans[0]["tid"].get<std::uint64_t>(), std::uint64_t{1} << 31);
    const std::vector<nlohmann::json> threads = eventsNamed(out, "thread_name");
    QCOMPARE(threads.size(), std::size_t{1});
    QCOMPARE(threads[0]["args"]["name"].get<std::string>(), std::string("Spans"));
    QCOMPARE(threads[0]["pid"].get<int>(), 1002);

    // The merged file still loads cleanly (flows bind, launches and kernels pair up across ranks).
    const TraceValidationReport report = TraceValidator().validate(out);
    QVERIFY2(report.valid(), report.errors.empty() ? "" : report.errors.front().message.c_str());
  }

  void alignsOnTheEarliestBase() {
    // Rank 2 started first: the merged base is its, and ranks 0 and 1 move later by their difference.
    const fs::path r0 =
        writeRank("a0.json", 0, kBase + 1234567, {completeEvent("cpu_op", "a", 1, 1, "0.001", "1.000")}, 3);
    const fs::path r1 =
        writeRank("a1.json", 1, kBase + 999, {completeEvent("cpu_op", "a", 1, 1, "1000000.000", "1.000")}, 3);
    const fs::path r2 = writeRank("a2.json", 2, kBase, {completeEvent("cpu_op", "a", 1, 1, "0.000", "1.000")}, 3);
    const std::vector<fs::path> inputs{r0, r1, r2};
    const TraceMergeResult result = mergeTraces(inputs, path("aligned.json"));
    QCOMPARE(result.baseTimeNs, kBase);
    const auto events = eventsNamed(path("aligned.json"), "a");
    QCOMPARE(events.size(), std::size_t{3});
    // Exact text of the shifted timestamps (1.234567 ms + 1 ns; 1 s + 999 ns).
    const std::vector<std::string> texts = eventTexts(path("aligned.json"));
    auto text = [&](int pid) {
      for (const std::string& t : texts) {
        if (contains(t, "\"pid\":" + std::to_string(pid) + ",") && contains(t, "\"name\":\"a\"")) {
          return t;
        }
      }
      return std::string();
    };
    QVERIFY(contains(text(0), R"("ts":1234.568,)"));
    QVERIFY(contains(text(1000), R"("ts":1000000.999,)"));
    QVERIFY(contains(text(2000), R"("ts":0.000,)"));
  }

  void gzipInAndOutAndTrailingKeys() {
    // distributedInfo after traceEvents (Kineto may put it there) is found by a second pass.
    const std::string trailing = R"({"traceEvents":[)" + completeEvent("cpu_op", "z", 9, 9, "3.000", "1.000") +
                                 R"(],"baseTimeNanoseconds":5,"distributedInfo":{"rank":1,"world_size":2}})";
    fathom::test::writeTraceFile(path("t1.json.gz"), trailing);
    const fs::path r0 = writeRank("t0.json.gz", 0, 0, {completeEvent("cpu_op", "z", 9, 9, "1.000", "1.000")});
    const std::vector<fs::path> inputs{r0, path("t1.json.gz")};
    mergeTraces(inputs, path("t.json.gz"));
    QVERIFY(isGzip(fathom::test::readRaw(path("t.json.gz"))));
    const auto events = eventsNamed(path("t.json.gz"), "z");
    QCOMPARE(events.size(), std::size_t{2});
    QCOMPARE(events[1]["pid"].get<int>(), 1000);
    QCOMPARE(events[1]["ts"].get<double>(), 3.005);  // shifted by 5 ns
  }

  /// TraceMergeOptions::ranks (`--ranks`): traces that record no rank (PyTorch's legacy layout) get theirs by input
  /// order, and keep their categories although their process is renamed; a recorded rank can be overridden.
  void ranksGivenForTracesWithoutOne() {
    const fs::path a = path("legacy_a.json");
    const fs::path b = path("legacy_b.json");
    fathom::test::writeTraceFile(a, legacyTrace(1));
    fathom::test::writeTraceFile(b, legacyTrace(2));
    const std::vector<fs::path> inputs{a, b};
    const std::string refused = messageOf([&] { mergeTraces(inputs, path("legacy.json")); });
    QVERIFY2(contains(refused, "legacy_a.json: distributedInfo.rank is missing") && contains(refused, "--ranks"),
             refused.c_str());

    TraceMergeOptions options;
    options.ranks = {1, 0};  // a is rank 1, b rank 0
    const TraceMergeResult result = mergeTraces(inputs, path("legacy.json"), options);
    QCOMPARE(result.inputs.size(), std::size_t{2});
    QCOMPARE(result.inputs[0].path, b);
    QCOMPARE(result.inputs[0].rank, 0);
    QCOMPARE(result.inputs[1].path, a);
    QCOMPARE(result.worldSize, 2);
    for (const nlohmann::json& e : eventsNamed(path("legacy.json"), "aten::mm")) {
      QCOMPARE(e["cat"].get<std::string>(), std::string("cpu_op"));
    }
    const auto steps = eventsNamed(path("legacy.json"), "ProfilerStep#0");
    QCOMPARE(steps.size(), std::size_t{2});
    QCOMPARE(steps[0]["cat"].get<std::string>(), std::string("user_annotation"));
    QCOMPARE(steps[0]["pid"].get<int>(), 0);  // b's, rank 0
    QCOMPARE(steps[0]["dur"].get<double>(), 200.0);
    QCOMPARE(steps[1]["pid"].get<int>(), 1000);
    QCOMPARE(eventsNamed(path("legacy.json"), "gloo:all_reduce")[0]["cat"].get<std::string>(),
             std::string("user_annotation"));

    // Each rank of the merge summarizes as its own file does: compute, communication (Gloo's spans), idle.
    for (const auto& [rank, file] : {std::pair{1, a}, std::pair{0, b}}) {
      TraceSummaryOptions pick;
      pick.rank = rank;
      const TraceSummary merged = summarizeTrace(path("legacy.json"), pick);
      const TraceSummary alone = summarizeTrace(file);
      QCOMPARE(merged.steps.size(), std::size_t{1});
      QCOMPARE(alone.steps.size(), std::size_t{1});
      QVERIFY(alone.steps[0].time.computeNs > 0 && alone.steps[0].time.communicationNs > 0);
      QCOMPARE(merged.steps[0].time.spanNs, alone.steps[0].time.spanNs);
      QCOMPARE(merged.steps[0].time.computeNs, alone.steps[0].time.computeNs);
      QCOMPARE(merged.steps[0].time.communicationNs, alone.steps[0].time.communicationNs);
      QCOMPARE(merged.steps[0].time.idleNs, alone.steps[0].time.idleNs);
    }

    // Ranks given override recorded ones: two runs' rank 0 side by side.
    const fs::path run1 = writeRank("run1_r0.json", 0, kBase, rankEvents(11));
    const fs::path run2 = writeRank("run2_r0.json", 0, kBase + 5, rankEvents(22));
    TraceMergeOptions sideBySide;
    sideBySide.ranks = {0, 1};
    const std::vector<fs::path> runs{run1, run2};
    const TraceMergeResult both = mergeTraces(runs, path("runs.json"), sideBySide);
    QCOMPARE(both.inputs[1].path, run2);
    QCOMPARE(both.inputs[1].rank, 1);
    QVERIFY(TraceValidator().validate(path("runs.json")).valid());

    auto refusal = [&](std::vector<int> ranks) {
      TraceMergeOptions o;
      o.ranks = std::move(ranks);
      return messageOf([&] { mergeTraces(inputs, path("refused.json"), o); });
    };
    std::string message = refusal({0});
    QVERIFY2(contains(message, "1 rank(s) given for 2 input(s) (") && contains(message, "legacy_a.json, ") &&
                 contains(message, "one rank per input"),
             message.c_str());
    QVERIFY2(contains(message = refusal({0, 1, 2}), "3 rank(s) given for 2 input(s)"), message.c_str());
    QVERIFY2(contains(message = refusal({0, -1}), "rank -1 is out of range"), message.c_str());
    QVERIFY2(contains(message = refusal({kMaxMergeRank, 0}), "rank 1000000 is out of range"), message.c_str());
    QVERIFY2(contains(message = refusal({3, 3}), "rank 3 appears twice"), message.c_str());
    QVERIFY(!fs::exists(path("refused.json")));
  }

  void refusesUnusableInputs() {
    const fs::path r0 = writeRank("u0.json", 0, kBase, rankEvents(1));
    const fs::path r0again = writeRank("u0b.json", 0, kBase, rankEvents(2));
    fathom::test::writeTraceFile(path("norank.json"),
                                 objectTrace({}, R"("distributedInfo":{"backend":"gloo"},"baseTimeNanoseconds":1)"));
    fathom::test::writeTraceFile(path("nodist.json"), objectTrace({}, ""));
    fathom::test::writeTraceFile(path("strrank.json"), objectTrace({}, R"("distributedInfo":{"rank":"1"})"));
    fathom::test::writeTraceFile(path("nobase.json"), objectTrace({}, R"("distributedInfo":{"rank":1})"));
    fathom::test::writeTraceFile(path("broken.json"), objectTrace({R"({"ph":"X","ts":})"}, traceKeys(1, 2, kBase)));
    auto merge = [&](std::vector<fs::path> inputs) { return messageOf([&] { mergeTraces(inputs, path("x.json")); }); };

    std::string message = merge({r0, r0again});
    QVERIFY2(contains(message, "rank 0 appears twice: ") && contains(message, "u0.json") &&
                 contains(message, "u0b.json"),
             message.c_str());
    message = merge({r0, path("norank.json")});
    QVERIFY2(contains(message, "norank.json: distributedInfo.rank is missing or not an integer >= 0"), message.c_str());
    QVERIFY(contains(merge({path("nodist.json")}), "nodist.json: distributedInfo.rank is missing"));
    QVERIFY(contains(merge({path("strrank.json")}), "strrank.json: distributedInfo.rank is missing"));
    QVERIFY(contains(merge({r0, path("nobase.json")}), "some inputs have baseTimeNanoseconds and some do not"));
    QVERIFY(contains(merge({}), "no input traces"));
    QVERIFY(fathom::test::throwsType<fathom::ConfigError>([&] {
      const std::vector<fs::path> in{r0, r0again};
      mergeTraces(in, path("x.json"));
    }));
    message = merge({r0, path("broken.json")});
    QVERIFY2(contains(message, "broken.json: malformed event #0"), message.c_str());
    QVERIFY(!fs::exists(path("x.json")));
    QVERIFY(!fs::exists(path("x.json.partial")));
  }
};

QTEST_GUILESS_MAIN(TestTraceMerge)
#include "tst_trace_merge.moc"
