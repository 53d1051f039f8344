// SPDX-License-Identifier: Apache-2.0
// Accelerate's data-loader sharding, index for index: literal tables derived by hand from
// accelerate/data_loader.py (BatchSamplerShard, IterableDatasetShard; the n=20..24 tables are the ones
// tests/test_data_loader.py asserts upstream), then properties over many sizes.
#include <fathom/common/error.h>
#include <fathom/data/batch_sampler_shard.h>
#include <fathom/data/iterable_dataset_shard.h>
#include <fathom/data/seedable_random_sampler.h>
#include <fathom/data/shard_plan.h>

#include <QTest>

#include <algorithm>
#include <numeric>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

using fathom::data::IndexBatch;
using fathom::data::ShardingOptions;
using fathom::data::ShardRequest;
using Batches = std::vector<IndexBatch>;
using PerRank = std::vector<Batches>;

ShardRequest request(std::int64_t n, std::int64_t bs, int p, bool split, bool even, bool dropLast,
                     bool iterable = false) {
  ShardRequest r;
  r.numSamples = n;
  r.sharding.batchSize = bs;
  r.sharding.numProcesses = p;
  r.sharding.splitBatches = split;
  r.sharding.evenBatches = even;
  r.sharding.dropLast = dropLast;
  r.iterable = iterable;
  return r;
}

PerRank shard(const ShardRequest& r) {
  PerRank out;
  for (int rank = 0; rank < r.sharding.numProcesses; ++rank) {
    out.push_back(fathom::data::rankBatches(r, rank));
  }
  return out;
}

std::string show(const PerRank& ranks) {
  std::ostringstream out;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    out << 'p' << r << ':';
    for (const auto& b : ranks[r]) {
      out << " [";
      for (std::size_t i = 0; i < b.size(); ++i) {
        out << (i ? "," : "") << b[i];
      }
      out << ']';
    }
    out << '\n';
  }
  return out.str();
}

#define COMPARE_SHARDS(actual, expected)                                                                               \
  do {                                                                                                                 \
    const PerRank a_ = (actual);                                                                                       \
    const PerRank e_ = (expected);                                                                                     \
    QVERIFY2(a_ == e_, ("got\n" + show(a_) + "expected\n" + show(e_)).c_str());                                        \
  } while (false)

template <typename F> std::string errorOf(F&& f) {
  try {
    f();
  } catch (const fathom::ConfigError& e) {
    return e.what();
  }
  return {};
}

}  // namespace

class TestDataSharding : public QObject {
  Q_OBJECT

private slots:
  // ---- BatchSamplerShard without split: 10 samples, batch 2, 3 processes ----
  void noSplitTenByTwoOnThree() {
    // Base batches [0,1] [2,3] [4,5] [6,7] [8,9]; round 0 is full, round 1 has two batches.
    // even_batches: p2 is topped up with the first batch of the data.
    COMPARE_SHARDS(shard(request(10, 2, 3, false, true, false)),
                   (PerRank{{{0, 1}, {6, 7}}, {{2, 3}, {8, 9}}, {{4, 5}, {0, 1}}}));
    // not even: p2 gets one fewer.
    COMPARE_SHARDS(shard(request(10, 2, 3, false, false, false)),
                   (PerRank{{{0, 1}, {6, 7}}, {{2, 3}, {8, 9}}, {{4, 5}}}));
    // drop_last: the incomplete round is dropped for everybody.
    COMPARE_SHARDS(shard(request(10, 2, 3, false, true, true)), (PerRank{{{0, 1}}, {{2, 3}}, {{4, 5}}}));
    COMPARE_SHARDS(shard(request(10, 2, 3, false, false, true)), (PerRank{{{0, 1}}, {{2, 3}}, {{4, 5}}}));
  }

  void noSplitSevenByTwoOnTwo() {
    // [0,1] [2,3] [4,5] [6]: the short batch belongs to p1 and is completed from the start: [6,0].
    COMPARE_SHARDS(shard(request(7, 2, 2, false, true, false)), (PerRank{{{0, 1}, {4, 5}}, {{2, 3}, {6, 0}}}));
    COMPARE_SHARDS(shard(request(7, 2, 2, false, false, false)), (PerRank{{{0, 1}, {4, 5}}, {{2, 3}, {6}}}));
    // drop_last: BatchSampler drops [6], then the round [4,5] alone is incomplete.
    COMPARE_SHARDS(shard(request(7, 2, 2, false, true, true)), (PerRank{{{0, 1}}, {{2, 3}}}));
  }

  void noSplitUpstreamTables() {
    // tests/test_data_loader.py, BatchSampler(range(n), batch_size=3), 2 processes.
    const PerRank n24{{{0, 1, 2}, {6, 7, 8}, {12, 13, 14}, {18, 19, 20}},
                      {{3, 4, 5}, {9, 10, 11}, {15, 16, 17}, {21, 22, 23}}};
    COMPARE_SHARDS(shard(request(24, 3, 2, false, true, false)), n24);
    COMPARE_SHARDS(shard(request(24, 3, 2, false, true, true)), n24);
    COMPARE_SHARDS(shard(request(21, 3, 2, false, true, false)),
                   (PerRank{{{0, 1, 2}, {6, 7, 8}, {12, 13, 14}, {18, 19, 20}},
                            {{3, 4, 5}, {9, 10, 11}, {15, 16, 17}, {0, 1, 2}}}));
    COMPARE_SHARDS(shard(request(22, 3, 2, false, true, false)),
                   (PerRank{{{0, 1, 2}, {6, 7, 8}, {12, 13, 14}, {18, 19, 20}},
                            {{3, 4, 5}, {9, 10, 11}, {15, 16, 17}, {21, 0, 1}}}));
    COMPARE_SHARDS(shard(request(20, 3, 2, false, true, false)),
                   (PerRank{{{0, 1, 2}, {6, 7, 8}, {12, 13, 14}, {18, 19, 0}},
                            {{3, 4, 5}, {9, 10, 11}, {15, 16, 17}, {1, 2, 3}}}));
    COMPARE_SHARDS(shard(request(20, 3, 2, false, false, false)),
                   (PerRank{{{0, 1, 2}, {6, 7, 8}, {12, 13, 14}, {18, 19}}, {{3, 4, 5}, {9, 10, 11}, {15, 16, 17}}}));
    // drop_last: 22 samples give 7 full batches; [18,19,20] has no partner and is dropped.
    COMPARE_SHARDS(shard(request(22, 3, 2, false, true, true)),
                   (PerRank{{{0, 1, 2}, {6, 7, 8}, {12, 13, 14}}, {{3, 4, 5}, {9, 10, 11}, {15, 16, 17}}}));
    // Fewer samples than one round: the data is cycled.
    COMPARE_SHARDS(shard(request(2, 3, 2, false, true, false)), (PerRank{{{0, 1, 0}}, {{1, 0, 1}}}));
    COMPARE_SHARDS(shard(request(2, 3, 2, false, false, false)), (PerRank{{{0, 1}}, {}}));
    COMPARE_SHARDS(shard(request(2, 3, 2, false, true, true)), (PerRank{{}, {}}));
  }

  void noSplitDegenerateCycles() {
    // 3 samples, batch 4, 2 processes: [0,1,2] is doubled until it covers 2*4 indices, then cycled.
    COMPARE_SHARDS(shard(request(3, 4, 2, false, true, false)), (PerRank{{{0, 1, 2, 0}}, {{1, 2, 0, 1}}}));
    COMPARE_SHARDS(shard(request(0, 4, 2, false, true, false)), (PerRank{{}, {}}));
  }

  // ---- BatchSamplerShard with split ----
  void splitTenByThreeOnThree() {
    // Base batches [0,1,2] [3,4,5] [6,7,8] [9], each cut in three slices of one.
    // even: [9] + the first batch = [9,0,1,2] -> p0 [9], p1 [0], p2 [1].
    COMPARE_SHARDS(shard(request(10, 3, 3, true, true, false)),
                   (PerRank{{{0}, {3}, {6}, {9}}, {{1}, {4}, {7}, {0}}, {{2}, {5}, {8}, {1}}}));
    // not even: only p0's slice of [9] exists.
    COMPARE_SHARDS(shard(request(10, 3, 3, true, false, false)),
                   (PerRank{{{0}, {3}, {6}, {9}}, {{1}, {4}, {7}}, {{2}, {5}, {8}}}));
    COMPARE_SHARDS(shard(request(10, 3, 3, true, true, true)),
                   (PerRank{{{0}, {3}, {6}}, {{1}, {4}, {7}}, {{2}, {5}, {8}}}));
  }

  void splitUpstreamTables() {
    // tests/test_data_loader.py, BatchSampler(range(n), batch_size=4), 2 processes, split_batches=True.
    COMPARE_SHARDS(shard(request(24, 4, 2, true, true, false)),
                   (PerRank{{{0, 1}, {4, 5}, {8, 9}, {12, 13}, {16, 17}, {20, 21}},
                            {{2, 3}, {6, 7}, {10, 11}, {14, 15}, {18, 19}, {22, 23}}}));
    COMPARE_SHARDS(shard(request(22, 4, 2, true, true, false)),
                   (PerRank{{{0, 1}, {4, 5}, {8, 9}, {12, 13}, {16, 17}, {20, 21}},
                            {{2, 3}, {6, 7}, {10, 11}, {14, 15}, {18, 19}, {0, 1}}}));
    COMPARE_SHARDS(shard(request(21, 4, 2, true, true, false)),
                   (PerRank{{{0, 1}, {4, 5}, {8, 9}, {12, 13}, {16, 17}, {20, 0}},
                            {{2, 3}, {6, 7}, {10, 11}, {14, 15}, {18, 19}, {1, 2}}}));
    COMPARE_SHARDS(
        shard(request(21, 4, 2, true, false, false)),
        (PerRank{{{0, 1}, {4, 5}, {8, 9}, {12, 13}, {16, 17}, {20}}, {{2, 3}, {6, 7}, {10, 11}, {14, 15}, {18, 19}}}));
    COMPARE_SHARDS(
        shard(request(21, 4, 2, true, true, true)),
        (PerRank{{{0, 1}, {4, 5}, {8, 9}, {12, 13}, {16, 17}}, {{2, 3}, {6, 7}, {10, 11}, {14, 15}, {18, 19}}}));
    COMPARE_SHARDS(shard(request(2, 4, 2, true, true, false)), (PerRank{{{0, 1}}, {{0, 1}}}));
    COMPARE_SHARDS(shard(request(2, 4, 2, true, false, false)), (PerRank{{{0, 1}}, {}}));
  }

  void reportedLength() {
    using fathom::data::BatchSamplerShard;
    std::vector<std::int64_t> order(20);
    std::iota(order.begin(), order.end(), 0);
    ShardingOptions o;
    o.batchSize = 3;
    o.numProcesses = 2;
    o.evenBatches = false;
    QCOMPARE(BatchSamplerShard(order, o, 0).length(), std::int64_t{4});
    QCOMPARE(BatchSamplerShard(order, o, 1).length(), std::int64_t{3});
    o.evenBatches = true;
    QCOMPARE(BatchSamplerShard(order, o, 1).length(), std::int64_t{4});
    o.dropLast = true;
    QCOMPARE(BatchSamplerShard(order, o, 0).length(), std::int64_t{3});
    // Split mode reports the base batch count, even where a rank yields fewer (upstream quirk).
    o = ShardingOptions{};
    o.batchSize = 4;
    o.numProcesses = 2;
    o.splitBatches = true;
    o.evenBatches = false;
    std::vector<std::int64_t> order21(21);
    std::iota(order21.begin(), order21.end(), 0);
    QCOMPARE(BatchSamplerShard(order21, o, 1).length(), std::int64_t{6});
    QCOMPARE(BatchSamplerShard(order21, o, 1).batches().size(), std::size_t{5});
  }

  // ---- IterableDatasetShard ----
  void iterableDocstringExample() {
    // accelerate's docstring: [0..7] on 2 processes, batch 4.
    COMPARE_SHARDS(shard(request(8, 4, 2, false, true, false, true)), (PerRank{{{0, 1, 2, 3}}, {{4, 5, 6, 7}}}));
    COMPARE_SHARDS(shard(request(8, 4, 2, true, true, false, true)), (PerRank{{{0, 1}, {4, 5}}, {{2, 3}, {6, 7}}}));
  }

  void iterableTails() {
    // 10 elements, batch 2, 3 processes: buffers of 6; the tail [6..9] is completed with the first buffer.
    COMPARE_SHARDS(shard(request(10, 2, 3, false, true, false, true)),
                   (PerRank{{{0, 1}, {6, 7}}, {{2, 3}, {8, 9}}, {{4, 5}, {0, 1}}}));
    COMPARE_SHARDS(shard(request(10, 2, 3, false, true, true, true)), (PerRank{{{0, 1}}, {{2, 3}}, {{4, 5}}}));
    // even_batches does not apply to iterable datasets.
    COMPARE_SHARDS(shard(request(10, 2, 3, false, false, false, true)),
                   (PerRank{{{0, 1}, {6, 7}}, {{2, 3}, {8, 9}}, {{4, 5}, {0, 1}}}));
    // 13 elements: tail [12] + first buffer [0..5] -> [12,0,1,2,3,4].
    COMPARE_SHARDS(shard(request(13, 2, 3, false, true, false, true)),
                   (PerRank{{{0, 1}, {6, 7}, {12, 0}}, {{2, 3}, {8, 9}, {1, 2}}, {{4, 5}, {10, 11}, {3, 4}}}));
    // No full buffer at all: the tail cycles itself.
    COMPARE_SHARDS(shard(request(5, 4, 2, false, true, false, true)), (PerRank{{{0, 1, 2, 3}}, {{4, 0, 1, 2}}}));
    // Split: buffers of 6 cut in three slices of 2; tail [6..9] + [0..5].
    COMPARE_SHARDS(shard(request(10, 6, 3, true, true, false, true)),
                   (PerRank{{{0, 1}, {6, 7}}, {{2, 3}, {8, 9}}, {{4, 5}, {0, 1}}}));
    COMPARE_SHARDS(shard(request(10, 6, 3, true, true, true, true)), (PerRank{{{0, 1}}, {{2, 3}}, {{4, 5}}}));
  }

  void iterableLength() {
    std::vector<std::int64_t> stream(13);
    std::iota(stream.begin(), stream.end(), 0);
    ShardingOptions o;
    o.batchSize = 2;
    o.numProcesses = 3;
    QCOMPARE(fathom::data::IterableDatasetShard(stream, o, 0).length(), std::int64_t{6});
    o.dropLast = true;
    QCOMPARE(fathom::data::IterableDatasetShard(stream, o, 0).length(), std::int64_t{4});
  }

  // ---- skip_first_batches ----
  void skipFirstBatches() {
    // SkipBatchSampler(BatchSampler(range(16), 4), 2) from the upstream tests.
    ShardRequest r = request(16, 4, 1, false, true, false);
    r.skipBatches = 2;
    COMPARE_SHARDS(shard(r), (PerRank{{{8, 9, 10, 11}, {12, 13, 14, 15}}}));
    // Sharded: each rank skips its own first batch.
    r = request(10, 2, 3, false, true, false);
    r.skipBatches = 1;
    COMPARE_SHARDS(shard(r), (PerRank{{{6, 7}}, {{8, 9}}, {{0, 1}}}));
    r.iterable = true;
    COMPARE_SHARDS(shard(r), (PerRank{{{6, 7}}, {{8, 9}}, {{0, 1}}}));
    r.skipBatches = 5;
    COMPARE_SHARDS(shard(r), (PerRank{{}, {}, {}}));
  }

  // ---- remainder and end_of_dataloader ----
  void remainderAndEnd() {
    using fathom::data::remainder;
    QCOMPARE(remainder(10, request(10, 2, 3, false, true, false).sharding), std::int64_t{4});
    QCOMPARE(remainder(10, request(10, 3, 3, true, true, false).sharding), std::int64_t{1});
    QCOMPARE(remainder(12, request(12, 2, 3, false, true, false).sharding), std::int64_t{0});
    QCOMPARE(remainder(10, request(10, 2, 3, false, true, true).sharding), std::int64_t{-1});
    const auto plan = fathom::data::planShards(request(16, 4, 1, false, true, false));
    QCOMPARE(plan.ranks.size(), std::size_t{1});
    const auto& rank = plan.ranks[0];
    QCOMPARE(rank.batches.size(), std::size_t{4});
    for (std::size_t i = 0; i < rank.batches.size(); ++i) {
      QCOMPARE(rank.endOfDataloader(i), i == 3);
    }
  }

  // ---- properties over many sizes ----
  void properties() {
    int cases = 0;
    for (int p : {1, 2, 3, 4}) {
      for (std::int64_t bs : {1, 2, 3, 4, 6, 8}) {
        for (std::int64_t n = 0; n <= 40; ++n) {
          for (int mode = 0; mode < 16; ++mode) {
            const bool split = mode & 1;
            const bool even = mode & 2;
            const bool dropLast = mode & 4;
            const bool iterable = mode & 8;
            if (split && bs % p != 0) {
              continue;
            }
            checkProperties(request(n, bs, p, split, even, dropLast, iterable));
            if (QTest::currentTestFailed()) {
              return;
            }
            ++cases;
          }
        }
      }
    }
    QVERIFY(cases > 3000);
  }

  // ---- seedable shuffling ----
  void seedableSampler() {
    using fathom::data::SeedableRandomSampler;
    SeedableRandomSampler a(100, 42);
    SeedableRandomSampler b(100, 42);
    const auto first = a.indices();
    QCOMPARE(first, b.indices());  // every rank computes the same order
    QCOMPARE(first, a.indices());  // and the same again on re-iteration
    std::vector<std::int64_t> sorted = first;
    std::sort(sorted.begin(), sorted.end());
    std::vector<std::int64_t> iota(100);
    std::iota(iota.begin(), iota.end(), 0);
    QCOMPARE(sorted, iota);
    QVERIFY(first != iota);
    a.setEpoch(1);
    QCOMPARE(a.epoch(), 1);
    const auto second = a.indices();
    QVERIFY(second != first);
    // The generator is seeded with seed + epoch, as Accelerate's SeedableRandomSampler does.
    SeedableRandomSampler c(100, 43);
    QCOMPARE(c.indices(), second);
    QVERIFY(SeedableRandomSampler(100, 7).indices() != first);
    // Pinned: the order is Fathom's own and must not change between builds, platforms or releases.
    QCOMPARE(SeedableRandomSampler(10, 42).indices(), (std::vector<std::int64_t>{1, 7, 9, 0, 3, 8, 4, 2, 5, 6}));
    QVERIFY(SeedableRandomSampler(0, 1).indices().empty());
    QCOMPARE(SeedableRandomSampler(1, 1).indices(), std::vector<std::int64_t>{0});
  }

  void shuffledSharding() {
    ShardRequest r = request(10, 2, 3, false, true, false);
    r.shuffleSeed = 42;
    const auto order = fathom::data::sampleOrder(r);
    QCOMPARE(order, fathom::data::SeedableRandomSampler(10, 42).indices());
    // The same round-robin, over the shuffled order.
    const auto o = [&](std::size_t i) { return order[i]; };
    COMPARE_SHARDS(shard(r),
                   (PerRank{{{o(0), o(1)}, {o(6), o(7)}}, {{o(2), o(3)}, {o(8), o(9)}}, {{o(4), o(5)}, {o(0), o(1)}}}));
    r.epoch = 3;
    QVERIFY(fathom::data::sampleOrder(r) != order);
  }

  // ---- validation at the front door ----
  void validation() {
    using fathom::data::planShards;
    QVERIFY(errorOf([] { planShards(request(10, 0, 2, false, true, false)); }).find("batch_size must be >= 1, got 0") !=
            std::string::npos);
    QVERIFY(errorOf([] {
              planShards(request(10, 2, 0, false, true, false));
            }).find("num_processes must be >= 1, got 0") != std::string::npos);
    const std::string split = errorOf([] { planShards(request(10, 5, 2, true, true, false)); });
    QVERIFY2(split.find("split_batches") != std::string::npos && split.find("(5)") != std::string::npos &&
                 split.find("(2)") != std::string::npos,
             split.c_str());
    QVERIFY(errorOf([] { planShards(request(10, 5, 2, true, true, false, true)); }).find("split_batches") !=
            std::string::npos);
    QVERIFY(errorOf([] { planShards(request(-1, 2, 2, false, true, false)); }).find("num_samples") !=
            std::string::npos);
    ShardRequest skip = request(10, 2, 2, false, true, false);
    skip.skipBatches = -1;
    QVERIFY(errorOf([&] { planShards(skip); }).find("skip_batches must be >= 0, got -1") != std::string::npos);
    QVERIFY(errorOf([] {
              fathom::data::rankBatches(request(10, 2, 3, false, true, false), 3);
            }).find("process_index must be in [0, 3), got 3") != std::string::npos);
    QVERIFY(errorOf([] { fathom::data::SeedableRandomSampler(-2, 0); }).find("num_samples") != std::string::npos);
  }

  // `fathom shard` computes every rank's batches: a request it cannot hold is a ConfigError naming the values, not an
  // allocation failure, a signed overflow or minutes of work (found by fuzz_shard_flags; tests/fuzz/regressions/
  // shard_flags/huge_num_samples, total_batch_overflow).
  void previewRefusesWhatItCannotHold() {
    using fathom::data::planShards;
    const std::string huge = errorOf([] { planShards(request(100'000'000'000, 1, 2, false, true, false)); });
    QVERIFY2(huge.find("num_samples 100000000000") != std::string::npos, huge.c_str());
    const std::string overflow = errorOf([] { planShards(request(5, std::int64_t{1} << 62, 4, false, true, false)); });
    QVERIFY2(overflow.find("batch_size (4611686018427387904) x num_processes (4) is too large") != std::string::npos,
             overflow.c_str());
    // At the limit (kMaxPreviewIndices: (num_samples + 10) x 2 = 10,000,000).
    const auto plan = planShards(request(4'999'990, 5, 2, false, true, false));
    QCOMPARE(plan.ranks.size(), std::size_t{2});
  }

private:
  /// Invariants that hold for every configuration; see docs/data.md.
  void checkProperties(const ShardRequest& r) {
    const auto& s = r.sharding;
    std::ostringstream whereText;
    whereText << "n=" << r.numSamples << " bs=" << s.batchSize << " p=" << s.numProcesses << " split=" << s.splitBatches
              << " even=" << s.evenBatches << " drop_last=" << s.dropLast << " iterable=" << r.iterable;
    const std::string where = whereText.str();
    const PerRank ranks = shard(r);
    const std::int64_t total = s.totalBatchSize();
    const std::int64_t pbs = s.processBatchSize();
    const std::int64_t n = r.numSamples;
    const bool padded = r.iterable || s.evenBatches;  // every rank gets full batches, as many as the others
    std::vector<std::int64_t> gathered;               // gather order: step by step, rank by rank
    std::size_t steps = 0;
    for (const auto& b : ranks) {
      steps = std::max(steps, b.size());
    }
    for (std::size_t step = 0; step < steps; ++step) {
      for (const auto& b : ranks) {
        if (step < b.size()) {
          gathered.insert(gathered.end(), b[step].begin(), b[step].end());
        }
      }
    }
    if (s.dropLast || padded) {
      for (const auto& b : ranks) {
        QVERIFY2(b.size() == steps, where.c_str());
        for (const auto& batch : b) {
          QVERIFY2(static_cast<std::int64_t>(batch.size()) == pbs, where.c_str());
        }
      }
    }
    const std::int64_t rem = fathom::data::remainder(n, s);
    std::vector<std::int64_t> expected;
    if (s.dropLast) {
      // Only whole global batches, in order, nothing duplicated.
      QVERIFY2(rem == -1, where.c_str());
      expected.resize(static_cast<std::size_t>(n / total * total));
      std::iota(expected.begin(), expected.end(), 0);
      QVERIFY2(gathered == expected, where.c_str());
      return;
    }
    expected.resize(static_cast<std::size_t>(n));
    std::iota(expected.begin(), expected.end(), 0);
    if (!padded) {
      // even_batches=false: every sample exactly once, in order; no duplicates to drop.
      QVERIFY2(gathered == expected, where.c_str());
      return;
    }
    // Padded: ceil(n / total) global batches; the duplicates are exactly total - remainder samples at the end, so
    // gather_for_metrics truncating the last global batch to `remainder` gives back the dataset exactly.
    const std::int64_t globalBatches = (n + total - 1) / total;
    QVERIFY2(static_cast<std::int64_t>(gathered.size()) == globalBatches * total, where.c_str());
    QVERIFY2(rem == n % total, where.c_str());
    const std::int64_t duplicates = rem == 0 ? 0 : total - rem;
    QVERIFY2(static_cast<std::int64_t>(gathered.size()) - duplicates == n, where.c_str());
    QVERIFY2(std::vector<std::int64_t>(gathered.begin(), gathered.begin() + n) == expected, where.c_str());
    // The padding is drawn from the start of the data.
    std::set<std::int64_t> seen(gathered.begin(), gathered.end());
    QVERIFY2(static_cast<std::int64_t>(seen.size()) == n, where.c_str());
    // Without split, map-style __len__ equals what each rank yields.
    if (!r.iterable && !s.splitBatches) {
      std::vector<std::int64_t> order = expected;
      for (int rank = 0; rank < s.numProcesses; ++rank) {
        const fathom::data::BatchSamplerShard shardOf(order, s, rank);
        QVERIFY2(shardOf.length() == static_cast<std::int64_t>(ranks[static_cast<std::size_t>(rank)].size()),
                 where.c_str());
      }
    }
  }
};

QTEST_GUILESS_MAIN(TestDataSharding)
#include "tst_data_sharding.moc"
