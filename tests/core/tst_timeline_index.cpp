// SPDX-License-Identifier: Apache-2.0
// TimelineIndex and its queries (issue 19's core): every slice of a real 2-rank Gloo trace is in its lane at the
// depth a brute-force nesting count gives; flows link a Kineto GPU trace's launches to their kernels; search; per-pixel
// merging equals brute force on random traces; area aggregation equals `fathom trace summary` on the same range;
// progress, cancel and errors. Expected values come from parsing the files independently with nlohmann::json.
#include "error_helpers.h"
#include "trace_fixtures.h"
#include "trace_generator.h"
#include "trace_summary_compare.h"

#include <fathom/trace/timeline_index.h>
#include <fathom/trace/timeline_queries.h>
#include <fathom/trace/trace_summary.h>

#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <charconv>
#include <functional>
#include <map>
#include <numeric>
#include <random>
#include <set>

using namespace fathom::trace;
namespace fs = std::filesystem;
using fathom::test::compareSummaries;

namespace {

const fs::path kData = FATHOM_TEST_DATA_DIR;
const fs::path kGloo = kData / "traces/gloo_2rank_merged.json.gz";
const fs::path kKineto = kData / "traces/kineto_good_rank0.json";

std::string keyOf(const nlohmann::json& e) {
  return e.at("pid").dump() + "/" + (e.contains("tid") ? e["tid"].dump() : "");
}

TimelineIndex loadOrFail(const fs::path& path, const TimelineLoadOptions& options = {}) {
  std::optional<TimelineIndex> index = TimelineIndex::load(path, options);
  if (!index) {
    throw std::runtime_error("cancelled");
  }
  return std::move(*index);
}

std::optional<std::uint32_t> laneByKey(const TimelineIndex& index, const std::string& key) {
  for (std::uint32_t l = 0; l < index.lanes().size(); ++l) {
    if (index.lane(l).key == key) {
      return l;
    }
  }
  return std::nullopt;
}

std::optional<SliceRef> findSlice(const TimelineIndex& index, std::string_view name, std::optional<int> rank = {}) {
  for (std::uint32_t l = 0; l < index.lanes().size(); ++l) {
    const TimelineLane& lane = index.lane(l);
    if (rank && index.processes()[lane.process].rank != rank) {
      continue;
    }
    for (std::uint32_t i = 0; i < lane.sliceCount(); ++i) {
      if (index.name(lane.name[i]) == name) {
        return SliceRef{l, i};
      }
    }
  }
  return std::nullopt;
}

/// A lane of random slices: nested trees, siblings that touch, zero-length ones, and a few that cross their parent's
/// end (depths must stay disjoint anyway).
std::string randomTrace(std::mt19937_64& rng, int slices) {
  std::vector<std::string> events;
  std::uniform_int_distribution<int> pct(0, 99);
  std::int64_t t = 0;
  std::function<void(std::int64_t, std::int64_t, int)> fill = [&](std::int64_t lo, std::int64_t hi, int depth) {
    std::int64_t at = lo;
    while (at < hi && static_cast<int>(events.size()) < slices) {
      const std::int64_t gap = pct(rng) < 30 ? 0 : std::uniform_int_distribution<std::int64_t>(0, 5'000)(rng);
      const std::int64_t start = at + gap;
      std::int64_t dur = pct(rng) < 5 ? 0 : std::uniform_int_distribution<std::int64_t>(1, 50'000 >> depth)(rng);
      if (start >= hi) {
        break;
      }
      if (pct(rng) >= 3) {
        dur = std::min(dur, hi - start);  // 3 %: cross the parent's end
      }
      const std::string name = "op" + std::to_string(std::uniform_int_distribution<int>(0, 20)(rng));
      events.push_back(fathom::test::completeEvent(
          "cpu_op", name, 1, 1, std::to_string(start / 1000) + "." + std::to_string(1000 + start % 1000).substr(1),
          std::to_string(dur / 1000) + "." + std::to_string(1000 + dur % 1000).substr(1)));
      if (depth < 6 && dur > 10 && pct(rng) < 60) {
        fill(start, start + dur, depth + 1);
      }
      at = start + dur;
    }
  };
  while (static_cast<int>(events.size()) < slices) {
    fill(t, t + 10'000'000, 0);
    t += 10'000'000;
  }
  std::shuffle(events.begin(), events.end(), rng);  // files need not be in time order
  return fathom::test::objectTrace(events);
}

/// Whether slice i meets the range, by the rule visibleSlices documents (the summary's clip rule).
bool meets(const TimelineLane& lane, std::uint32_t i, TimeRange r) {
  return lane.start[i] == lane.end[i] ? r.startNs <= lane.start[i] && lane.start[i] < r.endNs
                                      : lane.start[i] < r.endNs && lane.end[i] > r.startNs;
}

/// Brute-force per-pixel merging of one depth, written from the definition in timeline_queries.h.
std::vector<MergedSlice> bruteMerge(const TimelineLane& lane, std::uint32_t depth, TimeRange r, std::uint32_t pixels) {
  std::vector<MergedSlice> out;
  const std::int64_t length = r.endNs - r.startNs;
  for (std::uint32_t i = lane.depthBegin[depth]; i < lane.depthBegin[depth + 1]; ++i) {
    if (!meets(lane, i, r)) {
      continue;
    }
    const std::int64_t t = std::max(lane.start[i], r.startNs);
    const auto column =
        static_cast<std::uint32_t>(std::min<std::int64_t>((t - r.startNs) * pixels / length, pixels - 1));
    if (!out.empty() && out.back().column == column) {
      MergedSlice& m = out.back();
      m.endNs = std::max(m.endNs, lane.end[i]);
      ++m.count;
      if (lane.duration(i) > lane.duration(m.longest)) {
        m.longest = i;
      }
    } else {
      out.push_back({lane.start[i], lane.end[i], 1, i, column});
    }
  }
  return out;
}

}  // namespace

class TestTimelineIndex : public QObject {
  Q_OBJECT

private slots:
  void initTestCase() { QVERIFY(m_dir.isValid()); }
  void realTraceLanesAndSlices();
  void nestingDepth();
  void knownSliceDetails();
  void gpuFlowFromOpToKernel();
  void flowsMatchByIdCategoryAndName();
  void search();
  void mergeEqualsBruteForce();
  void counterMergeEqualsBruteForce();
  void areaEqualsSummary();
  void areaEqualsSummaryOnGpuTrace();
  void pytorchLegacyTrace();
  void progressAndCancel();
  void inputThatCannotBeReadAgain();
  void malformedInputNamesFileAndOffset();

private:
  QTemporaryDir m_dir;
};

void TestTimelineIndex::realTraceLanesAndSlices() {
  const TimelineIndex index = loadOrFail(kGloo);
  const nlohmann::json json = nlohmann::json::parse(fathom::test::readText(kGloo));
  QCOMPARE(index.data().events, json.at("traceEvents").size());
  // Two ranks, each one process with its main thread, the profiler's thread and the collectives row.
  std::map<int, int> processesPerRank;
  for (const TimelineProcess& p : index.processes()) {
    QVERIFY(p.rank.has_value());
    ++processesPerRank[*p.rank];
    QVERIFY2(p.title.starts_with("rank " + std::to_string(*p.rank)), p.title.c_str());
    QCOMPARE(p.lanes.size(), std::size_t{3});
    int collectives = 0;
    for (const std::uint32_t l : p.lanes) {
      collectives += index.lane(l).kind == LaneKind::Collectives ? 1 : 0;
    }
    QCOMPARE(collectives, 1);
    std::set<std::string> series;
    for (const std::uint32_t c : p.counters) {
      QCOMPARE(index.name(index.counters()[c].name), std::string_view("Memory"));
      series.insert(index.counters()[c].series);
    }
    QVERIFY(series.contains("parameters") && series.contains("activations"));
  }
  QCOMPARE(processesPerRank, (std::map<int, int>{{0, 1}, {1, 1}}));
  QCOMPARE(index.steps().size(), std::size_t{2});
  QCOMPARE(index.steps()[0].rank, std::optional<int>(0));
  QCOMPARE(index.steps()[1].rank, std::optional<int>(1));
  // Every complete event is one slice of its lane with its exact times and name; every instant is kept.
  std::multiset<std::tuple<std::string, std::int64_t, std::int64_t, std::string>> expected;
  std::multiset<std::tuple<std::string, std::int64_t, std::int64_t, std::string>> actual;
  std::size_t instants = 0;
  for (const nlohmann::json& e : json.at("traceEvents")) {
    if (e.at("ph") == "X") {
      const std::int64_t start = fathom::test::exactNs(e.at("ts"));
      expected.emplace(keyOf(e), start, start + fathom::test::exactNs(e.at("dur")), e.at("name").get<std::string>());
    } else if (e.at("ph") == "i") {
      ++instants;
    }
  }
  std::size_t instantsKept = 0;
  for (const TimelineLane& lane : index.lanes()) {
    for (std::uint32_t i = 0; i < lane.sliceCount(); ++i) {
      actual.emplace(lane.key, lane.start[i], lane.end[i], std::string(index.name(lane.name[i])));
    }
    instantsKept += lane.instantTs.size();
    QVERIFY(std::is_sorted(lane.instantTs.begin(), lane.instantTs.end()));
  }
  QCOMPARE(actual.size(), expected.size());
  QVERIFY(actual == expected);
  QCOMPARE(instantsKept, instants);
  QCOMPARE(index.sliceCount(), expected.size());
}

void TestTimelineIndex::nestingDepth() {
  const TimelineIndex index = loadOrFail(kGloo);
  for (const TimelineLane& lane : index.lanes()) {
    for (std::uint32_t d = 0; d < lane.depthCount(); ++d) {
      for (std::uint32_t i = lane.depthBegin[d] + 1; i < lane.depthBegin[d + 1]; ++i) {
        QVERIFY(lane.start[i - 1] <= lane.start[i] && lane.end[i - 1] <= lane.start[i]);  // disjoint, sorted
      }
    }
    // This trace nests perfectly: a slice's depth is the number of slices of its lane that enclose it.
    for (std::uint32_t i = 0; i < lane.sliceCount(); ++i) {
      std::uint32_t enclosing = 0;
      for (std::uint32_t j = 0; j < lane.sliceCount(); ++j) {
        // j is still open when i starts (it ends after i's start) and sorts before it (longer, or first).
        const bool encloses = j != i && lane.start[j] <= lane.start[i] && lane.end[i] <= lane.end[j] &&
                              lane.end[j] > lane.start[i] && (lane.duration(j) > lane.duration(i) || j < i);
        enclosing += encloses ? 1 : 0;
      }
      QCOMPARE(lane.depthOf(i), enclosing);
    }
  }
  const SliceRef step = *findSlice(index, "ProfilerStep#1", 0);
  const SliceRef forward = *findSlice(index, "fathom::forward", 0);
  QCOMPARE(index.lane(step.lane).depthOf(step.index), 0u);
  QCOMPARE(index.lane(forward.lane).depthOf(forward.index), 1u);
}

void TestTimelineIndex::knownSliceDetails() {
  for (const fs::path& path : {kGloo, fs::path(m_dir.filePath("gloo.json").toStdString())}) {
    if (path.extension() == ".json") {
      fathom::test::writeTraceFile(path, fathom::test::readText(kGloo));  // the same trace uncompressed: seeks
    }
    const TimelineIndex index = loadOrFail(path);
    const SliceRef ref = *findSlice(index, "fathom::all_reduce", 1);
    const TimelineLane& lane = index.lane(ref.lane);
    QCOMPARE(lane.kind, LaneKind::Collectives);
    const SliceDetails d = sliceDetails(index, ref);
    QCOMPARE(d.name, std::string("fathom::all_reduce"));
    QCOMPARE(d.category, std::string("user_annotation"));
    QCOMPARE(d.depth, 0u);
    QCOMPARE(d.selfNs, d.durationNs);
    QVERIFY(d.eventJson.has_value());
    const nlohmann::json event = nlohmann::json::parse(*d.eventJson);
    QCOMPARE(event.at("name").get<std::string>(), d.name);
    QCOMPARE(fathom::test::exactNs(event.at("ts")), d.startNs);
    QCOMPARE(event.at("args").at("Collective name").get<std::string>(), std::string("all_reduce"));
    QCOMPARE(event.at("args").at("bytes").get<std::int64_t>(), std::int64_t{449536});
    QCOMPARE(lane.factsOf(ref.index)->bytes, std::int64_t{449536});
    // Self time of a step: its duration minus its direct children's.
    const SliceRef step = *findSlice(index, "ProfilerStep#1", 0);
    const SliceDetails s = sliceDetails(index, step, false);
    std::int64_t children = 0;
    const TimelineLane& main = index.lane(step.lane);
    for (std::uint32_t i = main.depthBegin[1]; i < main.depthBegin[2]; ++i) {
      children += main.duration(i);
    }
    QCOMPARE(s.selfNs, s.durationNs - children);
    QVERIFY(!s.eventJson.has_value());
  }
}

void TestTimelineIndex::flowsMatchByIdCategoryAndName() {
  // Perfetto's rule: v1 flow events pair by (id, cat, name). One id shared by two flows of different names and one
  // of another category must give three separate arrows; an s -> t -> f chain gives two; and 3,000 more pairs (more
  // keys than the builder's first table holds) each link slice 2k to slice 2k+1.
  std::string events = R"({"ph":"X","pid":1,"tid":1,"ts":0,"dur":10,"name":"a","cat":"c"},)"
                       R"({"ph":"X","pid":1,"tid":1,"ts":20,"dur":10,"name":"b","cat":"c"},)"
                       R"({"ph":"X","pid":1,"tid":1,"ts":40,"dur":10,"name":"c","cat":"c"},)"
                       R"({"ph":"s","pid":1,"tid":1,"ts":1,"id":7,"name":"x","cat":"f"},)"
                       R"({"ph":"s","pid":1,"tid":1,"ts":2,"id":7,"name":"y","cat":"f"},)"
                       R"({"ph":"s","pid":1,"tid":1,"ts":3,"id":7,"name":"x","cat":"g"},)"
                       R"({"ph":"f","pid":1,"tid":1,"ts":41,"id":7,"name":"x","cat":"f","bp":"e"},)"
                       R"({"ph":"f","pid":1,"tid":1,"ts":21,"id":7,"name":"y","cat":"f","bp":"e"},)"
                       R"({"ph":"f","pid":1,"tid":1,"ts":42,"id":7,"name":"x","cat":"g","bp":"e"},)"
                       R"({"ph":"s","pid":1,"tid":1,"ts":4,"id":"s1","name":"z","cat":"f"},)"
                       R"({"ph":"t","pid":1,"tid":1,"ts":22,"id":"s1","name":"z","cat":"f"},)"
                       R"({"ph":"f","pid":1,"tid":1,"ts":43,"id":"s1","name":"z","cat":"f","bp":"e"})";
  const int pairs = 3000;
  for (int k = 0; k < pairs; ++k) {
    const std::string t0 = std::to_string(1000 + 20 * k);
    const std::string t1 = std::to_string(1010 + 20 * k);
    events += R"(,{"ph":"X","pid":2,"tid":2,"ts":)" + t0 + R"(,"dur":5,"name":"op","cat":"c"})";
    events += R"(,{"ph":"X","pid":2,"tid":2,"ts":)" + t1 + R"(,"dur":5,"name":"kernel","cat":"c"})";
    events += R"(,{"ph":"s","pid":2,"tid":2,"ts":)" + t0 + R"(,"id":)" + std::to_string(k) +
              R"(,"name":"ac2g","cat":"ac2g"})";
    events += R"(,{"ph":"f","pid":2,"tid":2,"ts":)" + t1 + R"(,"id":)" + std::to_string(k) +
              R"(,"name":"ac2g","cat":"ac2g","bp":"e"})";
  }
  const std::optional<TimelineIndex> index = TimelineIndex::loadBytes("flows", R"({"traceEvents":[)" + events + "]}");
  QVERIFY(index.has_value());
  const SliceRef a = *findSlice(*index, "a");
  const SliceRef b = *findSlice(*index, "b");
  const SliceRef c = *findSlice(*index, "c");
  std::vector<std::pair<std::string, std::pair<SliceRef, SliceRef>>> small;
  for (const TimelineFlow& flow : index->flows())
    if (index->name(flow.name) != "ac2g")
      small.push_back({std::string(index->name(flow.name)), {flow.from, flow.to}});
  std::sort(small.begin(), small.end());
  using Flow = std::pair<std::string, std::pair<SliceRef, SliceRef>>;
  const std::vector<Flow> expected{{"x", {a, c}}, {"x", {a, c}}, {"y", {a, b}}, {"z", {a, b}}, {"z", {b, c}}};
  QCOMPARE(small, expected);
  QCOMPARE(index->flows().size(), expected.size() + pairs);
  const std::uint32_t lane = *laneByKey(*index, "2/2");
  for (const TimelineFlow& flow : index->flows()) {
    if (index->name(flow.name) == "ac2g") {
      QCOMPARE(flow.from.lane, lane);
      QCOMPARE(flow.to, (SliceRef{lane, flow.from.index + 1}));
      QCOMPARE(flow.from.index % 2, 0u);
    }
  }
}

void TestTimelineIndex::gpuFlowFromOpToKernel() {
  const TimelineIndex index = loadOrFail(kKineto);
  const std::uint32_t cpu = *laneByKey(index, "4242/4242");
  const std::uint32_t stream = *laneByKey(index, "0/7");
  QCOMPARE(index.lane(cpu).kind, LaneKind::Thread);
  QCOMPARE(index.lane(stream).kind, LaneKind::GpuStream);
  QCOMPARE(index.lane(stream).title, std::string("stream 7"));
  QCOMPARE(index.flows().size(), std::size_t{2});
  const SliceRef mm = *findSlice(index, "aten::mm");
  const SliceRef launch = *findSlice(index, "cudaLaunchKernel");
  const SliceRef kernel = *findSlice(index, "sm90_xmma_gemm_f32f32_tf32f32_f32");
  QCOMPARE(index.lane(launch.lane).depthOf(launch.index), 2u);  // ProfilerStep#3 > aten::mm > cudaLaunchKernel
  const SliceDetails op = sliceDetails(index, mm, false);
  QCOMPARE(op.launched, std::vector<SliceRef>{kernel});  // the op's kernel, through its launch's flow
  QCOMPARE(sliceDetails(index, launch, false).flowsOut, std::vector<SliceRef>{kernel});
  QCOMPARE(sliceDetails(index, kernel, false).flowsIn, std::vector<SliceRef>{launch});
  QCOMPARE(index.name(index.flows()[0].name), std::string_view("ac2g"));
  // The memcpy's flow: cudaMemcpyAsync -> Memcpy DtoH.
  const SliceRef memcpy = *findSlice(index, "Memcpy DtoH (Device -> Pinned)");
  QCOMPARE(sliceDetails(index, memcpy, false).flowsIn, std::vector<SliceRef>{*findSlice(index, "cudaMemcpyAsync")});
  // Hit test: the kernel at a time inside it, and nothing beyond its end without tolerance.
  const TimelineLane& gpu = index.lane(stream);
  QCOMPARE(sliceAt(gpu, 0, gpu.start[kernel.index] + 1), std::optional<std::uint32_t>(kernel.index));
  QCOMPARE(sliceAt(gpu, 0, gpu.end[kernel.index] + 100), std::nullopt);
  QCOMPARE(sliceAt(gpu, 0, gpu.end[kernel.index] + 100, 200), std::optional<std::uint32_t>(kernel.index));
}

void TestTimelineIndex::search() {
  const TimelineIndex index = loadOrFail(kGloo);
  const nlohmann::json json = nlohmann::json::parse(fathom::test::readText(kGloo));
  std::size_t mm = 0;
  for (const nlohmann::json& e : json.at("traceEvents")) {
    mm += e.at("ph") == "X" && e.at("name").get<std::string>().find("aten::mm") != std::string::npos ? 1 : 0;
  }
  QVERIFY(mm > 0);
  const SearchResult sub = searchSlices(index, {.pattern = "ATEN::MM"});
  QCOMPARE(sub.total, mm);
  for (std::size_t i = 1; i < sub.matches.size(); ++i) {  // in time order: next/previous walk the vector
    QVERIFY(index.lane(sub.matches[i - 1].lane).start[sub.matches[i - 1].index] <=
            index.lane(sub.matches[i].lane).start[sub.matches[i].index]);
  }
  QCOMPARE(searchSlices(index, {.pattern = "ATEN::MM", .caseSensitive = true}).total, std::size_t{0});
  const SearchResult re = searchSlices(index, {.pattern = "^fathom::(forward|backward)$", .regex = true});
  QCOMPARE(re.total, std::size_t{4});  // forward and backward on two ranks
  QCOMPARE(searchSlices(index, {.pattern = "ProfilerStep#", .maxMatches = 1}).matches.size(), std::size_t{1});
  QVERIFY(fathom::test::contains(
      fathom::test::messageOf([&] { searchSlices(index, {.pattern = "([", .regex = true}); }), "\"([\""));
}

void TestTimelineIndex::mergeEqualsBruteForce() {
  std::mt19937_64 rng(19);
  for (int trial = 0; trial < 4; ++trial) {
    const std::optional<TimelineIndex> loaded = TimelineIndex::loadBytes("random", randomTrace(rng, 3000));
    QVERIFY(loaded.has_value());
    const TimelineLane& lane = loaded->lane(0);
    QCOMPARE(lane.sliceCount(), 3000u);
    QVERIFY(lane.depthCount() >= 3);
    for (std::uint32_t d = 0; d < lane.depthCount(); ++d) {
      for (std::uint32_t i = lane.depthBegin[d] + 1; i < lane.depthBegin[d + 1]; ++i) {
        QVERIFY(lane.end[i - 1] <= lane.start[i]);  // disjoint even where the input crossed
      }
    }
    const std::int64_t lo = loaded->data().startNs;
    const std::int64_t hi = loaded->data().endNs;
    std::vector<MergedSlice> merged;
    for (int q = 0; q < 60; ++q) {
      std::int64_t a = std::uniform_int_distribution<std::int64_t>(lo - 1000, hi)(rng);
      std::int64_t b = std::uniform_int_distribution<std::int64_t>(lo, hi + 1000)(rng);
      if (q % 10 == 0) {
        a = lo;  // fit
        b = hi + 1;
      }
      if (a == b) {
        continue;
      }
      const TimeRange r{std::min(a, b), std::max(a, b)};
      const std::uint32_t pixels = q % 3 == 0 ? 1920 : std::uniform_int_distribution<std::uint32_t>(1, 300)(rng);
      for (std::uint32_t d = 0; d < lane.depthCount(); ++d) {
        mergeForPixels(lane, d, r, pixels, merged);
        const std::vector<MergedSlice> brute = bruteMerge(lane, d, r, pixels);
        QCOMPARE(merged.size(), brute.size());
        for (std::size_t k = 0; k < brute.size(); ++k) {
          QCOMPARE(merged[k].column, brute[k].column);
          QCOMPARE(merged[k].count, brute[k].count);
          QCOMPARE(merged[k].startNs, brute[k].startNs);
          QCOMPARE(merged[k].endNs, brute[k].endNs);
          QCOMPARE(merged[k].longest, brute[k].longest);
        }
        const SliceWindow w = visibleSlices(lane, d, r);
        std::uint32_t count = 0;
        for (const MergedSlice& m : brute) {
          count += m.count;
        }
        QCOMPARE(w.size(), count);
      }
    }
  }
  const TimelineLane empty;
  std::vector<MergedSlice> none;
  mergeForPixels(empty, 0, {0, 10}, 10, none);
  QVERIFY(none.empty());
  QVERIFY(fathom::test::throwsType<fathom::ConfigError>([&] { mergeForPixels(empty, 0, {10, 10}, 10, none); }));
  QVERIFY(fathom::test::throwsType<fathom::ConfigError>([&] { mergeForPixels(empty, 0, {0, 10}, 0, none); }));
}

void TestTimelineIndex::counterMergeEqualsBruteForce() {
  const TimelineIndex index = loadOrFail(kGloo);
  std::mt19937_64 rng(5);
  std::vector<CounterPixel> pixels;
  for (const TimelineCounter& counter : index.counters()) {
    QVERIFY(counter.ts.size() > 2 * 64);  // full LOD blocks are used
    QVERIFY(std::is_sorted(counter.ts.begin(), counter.ts.end()));
    for (int q = 0; q < 20; ++q) {
      const std::int64_t lo = counter.ts.front() - 10;
      const std::int64_t hi = counter.ts.back() + 10;
      std::int64_t a = std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
      std::int64_t b = std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
      if (q == 0) {
        a = lo;
        b = hi;
      }
      if (a == b) {
        continue;
      }
      const TimeRange r{std::min(a, b), std::max(a, b)};
      const std::uint32_t width = q % 2 == 0 ? 1920 : std::uniform_int_distribution<std::uint32_t>(1, 50)(rng);
      mergeCounterForPixels(counter, r, width, pixels);
      std::vector<CounterPixel> brute;
      for (std::size_t i = 0; i < counter.ts.size(); ++i) {
        if (counter.ts[i] < r.startNs || counter.ts[i] >= r.endNs) {
          continue;
        }
        const auto column = static_cast<std::uint32_t>((counter.ts[i] - r.startNs) * width / (r.endNs - r.startNs));
        const double v = counter.value[i];
        if (!brute.empty() && brute.back().column == column) {
          CounterPixel& p = brute.back();
          ++p.count;
          p.min = std::min(p.min, v);
          p.max = std::max(p.max, v);
          p.last = v;
        } else {
          brute.push_back({column, 1, v, v, v});
        }
      }
      QCOMPARE(pixels.size(), brute.size());
      for (std::size_t k = 0; k < brute.size(); ++k) {
        QCOMPARE(pixels[k].column, brute[k].column);
        QCOMPARE(pixels[k].count, brute[k].count);
        QCOMPARE(pixels[k].min, brute[k].min);
        QCOMPARE(pixels[k].max, brute[k].max);
        QCOMPARE(pixels[k].last, brute[k].last);
      }
    }
    QCOMPARE(counterValueAt(counter, counter.ts.front() - 1), std::nullopt);
    QCOMPARE(counterValueAt(counter, counter.ts.back() + 1), std::optional<double>(counter.value.back()));
  }
}

void TestTimelineIndex::areaEqualsSummary() {
  const TimelineIndex index = loadOrFail(kGloo);
  const std::int64_t lo = index.data().startNs;
  const std::int64_t hi = index.data().endNs;
  const std::vector<TimeRange> ranges = {
      {lo, hi + 1}, {lo + (hi - lo) / 4, lo + (hi - lo) / 2}, {lo, lo + (hi - lo) / 3}, {lo + (hi - lo) / 2, hi + 1}};
  for (const TimeRange& range : ranges) {
    for (int rank = 0; rank < 2; ++rank) {
      std::vector<std::uint32_t> lanes;
      for (const TimelineProcess& p : index.processes()) {
        if (p.rank == rank) {
          lanes.insert(lanes.end(), p.lanes.begin(), p.lanes.end());
        }
      }
      const AreaAggregation area = aggregateArea(index, range, lanes);
      QCOMPARE(area.ranks.size(), std::size_t{1});
      QCOMPARE(area.ranks[0].rank, std::optional<int>(rank));
      const TraceSummary cli = summarizeTrace(kGloo, {.rank = rank, .range = range});
      compareSummaries(cli, area.ranks[0].summary);
      QVERIFY(!cli.steps.empty() || range.startNs > lo);
      // Per-name aggregation against a brute-force pass over the lanes.
      std::map<std::string, std::tuple<std::uint64_t, std::int64_t, std::int64_t>> brute;
      for (const std::uint32_t l : lanes) {
        const TimelineLane& lane = index.lane(l);
        for (std::uint32_t i = 0; i < lane.sliceCount(); ++i) {
          if (meets(lane, i, range)) {
            auto& [count, total, max] = brute[std::string(index.name(lane.name[i]))];
            ++count;
            total += lane.duration(i);
            max = std::max(max, lane.duration(i));
          }
        }
      }
      QCOMPARE(area.byName.size(), brute.size());
      for (const NameAggregate& a : area.byName) {
        const auto& [count, total, max] = brute.at(std::string(index.name(a.name)));
        QCOMPARE(a.count, count);
        QCOMPARE(a.totalNs, total);
        QCOMPARE(a.maxNs, max);
      }
    }
  }
}

void TestTimelineIndex::areaEqualsSummaryOnGpuTrace() {
  const fs::path path = m_dir.filePath("gpu.json.gz").toStdString();
  const fathom::test::GeneratedTrace generated =
      fathom::test::generateTrace(path, {.events = 30'000, .ranks = 2, .seed = 7, .opsPerStep = 120});
  const TimelineIndex index = loadOrFail(path);
  QCOMPARE(index.data().events, generated.events);
  QCOMPARE(index.sliceCount(), generated.slices);
  QCOMPARE(index.flows().size(), generated.flows);
  QCOMPARE(index.steps().size(), generated.steps);
  const std::int64_t lo = index.data().startNs;
  const std::int64_t hi = index.data().endNs;
  for (const TimeRange& range : {TimeRange{lo, hi + 1}, TimeRange{lo + (hi - lo) / 3, lo + (hi - lo) / 2}}) {
    std::vector<std::uint32_t> lanes(index.lanes().size());
    std::iota(lanes.begin(), lanes.end(), 0u);
    const AreaAggregation area = aggregateArea(index, range, lanes);
    QCOMPARE(area.ranks.size(), std::size_t{2});
    for (const RankSummary& r : area.ranks) {
      const TraceSummary cli = summarizeTrace(path, {.rank = r.rank, .range = range});
      QCOMPARE(static_cast<int>(cli.timeline), static_cast<int>(SummaryTimeline::Gpu));
      compareSummaries(cli, r.summary);
    }
  }
}

/// A real PyTorch 1.13 trace in the legacy layout (no `cat`; make_pytorch_legacy_trace.py): the index files its
/// events as the summary does, so the area equals the CLI's summary, and both see compute and Gloo's collectives.
void TestTimelineIndex::pytorchLegacyTrace() {
  const fs::path path = kData / "traces/pytorch_legacy_ddp_rank0.json.gz";
  const TimelineIndex index = loadOrFail(path);
  QCOMPARE(index.steps().size(), std::size_t{3});
  const TimeRange all{index.data().startNs, index.data().endNs + 1};
  std::vector<std::uint32_t> lanes(index.lanes().size());
  std::iota(lanes.begin(), lanes.end(), 0u);
  const AreaAggregation area = aggregateArea(index, all, lanes);
  QCOMPARE(area.ranks.size(), std::size_t{1});
  const TraceSummary cli = summarizeTrace(path, {.range = all});
  compareSummaries(cli, area.ranks[0].summary);
  QCOMPARE(cli.steps.size(), std::size_t{3});
  QVERIFY(cli.total.computeNs > cli.total.spanNs / 4);  // the ops of the main thread (0 when nothing had a category)
  QVERIFY(cli.total.communicationNs > 0);
  QStringList kinds;
  for (const CollectiveStats& c : cli.collectives) {
    kinds << QString::fromStdString(c.kind);
    QVERIFY(!c.bytes);
  }
  kinds.sort();
  QCOMPARE(kinds, QStringList({QStringLiteral("all_reduce"), QStringLiteral("broadcast")}));
  QCOMPARE(QString::fromStdString(cli.topOps.at(0).name), QStringLiteral("aten::addmm"));
}

void TestTimelineIndex::progressAndCancel() {
  const fs::path path = m_dir.filePath("progress.json").toStdString();
  fathom::test::generateTrace(path, {.events = 20'000, .ranks = 2});
  std::vector<double> fractions;
  TimelineLoadOptions options;
  options.progressEveryBytes = 64 << 10;
  options.onProgress = [&](const TimelineLoadProgress& p) {
    fractions.push_back(p.fraction());
    return true;
  };
  QVERIFY(TimelineIndex::load(path, options).has_value());
  QVERIFY(fractions.size() > 10);
  QVERIFY(std::is_sorted(fractions.begin(), fractions.end()));
  QCOMPARE(fractions.back(), 1.0);
  // The callback says stop: loading stops at once, nothing is returned.
  int calls = 0;
  options.onProgress = [&](const TimelineLoadProgress&) { return ++calls < 3; };
  QVERIFY(!TimelineIndex::load(path, options).has_value());
  QCOMPARE(calls, 3);
  // The flag, set from another thread in the Studio; here from the callback.
  std::atomic<bool> cancel{false};
  options.cancel = &cancel;
  std::uint64_t lastEvents = 0;
  options.onProgress = [&](const TimelineLoadProgress& p) {
    cancel = true;
    lastEvents = p.events;
    return true;
  };
  QVERIFY(!TimelineIndex::load(path, options).has_value());
  QVERIFY(lastEvents > 0 && lastEvents < 20'000);
}

void TestTimelineIndex::inputThatCannotBeReadAgain() {
  // A TraceInput is consumed by loading: details work, the event's text does not come back. B/E pairs and async
  // events are counted as ignored (the index shows complete events).
  const std::string text = fathom::test::objectTrace(
      {fathom::test::completeEvent("cpu_op", "a", 1, 1, "1.000", "2.000"),
       R"({"ph":"B","name":"b","pid":1,"tid":1,"ts":5})", R"({"ph":"E","pid":1,"tid":1,"ts":6})",
       R"({"ph":"b","id":1,"name":"c","pid":1,"tid":1,"ts":7})"});
  std::optional<TimelineIndex> index = TimelineIndex::load(TraceInput::fromBytes("memory", text), text.size());
  QVERIFY(index.has_value());
  QCOMPARE(index->sliceCount(), std::uint64_t{1});
  QCOMPARE(index->data().ignoredEvents, std::uint64_t{3});
  const SliceDetails d = sliceDetails(*index, {0, 0});
  QCOMPARE(d.durationNs, std::int64_t{2000});
  QVERIFY(!d.eventJson.has_value());
  QCOMPARE(index->source(), std::string("memory"));
}

void TestTimelineIndex::malformedInputNamesFileAndOffset() {
  const fs::path path = m_dir.filePath("broken.json").toStdString();
  // Event #1 lacks the colon after "ts": its byte offset is where the first event line ends, plus the bad byte.
  const std::string good = fathom::test::completeEvent("cpu_op", "a", 1, 1, "1.000", "1.000");
  const std::string text = fathom::test::objectTrace({good, R"({"ph":"X","ts" 5})"});
  fathom::test::writeTraceFile(path, text);
  const std::string message = fathom::test::messageOf([&] { (void)TimelineIndex::load(path); });
  QVERIFY2(fathom::test::contains(message, path.string()), message.c_str());
  const std::size_t bad = text.find("\"ts\" 5") + 5;
  QVERIFY2(fathom::test::contains(message, "byte " + std::to_string(bad)), message.c_str());
  const fs::path truncated = m_dir.filePath("truncated.json").toStdString();
  fathom::test::writeTraceFile(truncated, text.substr(0, text.find(R"({"ph":"X","ts")") + 6));
  const std::string cut = fathom::test::messageOf([&] { (void)TimelineIndex::load(truncated); });
  QVERIFY2(fathom::test::contains(cut, truncated.string()) && fathom::test::contains(cut, "truncated"), cut.c_str());
}

QTEST_GUILESS_MAIN(TestTimelineIndex)
#include "tst_timeline_index.moc"
