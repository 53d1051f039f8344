// SPDX-License-Identifier: Apache-2.0
// exportTraceRange (issue 19's export): a time range, a rank or some rows of a real 2-rank Gloo trace, a Kineto GPU
// trace and generated GPU traces. The exports validate, load in the timeline index, hold exactly the events the rules
// choose (computed here independently with nlohmann::json, byte for byte from the original), and `fathom trace
// summary` over the range gives the same numbers on the export as on the original. Cancel, errors, atomicity.
#include "error_helpers.h"
#include "trace_fixtures.h"
#include "trace_generator.h"
#include "trace_summary_compare.h"

#include <fathom/common/error.h>
#include <fathom/trace/timeline_index.h>
#include <fathom/trace/trace_range_export.h>
#include <fathom/trace/trace_reader.h>
#include <fathom/trace/trace_summary.h>
#include <fathom/trace/trace_validator.h>

#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QTest>

#include <map>
#include <set>

using namespace fathom::trace;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const fs::path kData = FATHOM_TEST_DATA_DIR;
const fs::path kGloo = kData / "traces/gloo_2rank_merged.json.gz";
const fs::path kKineto = kData / "traces/kineto_good_rank0.json";

/// Exact ns of a ts/dur number (the files print three decimals).
std::int64_t ns(const json& micros) {
  return micros.is_number_integer() ? micros.get<std::int64_t>() * 1000
                                    : static_cast<std::int64_t>(std::llround(micros.get<double>() * 1000.0));
}

struct Events {
  json metadata;
  std::vector<std::string> texts;  ///< each event's raw text
  std::vector<json> parsed;
};

Events readAll(const fs::path& path) {
  Events out;
  TraceReader reader(path);
  while (reader.next()) {
    out.texts.emplace_back(reader.event());
    out.parsed.push_back(json::parse(reader.event()));
  }
  out.metadata = reader.metadata();
  return out;
}

std::string rowOf(const json& e) {
  return e.value("pid", json()).dump() + "/" + e.value("tid", json()).dump();
}

/// What the rules of trace_range_export.h keep, computed from the parsed events: the expected output, as a multiset
/// of raw texts. `rank`: pid / 1000 in a merged trace. Flows are left to checkFlows (they need binding).
std::multiset<std::string> expectedNonFlow(const Events& in, TimeRange r, std::optional<int> rank, bool merged) {
  auto rankOk = [&](const json& e) {
    return !rank || !merged ||
           (e.contains("pid") && e["pid"].is_number_integer() && e["pid"].get<int>() / 1000 == *rank);
  };
  auto meets = [&](std::int64_t s, std::int64_t e) {
    return s == e ? r.startNs <= s && s < r.endNs : s < r.endNs && e > r.startNs;
  };
  std::set<std::int64_t> gpuCorrelations;
  std::multiset<std::string> out;
  std::map<std::string, std::pair<std::int64_t, std::size_t>> lastBefore;
  for (std::size_t i = 0; i < in.parsed.size(); ++i) {
    const json& e = in.parsed[i];
    const std::string ph = e.value("ph", "");
    if (!rankOk(e)) {
      continue;
    }
    if (ph == "M") {
      out.insert(in.texts[i]);
    } else if (ph == "X") {
      const std::int64_t s = ns(e["ts"]);
      if (meets(s, s + std::max<std::int64_t>(ns(e["dur"]), 0))) {
        out.insert(in.texts[i]);
        const std::string cat = e.value("cat", "");
        if ((cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset") && e.contains("args") &&
            e["args"].contains("correlation")) {
          gpuCorrelations.insert(e["args"]["correlation"].get<std::int64_t>());
        }
      }
    } else if (ph == "C") {
      const std::int64_t t = ns(e["ts"]);
      if (r.startNs <= t && t < r.endNs) {
        out.insert(in.texts[i]);
      } else if (t < r.startNs) {
        auto& last = lastBefore[e["pid"].dump() + e["name"].dump()];
        if (last.second == 0 || t >= last.first) {
          last = {t, i + 1};
        }
      }
    } else if (ph != "s" && ph != "t" && ph != "f" && e.contains("ts")) {
      const std::int64_t t = ns(e["ts"]);
      if (r.startNs <= t && t < r.endNs) {
        out.insert(in.texts[i]);
      }
    }
  }
  for (const auto& [key, last] : lastBefore) {
    out.insert(in.texts[last.second - 1]);
  }
  for (std::size_t i = 0; i < in.parsed.size(); ++i) {
    const json& e = in.parsed[i];
    const std::string cat = e.value("cat", "");
    if (e.value("ph", "") == "X" && rankOk(e) && (cat == "cuda_runtime" || cat == "cuda_driver") &&
        e.contains("args") && e["args"].contains("correlation") &&
        gpuCorrelations.contains(e["args"]["correlation"].get<std::int64_t>())) {
      const std::int64_t s = ns(e["ts"]);
      if (!meets(s, s + ns(e["dur"]))) {
        out.insert(in.texts[i]);
      }
    }
  }
  return out;
}

/// Whether `fn` throws an E whose message contains `part`.
template <typename E, typename Fn> bool throwsWith(Fn&& fn, const std::string& part) {
  try {
    fn();
  } catch (const E& e) {
    if (!fathom::test::contains(e.what(), part)) {
      qWarning("message: %s", e.what());
      return false;
    }
    return true;
  } catch (const std::exception& e) {
    qWarning("other exception: %s", e.what());
  }
  return false;
}

std::string describe(const TraceValidationReport& report) {
  std::string text;
  for (const TraceIssue& issue : report.errors) {
    text += issue.rule + ": " + issue.message + "\n";
  }
  return text;
}

void checkValid(const fs::path& path) {
  const TraceValidationReport report = TraceValidator().validate(path);
  QVERIFY2(report.valid(), describe(report).c_str());
}

/// Flows of the export: each (id, cat, name) has its s and its f; none is in the original without being whole here
/// unless one of its points is outside every exported slice. Returns the number of flow events.
std::size_t checkFlows(const Events& out) {
  std::map<std::string, std::pair<int, int>> flows;
  std::size_t events = 0;
  for (const json& e : out.parsed) {
    const std::string ph = e.value("ph", "");
    if (ph == "s" || ph == "f") {
      auto& [s, f] = flows[e["id"].dump() + e.value("cat", "") + e.value("name", "")];
      (ph == "s" ? s : f) += 1;
      ++events;
    }
  }
  for (const auto& [key, ends] : flows) {
    if (ends.first != 1 || ends.second != 1) {
      qWarning("flow %s: %d starts, %d ends", key.c_str(), ends.first, ends.second);
      return 0;
    }
  }
  return events;
}

/// The export's events other than flows, as a multiset of raw texts.
std::multiset<std::string> nonFlow(const Events& out) {
  std::multiset<std::string> texts;
  for (std::size_t i = 0; i < out.parsed.size(); ++i) {
    const std::string ph = out.parsed[i].value("ph", "");
    if (ph != "s" && ph != "t" && ph != "f") {
      texts.insert(out.texts[i]);
    }
  }
  return texts;
}

}  // namespace

class TestTraceRangeExport : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  fs::path file(const char* name) const { return fs::path(m_dir.filePath(QString::fromUtf8(name)).toStdString()); }

  /// Exports `range` (and `rank`) of `input`, then checks everything the header promises.
  void checkRange(const fs::path& input, TimeRange range, std::optional<int> rank, const char* outName) {
    const fs::path out = file(outName);
    const TraceRangeExportResult result = exportTraceRange(input, out, {.range = range, .rank = rank});
    QVERIFY(!result.cancelled);
    QVERIFY(fs::exists(out));
    QVERIFY(!fs::exists(out.string() + ".partial"));
    checkValid(out);
    const Events original = readAll(input);
    const Events exported = readAll(out);
    QCOMPARE(result.eventsRead, original.texts.size());
    QCOMPARE(result.eventsWritten, exported.texts.size());
    const bool merged = original.metadata["distributedInfo"].contains("ranks");
    // Exactly the events the rules choose, byte for byte.
    const std::multiset<std::string> expected = expectedNonFlow(original, range, rank, merged);
    const std::multiset<std::string> got = nonFlow(exported);
    QCOMPARE(got.size(), expected.size());
    QVERIFY(got == expected);
    const std::size_t flowEvents = checkFlows(exported);
    QCOMPARE(flowEvents, result.flowEvents);
    // The top-level keys come along, plus fathomExport.
    for (const auto& [key, value] : original.metadata.items()) {
      QVERIFY2(exported.metadata.contains(key), key.c_str());
      QVERIFY2(exported.metadata[key] == value, key.c_str());
    }
    QCOMPARE(exported.metadata["fathomExport"]["startNs"].get<std::int64_t>(), range.startNs);
    // The timeline loads it.
    const std::optional<TimelineIndex> index = TimelineIndex::load(out);
    QVERIFY(index.has_value());
    QVERIFY(index->sliceCount() > 0);
    // The summary of the range: the same numbers on the export as on the original.
    std::vector<int> ranks;
    if (rank) {
      ranks.push_back(*rank);
    } else if (merged) {
      for (const json& r : original.metadata["distributedInfo"]["ranks"]) {
        ranks.push_back(r.get<int>());
      }
    } else {
      ranks.push_back(original.metadata["distributedInfo"]["rank"].get<int>());
    }
    for (const int r : ranks) {
      const TraceSummary a = summarizeTrace(input, {.rank = r, .range = range});
      const TraceSummary b = summarizeTrace(out, {.rank = r, .range = range});
      QVERIFY(a.rank == b.rank);
      fathom::test::compareSummaries(a, b, /*memory=*/true);
      if (QTest::currentTestFailed()) {
        return;
      }
    }
  }

private slots:
  void initTestCase() { QVERIFY(m_dir.isValid()); }

  /// Ranges of the real Gloo trace: a middle part (cutting steps), the start, everything; each rank and both.
  void glooRanges() {
    const std::optional<TimelineIndex> index = TimelineIndex::load(kGloo);
    QVERIFY(index.has_value());
    const std::int64_t lo = index->data().startNs;
    const std::int64_t hi = index->data().endNs;
    const std::vector<TimeRange> ranges = {
        {lo + (hi - lo) / 4, lo + (hi - lo) / 2}, {lo, lo + (hi - lo) / 3}, {lo, hi + 1}};
    for (const TimeRange& range : ranges) {
      for (const std::optional<int> rank : {std::optional<int>(), std::optional<int>(0), std::optional<int>(1)}) {
        checkRange(kGloo, range, rank, "gloo.json");
        if (QTest::currentTestFailed()) {
          qWarning("range [%lld, %lld) rank %d", static_cast<long long>(range.startNs),
                   static_cast<long long>(range.endNs), rank.value_or(-1));
          return;
        }
      }
    }
    // A range cut from the middle keeps fewer events than the file, and the counters' values before it.
    const TraceRangeExportResult part = exportTraceRange(kGloo, file("part.json.gz"), {.range = ranges[0], .rank = 1});
    QVERIFY(part.eventsWritten < part.eventsRead / 2);
    QVERIFY(part.counters > 0);
    QVERIFY(isGzip(fathom::test::readRaw(file("part.json.gz")).substr(0, 2)));
  }

  /// A Kineto GPU trace of one rank: the kernel's launch comes along when only the kernel meets the range.
  void kinetoLaunchComesAlong() {
    const Events original = readAll(kKineto);
    std::int64_t kernelStart = -1;
    std::int64_t launchEnd = -1;
    for (const json& e : original.parsed) {  // the first kernel and its launch (correlation 901)
      if (e.value("cat", "") == "kernel" && kernelStart < 0) {
        kernelStart = ns(e["ts"]);
      } else if (e.value("cat", "") == "cuda_runtime" && launchEnd < 0) {
        launchEnd = ns(e["ts"]) + ns(e["dur"]);
      }
    }
    QVERIFY(kernelStart >= 0 && launchEnd >= 0);
    QVERIFY(launchEnd <= kernelStart);
    const TimeRange range{kernelStart, kernelStart + 1};
    checkRange(kKineto, range, 0, "kineto.json");
    const TraceRangeExportResult result = exportTraceRange(kKineto, file("kineto.json"), {.range = range});
    QCOMPARE(result.launchesAdded, std::uint64_t{1});
    // The ac2g flow's start lies on the launch, which is kept: the flow is whole.
    QVERIFY(result.flowEvents >= 2);
    QCOMPARE(result.flowsDropped, std::uint64_t{0});
  }

  /// Generated 2-rank GPU traces: ranges that cut steps, kernels and flows.
  void generatedGpuRanges() {
    const fs::path path = file("gpu.json.gz");
    fathom::test::generateTrace(path, {.events = 20'000, .ranks = 2, .seed = 11, .opsPerStep = 80});
    const std::optional<TimelineIndex> index = TimelineIndex::load(path);
    QVERIFY(index.has_value());
    const std::int64_t lo = index->data().startNs;
    const std::int64_t hi = index->data().endNs;
    for (const TimeRange& range : {TimeRange{lo + (hi - lo) / 3, lo + (hi - lo) / 2}, TimeRange{lo + 7, hi - 7}}) {
      checkRange(path, range, std::nullopt, "gpu_part.json.gz");
      if (QTest::currentTestFailed()) {
        return;
      }
      checkRange(path, range, 1, "gpu_rank1.json");
      if (QTest::currentTestFailed()) {
        return;
      }
    }
    const TraceRangeExportResult r =
        exportTraceRange(path, file("gpu_cut.json"), {.range = TimeRange{lo + (hi - lo) / 3, lo + (hi - lo) / 2}});
    QVERIFY(r.flowEvents > 0);
    QVERIFY(r.flowsDropped > 0);  // a cut at both ends leaves some flows with one end outside
  }

  /// Rows: one GPU stream lane; its launches come from the CPU row, so the file still validates.
  void rowsOfOneLane() {
    const fs::path path = file("lanes.json");
    fathom::test::generateTrace(path, {.events = 8'000, .ranks = 2, .seed = 3, .opsPerStep = 40});
    const std::optional<TimelineIndex> index = TimelineIndex::load(path);
    QVERIFY(index.has_value());
    std::string stream;
    for (const TimelineLane& lane : index->lanes()) {
      if (lane.kind == LaneKind::GpuStream && stream.empty()) {
        stream = lane.key;
      }
    }
    QVERIFY(!stream.empty());
    const fs::path out = file("lane.json");
    const TraceRangeExportResult result = exportTraceRange(path, out, {.rows = {stream}});
    checkValid(out);
    QVERIFY(result.launchesAdded > 0);
    const Events exported = readAll(out);
    std::set<std::string> rows;
    for (const json& e : exported.parsed) {
      if (e.value("ph", "") == "X" && e.value("cat", "") != "cuda_runtime") {
        rows.insert(rowOf(e));
      }
    }
    QVERIFY(rows == std::set<std::string>{stream});
    QCOMPARE(exported.metadata["fathomExport"]["rows"][0].get<std::string>(), stream);
  }

  void cancelLeavesNothing() {
    const fs::path out = file("cancelled.json");
    int calls = 0;
    const TraceRangeExportResult result =
        exportTraceRange(kGloo, out, {.onProgress = [&calls](double) { return ++calls < 2; }, .progressEvery = 100});
    QVERIFY(result.cancelled);
    QVERIFY(!fs::exists(out));
    QVERIFY(!fs::exists(out.string() + ".partial"));
    std::atomic<bool> cancel{true};
    QVERIFY(exportTraceRange(kGloo, out, {.cancel = &cancel, .progressEvery = 100}).cancelled);
    QVERIFY(!fs::exists(out));
  }

  void errorsNameTheInput() {
    const fs::path out = file("never.json");
    QVERIFY(throwsWith<fathom::ConfigError>(
        [&] {
          exportTraceRange(kGloo, out, {.range = TimeRange{5, 5}});
        },
        "is empty"));
    QVERIFY(throwsWith<fathom::ConfigError>([&] { exportTraceRange(kGloo, out, {.rank = 7}); }, "merged trace"));
    QVERIFY(throwsWith<fathom::ConfigError>([&] { exportTraceRange(kKineto, out, {.rank = 3}); },
                                            "kineto_good_rank0.json holds rank 0 only"));
    const fs::path bad = file("bad.json");
    fathom::test::writeTraceFile(bad, "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1,}]}");
    QVERIFY(throwsWith<fathom::StorageError>([&] { exportTraceRange(bad, out); }, "bad.json"));
    QVERIFY(!fs::exists(out));
    QVERIFY(!fs::exists(out.string() + ".partial"));
  }

  /// A trace held in memory (the workspace's): the same bytes as the file.
  void fromBytes() {
    const std::string bytes = fathom::test::readRaw(kGloo);
    const fs::path a = file("bytes.json");
    const fs::path b = file("file.json");
    const TimeRange range{1'000'000, 50'000'000};
    exportTraceRange([&] { return TraceInput::fromBytes("stored trace", bytes); }, a, {.range = range});
    exportTraceRange(kGloo, b, {.range = range});
    const Events ea = readAll(a);
    const Events eb = readAll(b);
    QVERIFY(ea.texts == eb.texts);
    QCOMPARE(ea.metadata["fathomExport"]["source"].get<std::string>(), std::string("stored trace"));
  }
};

QTEST_GUILESS_MAIN(TestTraceRangeExport)
#include "tst_trace_range_export.moc"
