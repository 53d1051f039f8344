// SPDX-License-Identifier: Apache-2.0
// A live run's traces on the timeline (issue 19): prefixes of a trace still being written (cut anywhere in the text,
// or after any block of a gzip stream as the profiler streams it to the workspace) index exactly their complete
// events; several ranks' and windows' traces held in memory merge as `fathom trace merge` merges the files; stored
// names group by window.
#include "error_helpers.h"
#include "trace_fixtures.h"

#include <fathom/common/error.h>
#include <fathom/trace/timeline_index.h>
#include <fathom/trace/trace_file_names.h>
#include <fathom/trace/trace_merge.h>
#include <fathom/trace/traces_timeline.h>

#include <QTemporaryDir>
#include <QTest>

#include <chrono>
#include <random>

using namespace fathom::trace;
namespace fs = std::filesystem;

/// `expr` throws a `type` whose message contains `part`.
#define FATHOM_VERIFY_THROWS_MESSAGE(expr, type, part)                                                                 \
  do {                                                                                                                 \
    QVERIFY(fathom::test::throwsType<type>([&] { (void)(expr); }));                                                    \
    const std::string message = fathom::test::messageOf([&] { (void)(expr); });                                        \
    QVERIFY2(fathom::test::contains(message, part), message.c_str());                                                  \
  } while (false)

namespace {

const fs::path kGloo = fs::path(FATHOM_TEST_DATA_DIR) / "traces/gloo_2rank_merged.json.gz";

TimelineIndex must(std::optional<TimelineIndex> index) {
  if (!index) {
    throw std::runtime_error("cancelled");
  }
  return std::move(*index);
}

TimelineLoadOptions prefixOptions() {
  TimelineLoadOptions options;
  options.reader.acceptTruncatedTail = true;
  return options;
}

/// Every lane's slices, instants and identity, and the counters: equal when two indices show the same timeline.
void compareIndices(const TimelineIndex& a, const TimelineIndex& b) {
  QCOMPARE(a.lanes().size(), b.lanes().size());
  QCOMPARE(a.sliceCount(), b.sliceCount());
  for (std::size_t i = 0; i < a.lanes().size(); ++i) {
    const TimelineLane& x = a.lanes()[i];
    const TimelineLane& y = b.lanes()[i];
    QCOMPARE(x.key, y.key);
    QCOMPARE(x.title, y.title);
    QVERIFY(x.start == y.start);
    QVERIFY(x.end == y.end);
    QVERIFY(x.depthBegin == y.depthBegin);
    QVERIFY(x.instantTs == y.instantTs);
    for (std::uint32_t s = 0; s < x.sliceCount(); ++s) {
      QCOMPARE(a.name(x.name[s]), b.name(y.name[s]));
    }
  }
  QCOMPARE(a.processes().size(), b.processes().size());
  for (std::size_t p = 0; p < a.processes().size(); ++p) {
    QCOMPARE(a.processes()[p].title, b.processes()[p].title);
    QCOMPARE(a.processes()[p].rank, b.processes()[p].rank);
  }
  QCOMPARE(a.counters().size(), b.counters().size());
  for (std::size_t c = 0; c < a.counters().size(); ++c) {
    QVERIFY(a.counters()[c].ts == b.counters()[c].ts);
  }
  QCOMPARE(a.flows().size(), b.flows().size());
  QCOMPARE(a.steps().size(), b.steps().size());
}

/// One rank's trace of one window: a step with a forward holding two ops, a collective, a memory counter.
std::string rankTrace(int rank, int worldSize, std::int64_t baseNs, int step) {
  using fathom::test::completeEvent;
  const int pid = 4000 + rank;
  const std::vector<std::string> events = {
      R"({"ph":"M","name":"process_name","pid":)" + std::to_string(pid) + R"(,"tid":0,"ts":0,"args":{"name":"rank )" +
          std::to_string(rank) + R"("}})",
      completeEvent("user_annotation", "ProfilerStep#" + std::to_string(step), pid, pid, "1.000", "90.000"),
      completeEvent("user_annotation", "fathom::forward", pid, pid, "2.000", "40.000"),
      completeEvent("cpu_op", "aten::mm", pid, pid, "3.000", "10.000", R"({"External id":7})"),
      completeEvent("cpu_op", "aten::relu", pid, pid, "15.000", "5.000"),
      completeEvent("user_annotation", "fathom::all_reduce", pid, pid + 1, "50.000", "20.000",
                    R"({"Collective name":"all_reduce","bytes":4096})"),
      R"({"ph":"C","cat":"memory","name":"Memory","pid":)" + std::to_string(pid) +
          R"(,"tid":0,"ts":60.000,"args":{"parameters":1024,"activations":2048}})",
  };
  return fathom::test::objectTrace(events, fathom::test::traceKeys(rank, worldSize, baseNs));
}

}  // namespace

class TimelineLiveTest : public QObject {
  Q_OBJECT

private slots:
  /// Cut anywhere, a plain prefix indexes exactly the events that are complete in it: the same index as a file
  /// holding those events and closed properly.
  void prefixIndexesItsCompleteEvents() {
    const std::string text = fathom::test::readText(kGloo);
    const TimelineIndex full = must(TimelineIndex::loadBytes("full", text));
    std::mt19937 random(19);
    std::uniform_int_distribution<std::size_t> cut(200, text.size() - 1);
    std::vector<std::size_t> cuts = {text.find("\"traceEvents\":[") + 15, text.size() - 2, text.size() / 2};
    for (int i = 0; i < 12; ++i) {
      cuts.push_back(cut(random));
    }
    std::uint64_t previous = 0;
    std::sort(cuts.begin(), cuts.end());
    for (const std::size_t at : cuts) {
      const TimelineIndex prefix = must(TimelineIndex::loadBytes("prefix", text.substr(0, at), prefixOptions()));
      QVERIFY(prefix.data().truncatedTail);
      QVERIFY(prefix.data().completeBytes <= at);
      QVERIFY(prefix.sliceCount() >= previous);  // a longer prefix never shows fewer slices
      QVERIFY(prefix.sliceCount() <= full.sliceCount());
      previous = prefix.sliceCount();
      // The same events, closed as a whole file: the prefix's index must equal it.
      const std::string closed =
          prefix.data().completeBytes == 0 ? text.substr(0, at) : text.substr(0, prefix.data().completeBytes);
      if (prefix.data().completeBytes > 0) {
        const TimelineIndex whole = must(TimelineIndex::loadBytes("closed", closed + "\n]}"));
        QVERIFY(!whole.data().truncatedTail);
        compareIndices(prefix, whole);
      }
    }
    // The whole text is not a prefix; the index equals the ordinary load.
    const TimelineIndex all = must(TimelineIndex::loadBytes("all", text, prefixOptions()));
    QVERIFY(!all.data().truncatedTail);
    compareIndices(all, full);
  }

  /// Without the option a prefix is still an error naming what is truncated, and the header alone is no events.
  void prefixWithoutTheOptionThrows() {
    const std::string text = fathom::test::readText(kGloo);
    FATHOM_VERIFY_THROWS_MESSAGE(TimelineIndex::loadBytes("cut.json", text.substr(0, text.size() / 2)),
                                 fathom::StorageError, "truncated trace");
    const TimelineIndex header = must(TimelineIndex::loadBytes("h", text.substr(0, 40), prefixOptions()));
    QCOMPARE(header.sliceCount(), std::uint64_t{0});
    QVERIFY(header.data().truncatedTail);
    // A prefix still must be a trace: garbage is malformed, not "truncated".
    FATHOM_VERIFY_THROWS_MESSAGE(TimelineIndex::loadBytes("bad.json", "{\"traceEvents\":[{]", prefixOptions()),
                                 fathom::StorageError, "bad.json");
  }

  /// The profiler streams a .json.gz to the workspace block by block as it writes it (TraceFileOptions::onChunk):
  /// after every block, the stored bytes index without error, never fewer slices than before, all of them at the end.
  void gzipChunksAsStreamed() {
    const std::string text = fathom::test::readText(kGloo);
    QTemporaryDir dir;
    std::vector<std::string> chunks;
    TraceFileOptions options;
    options.bufferBytes = 64 << 10;  // small blocks: many chunks, as a bigger trace gives with the default 1 MiB
    options.onChunk = [&chunks](std::string_view block) { chunks.emplace_back(block); };
    TraceFileSink sink(fs::path(dir.path().toStdString()) / "t.json.gz", options);
    sink.write(text);
    sink.finish();
    QVERIFY(chunks.size() >= 3);
    const TimelineIndex full = must(TimelineIndex::loadBytes("full", text));
    std::string stored;
    std::uint64_t previous = 0;
    for (std::size_t i = 0; i < chunks.size(); ++i) {
      stored += chunks[i];
      const TimelineIndex prefix = must(TimelineIndex::loadBytes("stored", stored, prefixOptions()));
      QVERIFY(prefix.sliceCount() >= previous);
      previous = prefix.sliceCount();
      QCOMPARE(prefix.data().truncatedTail, i + 1 < chunks.size());
    }
    QCOMPARE(previous, full.sliceCount());
    // Without the option a cut gzip stream says so.
    FATHOM_VERIFY_THROWS_MESSAGE(TimelineIndex::loadBytes("cut.json.gz", chunks.front()), fathom::StorageError,
                                 "truncated");
  }

  /// Ranks' traces held in memory merge exactly as the same files merge with mergeTraces (`fathom trace merge`).
  void mergeBytesEqualsMergeOfFiles() {
    QTemporaryDir dir;
    const fs::path root(dir.path().toStdString());
    std::vector<TraceBytes> inputs;
    std::vector<fs::path> files;
    for (int rank = 1; rank >= 0; --rank) {  // out of order on purpose
      const std::string text = rankTrace(rank, 2, 1'700'000'000'000'000'000 + rank * 5'000, 3);
      files.push_back(root / ("profile_" + std::to_string(rank) + ".json"));
      fathom::test::writeTraceFile(files.back(), text);
      inputs.push_back({files.back().string(), text});
    }
    TraceMergeOptions options;
    options.traceName = "merged";
    mergeTraces(files, root / "merged.json", options);
    TraceMergeResult result;
    const std::string merged = mergeTraceBytes(inputs, options, &result);
    QCOMPARE(merged, fathom::test::readText(root / "merged.json"));  // byte for byte, the same merge
    QCOMPARE(result.inputs.size(), std::size_t{2});
    QCOMPARE(result.inputs[1].shiftNs, std::int64_t{5'000});
    // Through loadTracesTimeline: one timeline, rank 1's clock shifted by 5 µs.
    TracesTimelineStats stats;
    const TimelineIndex index = must(loadTracesTimeline(inputs, {}, &stats));
    compareIndices(index, must(TimelineIndex::load(root / "merged.json")));
    QCOMPARE(stats.inputs, std::size_t{2});
    QVERIFY(!stats.truncated);
    QVERIFY(stats.indexedBytes > 0);
    // Without windowsOfOneRank a repeated rank is refused, as `fathom trace merge` refuses it.
    inputs.push_back({"again", rankTrace(0, 2, 1'700'000'000'000'000'000, 4)});
    FATHOM_VERIFY_THROWS_MESSAGE(mergeTraceBytes(inputs), fathom::ConfigError, "rank 0 appears twice");
  }

  /// The windows of a run: each rank's rows continue across its windows (one lane per thread, not one per window),
  /// each window at its own time; prefixes of the last window merge too, and an input without its header yet is
  /// left out.
  void windowsOfOneRunOnOneTimeline() {
    const std::int64_t base = 1'700'000'000'000'000'000;
    std::vector<TraceBytes> inputs;
    for (int window = 0; window < 2; ++window) {
      for (int rank = 0; rank < 2; ++rank) {
        inputs.push_back({"window_" + std::to_string(window) + "/profile_" + std::to_string(rank) + ".json",
                          rankTrace(rank, 2, base + window * 1'000'000 + rank * 700, window * 10)});
      }
    }
    const TimelineIndex one = must(loadTracesTimeline({inputs[0], inputs[1]}));
    const TimelineIndex both = must(loadTracesTimeline(inputs));
    QCOMPARE(both.lanes().size(), one.lanes().size());
    QCOMPARE(both.processes().size(), std::size_t{2});
    QCOMPARE(both.sliceCount(), 2 * one.sliceCount());
    QCOMPARE(both.steps().size(), std::size_t{4});
    // From rank 0's first step (1 µs) to the end of rank 1's last (its window 1 ms + 700 ns later, 91 µs long).
    QCOMPARE(both.data().endNs - both.data().startNs, std::int64_t{1'000'000 + 700 + 91'000 - 1'000});
    // The last window still being written: half of rank 1's text, and rank 0's first 30 bytes (no header yet).
    std::vector<TraceBytes> live = inputs;
    live[3].bytes.resize(live[3].bytes.size() / 2);
    live[2].bytes.resize(30);
    TracesTimelineStats stats;
    const TimelineIndex partial = must(loadTracesTimeline(live, {}, &stats));
    QVERIFY(stats.truncated);
    QCOMPARE(stats.skipped, std::size_t{1});
    QVERIFY(partial.sliceCount() > one.sliceCount());
    QVERIFY(partial.sliceCount() < both.sliceCount());
    // Without windowsOfOneRank the same inputs are refused by mergeTraceBytes.
    FATHOM_VERIFY_THROWS_MESSAGE(mergeTraceBytes(inputs), fathom::ConfigError, "appears twice");
  }

  void storedTraceNames_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<bool>("profile");
    QTest::addColumn<bool>("merged");
    QTest::addColumn<int>("window");
    QTest::addColumn<QString>("group");
    QTest::newRow("one window") << "profile_0.json" << true << false << -1 << "";
    QTest::newRow("gzip rank 12") << "profile_12.json.gz" << true << false << -1 << "";
    QTest::newRow("window") << "window_3/profile_1.json" << true << false << 3 << "window_3";
    QTest::newRow("merged") << "merged/profile_merged.json.gz" << true << true << -1 << "";
    QTest::newRow("window merged") << "window_1/merged/profile_merged.json" << true << true << 1 << "window_1";
    QTest::newRow("user name") << "my_trace.json" << false << false << -1 << "my_trace.json";
    QTest::newRow("not a rank") << "window_2/profile_x.json" << false << false << -1 << "window_2/profile_x.json";
    QTest::newRow("bad window") << "window_/profile_0.json" << false << false << -1 << "window_/profile_0.json";
    QTest::newRow("other extension") << "profile_0.txt" << false << false << -1 << "profile_0.txt";
    // No dot: the rank's digits run to the end (parsed past the name before; tests/fuzz/regressions/text_values).
    QTest::newRow("no extension") << "profile_12" << false << false << -1 << "profile_12";
    QTest::newRow("no rank") << "profile_.json" << false << false << -1 << "profile_.json";
  }
  void storedTraceNames() {
    QFETCH(QString, name);
    QFETCH(bool, profile);
    QFETCH(bool, merged);
    QFETCH(int, window);
    QFETCH(QString, group);
    const StoredTraceName parsed = parseStoredTraceName(name.toStdString());
    QCOMPARE(parsed.profile, profile);
    QCOMPARE(parsed.merged, merged);
    QCOMPARE(parsed.window.value_or(-1), window);
    QCOMPARE(QString::fromStdString(parsed.group), group);
  }
};

QTEST_GUILESS_MAIN(TimelineLiveTest)
#include "tst_timeline_live.moc"
