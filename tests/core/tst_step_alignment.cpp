// SPDX-License-Identifier: Apache-2.0
// Multi-rank step alignment (trace/step_alignment.h) on the real 2-rank Gloo trace and on generated 4-rank traces with
// a straggler: every rank's ProfilerStep spans, each collective's arrival per rank and the rank that arrived last,
// against an oracle that parses the files independently with nlohmann::json.
#include "trace_fixtures.h"
#include "trace_generator.h"

#include <fathom/trace/step_alignment.h>
#include <fathom/trace/timeline_index.h>

#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QTest>

#include <charconv>
#include <cmath>
#include <map>

using namespace fathom::trace;
namespace fs = std::filesystem;

namespace {

const fs::path kGloo = fs::path(FATHOM_TEST_DATA_DIR) / "traces/gloo_2rank_merged.json.gz";

/// The oracle: per step number, per rank, the step's span and its collectives' starts in order (merged layout: the
/// rank is pid / 1000).
struct Expected {
  struct RankStep {
    std::int64_t start = 0;
    std::int64_t end = 0;
    std::vector<std::int64_t> collectives;
  };
  std::map<std::int64_t, std::map<int, RankStep>> steps;
};

Expected oracle(const fs::path& path) {
  const nlohmann::json json = nlohmann::json::parse(fathom::test::readText(path));
  Expected out;
  std::vector<std::pair<int, std::int64_t>> collectives;  // rank, start
  for (const auto& e : json.at("traceEvents")) {
    if (e.value("ph", "") != "X") {
      continue;
    }
    const std::string name = e.value("name", "");
    const int rank = static_cast<int>(e.at("pid").get<std::int64_t>() / 1000);
    const std::int64_t start = fathom::test::exactNs(e.at("ts"));
    if (name.rfind("ProfilerStep#", 0) == 0) {
      auto& step = out.steps[std::stoll(name.substr(13))][rank];
      step.start = start;
      step.end = start + fathom::test::exactNs(e.at("dur"));
    } else if (name == "fathom::all_reduce" || name == "fathom::all_gather" || name == "fathom::reduce_scatter" ||
               name == "fathom::broadcast" || name == "fathom::barrier" || name == "fathom::send_recv") {
      collectives.emplace_back(rank, start);
    }
  }
  for (const auto& [rank, start] : collectives) {
    for (auto& [number, ranks] : out.steps) {
      auto it = ranks.find(rank);
      if (it != ranks.end() && it->second.start <= start && start < it->second.end) {
        it->second.collectives.push_back(start);
      }
    }
  }
  for (auto& [number, ranks] : out.steps) {
    for (auto& [rank, step] : ranks) {
      std::sort(step.collectives.begin(), step.collectives.end());
    }
  }
  return out;
}

/// Compares alignSteps(index) with the oracle; returns the number of collectives compared.
int compareWithOracle(const TimelineIndex& index, const Expected& expected) {
  const StepAlignment alignment = alignSteps(index);
  [&] { QCOMPARE(alignment.steps.size(), expected.steps.size()); }();
  int compared = 0;
  auto step = alignment.steps.begin();
  for (const auto& [number, ranks] : expected.steps) {
    if (step == alignment.steps.end()) {
      break;
    }
    [&] {
      QCOMPARE(step->number, number);
      QCOMPARE(step->ranks.size(), ranks.size());
    }();
    std::size_t most = 0;
    auto rankSpan = step->ranks.begin();
    for (const auto& [rank, span] : ranks) {
      [&] {
        QCOMPARE(rankSpan->rank, rank);
        QCOMPARE(rankSpan->startNs, span.start);
        QCOMPARE(rankSpan->endNs, span.end);
      }();
      ++rankSpan;
      most = std::max(most, span.collectives.size());
    }
    [&] { QCOMPARE(step->collectives.size(), most); }();
    for (std::size_t k = 0; k < most && k < step->collectives.size(); ++k) {
      // The last arrival (ties: the lowest rank), the first, and the gaps.
      std::vector<std::pair<std::int64_t, int>> arrivals;
      for (const auto& [rank, span] : ranks) {
        if (k < span.collectives.size()) {
          arrivals.emplace_back(span.collectives[k], rank);
        }
      }
      std::stable_sort(arrivals.begin(), arrivals.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      std::size_t last = arrivals.size() - 1;
      while (last > 0 && arrivals[last - 1].first == arrivals.back().first) {
        --last;
      }
      const AlignedCollective& c = step->collectives[k];
      [&] {
        QCOMPARE(c.ordinal, static_cast<std::uint32_t>(k));
        QCOMPARE(c.ranks.size(), arrivals.size());
        QCOMPARE(c.lastRank, arrivals[last].second);
        QCOMPARE(c.firstRank, arrivals.front().second);
        QCOMPARE(c.spreadNs, arrivals.back().first - arrivals.front().first);
        QCOMPARE(c.lagNs, last == 0 ? 0 : arrivals[last].first - arrivals[last - 1].first);
        QCOMPARE(c.consistent, arrivals.size() == ranks.size());
      }();
      ++compared;
    }
    ++step;
  }
  return compared;
}

}  // namespace

class TestStepAlignment : public QObject {
  Q_OBJECT

private slots:
  void glooTwoRanks() {
    const auto index = TimelineIndex::load(kGloo);
    QVERIFY(index);
    const StepAlignment alignment = alignSteps(*index);
    QCOMPARE(alignment.ranks, (std::vector<int>{0, 1}));
    QCOMPARE(alignment.steps.size(), std::size_t{1});
    const AlignedStep& step = alignment.steps.front();
    QCOMPARE(step.number, 1);
    QCOMPARE(step.ranks.size(), std::size_t{2});
    QCOMPARE(step.collectives.size(), std::size_t{1});
    const AlignedCollective& allReduce = step.collectives.front();
    QCOMPARE(index->name(allReduce.name), "fathom::all_reduce");
    QVERIFY(allReduce.consistent);
    // The file: rank 0 called the DDP bucket's all-reduce at ts 89018.490, rank 1 at 179566.966 (µs).
    QCOMPARE(allReduce.firstRank, 0);
    QCOMPARE(allReduce.lastRank, 1);
    QCOMPARE(allReduce.spreadNs, 179'566'966 - 89'018'490);
    QCOMPARE(allReduce.lagNs, allReduce.spreadNs);
    // Each arrival is the rank's span on its collectives lane.
    for (const CollectiveArrival& a : allReduce.ranks) {
      QCOMPARE(index->lane(a.slice.lane).kind, LaneKind::Collectives);
      QCOMPARE(index->processes()[index->lane(a.slice.lane).process].rank, std::optional<int>(a.rank));
    }
    QCOMPARE(compareWithOracle(*index, oracle(kGloo)), 1);
    QCOMPARE(alignment.collectivesOutsideSteps, std::uint64_t{0});
  }

  void rankStepSummaryIsTheCliSummary() {
    const auto index = TimelineIndex::load(kGloo);
    QVERIFY(index);
    for (const int rank : {0, 1}) {
      const auto measured = rankStepSummary(*index, 1, rank);
      QVERIFY(measured);
      TraceSummaryOptions options;
      options.rank = rank;
      const TraceSummary cli = summarizeTrace(kGloo, options);  // `fathom trace summary --rank R` of the whole file
      QCOMPARE(cli.steps.size(), std::size_t{1});
      const TimeBreakdown& want = cli.steps.front().time;
      QCOMPARE(measured->step, 1);
      QCOMPARE(measured->startNs, cli.steps.front().startNs);
      QCOMPARE(measured->time.spanNs, want.spanNs);
      QCOMPARE(measured->time.computeNs, want.computeNs);
      QCOMPARE(measured->time.communicationNs, want.communicationNs);
      QCOMPARE(measured->time.overlapNs, want.overlapNs);
      QCOMPARE(measured->time.idleNs, want.idleNs);
      QVERIFY(measured->time.communicationNs > 0);
    }
    QVERIFY(!rankStepSummary(*index, 2, 0));
    QVERIFY(!rankStepSummary(*index, 1, 5));
  }

  void generatedStraggler_data() {
    QTest::addColumn<int>("slowRank");
    QTest::addColumn<qint64>("delayNs");
    QTest::newRow("no straggler") << -1 << qint64{0};
    QTest::newRow("rank 2 waits 5 ms") << 2 << qint64{5'000'000};
  }

  void generatedStraggler() {
    QFETCH(int, slowRank);
    QFETCH(qint64, delayNs);
    QTemporaryDir dir;
    const fs::path path = fs::path(dir.path().toStdString()) / "straggler.json";
    fathom::test::TraceGeneratorOptions options;
    options.events = 60'000;
    options.ranks = 4;
    options.seed = 7;
    options.slowRank = slowRank;
    options.slowRankDelayNs = delayNs;
    const auto written = fathom::test::generateTrace(path, options);
    QVERIFY(written.steps >= 8);
    const auto index = TimelineIndex::load(path);
    QVERIFY(index);
    const Expected expected = oracle(path);
    const int compared = compareWithOracle(*index, expected);
    QVERIFY(compared >= 8);
    const StepAlignment alignment = alignSteps(*index);
    QCOMPARE(alignment.ranks, (std::vector<int>{0, 1, 2, 3}));
    if (slowRank >= 0) {
      for (const AlignedStep& step : alignment.steps) {
        if (step.ranks.size() < 4) {
          continue;  // the last step of a rank whose budget ran out first
        }
        for (const AlignedCollective& c : step.collectives) {
          if (!c.consistent) {
            continue;
          }
          QCOMPARE(c.lastRank, slowRank);
          QVERIFY(c.lagNs > 0);
          QVERIFY(c.spreadNs >= c.lagNs);
        }
      }
    }
  }
};

QTEST_GUILESS_MAIN(TestStepAlignment)
#include "tst_step_alignment.moc"
