// SPDX-License-Identifier: Apache-2.0
// The `optimal` strategy (core/bigmodel/layer_cuts.h, optimal_device_map.h): its cuts against a brute force over
// every cut point on small problems; and against Accelerate's "balanced" on 240 random models (seeded), where it
// must never do worse: never more bytes offloaded, and with the same bytes offloaded never a larger largest GPU
// load. The sweep prints the reduction it measured (docs/bigmodel.md quotes it).
#include "device_map_test_support.h"
#include "error_helpers.h"

#include <fathom/bigmodel/device_load.h>
#include <fathom/bigmodel/device_map_strategy.h>
#include <fathom/bigmodel/layer_cuts.h>
#include <fathom/bigmodel/module_tree_json.h>
#include <fathom/bigmodel/optimal_device_map.h>

#include <QTest>

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

using namespace fathom;
using namespace fathom::bigmodel;
using namespace devicemaptest;

namespace {

/// The rules of layer_cuts.h, written out again independently: std::nullopt when the cuts break a limit.
struct Evaluated {
  std::size_t offloadBegin = 0;
  ByteCount maxGpuLoad = 0;
  std::size_t cpuEnd = 0;
};

std::optional<Evaluated> evaluateByHand(const LayerCutProblem& p, const std::vector<std::size_t>& ends,
                                        std::size_t cpuEnd) {
  const std::size_t n = p.sizes.size();
  const auto bytes = [&](std::size_t a, std::size_t b) {
    ByteCount sum = 0;
    for (std::size_t i = a; i < b; ++i) {
      sum += p.sizes[i];
    }
    return sum;
  };
  const auto largestReserve = [&](std::size_t a) {
    ByteCount r = 0;
    for (std::size_t i = a; i < n; ++i) {
      r = std::max(r, p.reserves.empty() ? p.sizes[i] : p.reserves[i]);
    }
    return r;
  };
  Evaluated e;
  e.offloadBegin = ends.empty() ? 0 : ends.back();
  e.cpuEnd = cpuEnd;
  bool mainSeen = false;
  std::size_t begin = 0;
  for (std::size_t j = 0; j < ends.size(); ++j) {
    ByteCount load = bytes(begin, ends[j]);
    if (ends[j] > begin && !mainSeen) {
      mainSeen = true;
      load += largestReserve(e.offloadBegin);
    }
    if (load > p.gpuLimits[j]) {
      return std::nullopt;
    }
    e.maxGpuLoad = std::max(e.maxGpuLoad, load);
    begin = ends[j];
  }
  if (cpuEnd > e.offloadBegin &&
      (!p.cpuLimit || bytes(e.offloadBegin, cpuEnd) + largestReserve(cpuEnd) > *p.cpuLimit)) {
    return std::nullopt;
  }
  return e;
}

/// The best cuts by trying every one: the most layers on the GPUs, then the smallest largest load, then the most
/// layers on cpu.
Evaluated bruteForce(const LayerCutProblem& p) {
  const std::size_t n = p.sizes.size();
  std::optional<Evaluated> best;
  std::vector<std::size_t> ends(p.gpuLimits.size());
  const std::function<void(std::size_t, std::size_t)> walk = [&](std::size_t j, std::size_t from) {
    if (j == ends.size()) {
      for (std::size_t cpuEnd = from; cpuEnd <= n; ++cpuEnd) {
        const auto e = evaluateByHand(p, ends, cpuEnd);
        if (!e) {
          continue;
        }
        const bool better =
            !best || e->offloadBegin > best->offloadBegin ||
            (e->offloadBegin == best->offloadBegin &&
             (e->maxGpuLoad < best->maxGpuLoad || (e->maxGpuLoad == best->maxGpuLoad && e->cpuEnd > best->cpuEnd)));
        if (better) {
          best = e;
        }
      }
      return;
    }
    for (std::size_t end = from; end <= n; ++end) {
      ends[j] = end;
      walk(j + 1, end);
    }
  };
  walk(0, 0);
  return *best;  // every layer on disk always fits
}

/// A model of `blocks` (elements of float32 each) under layers.0 .. layers.{n-1}, no-split class Block; with
/// `tiedVocab` > 0 an embedding first and an lm_head last sharing one weight of that many elements.
json randomModel(const std::vector<std::int64_t>& blocks, std::int64_t tiedVocab) {
  json modules = json::array();
  std::vector<std::string> top;
  if (tiedVocab > 0) {
    top.push_back("embed");
  }
  top.push_back("layers");
  if (tiedVocab > 0) {
    top.push_back("lm_head");
  }
  modules.push_back(module("", "Model", top));
  std::int64_t id = 0;
  if (tiedVocab > 0) {
    modules.push_back(
        module("embed", "Embedding", {}, json::array({tensor("weight", {tiedVocab, 1}, "float32", id++)})));
  }
  std::vector<std::string> names;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    names.push_back(std::to_string(i));
  }
  modules.push_back(module("layers", "ModuleList", names));
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    modules.push_back(
        module("layers." + names[i], "Block", {}, json::array({tensor("weight", {blocks[i]}, "float32", id++)})));
  }
  if (tiedVocab > 0) {
    modules.push_back(module("lm_head", "Linear", {},
                             {tensor("weight", {tiedVocab, 1}, "float32", 0), tensor("bias", {1}, "float32", id++)}));
  }
  return {{"modules", modules}};
}

/// A random layer-size profile as a model: 2-64 blocks of 256 to 256,000 float32 elements (1 to 1000x, log-uniform),
/// with tied embeddings twice the first block's size when asked.
ModuleTree randomProfile(std::mt19937_64& rng, bool tiedEmbeddings) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const int n = std::uniform_int_distribution<int>(2, 64)(rng);
  std::vector<std::int64_t> blocks;
  for (int i = 0; i < n; ++i) {
    blocks.push_back(static_cast<std::int64_t>(std::round(256.0 * std::exp(unit(rng) * std::log(1000.0)))));
  }
  return moduleTreeFromJson(randomModel(blocks, tiedEmbeddings ? blocks.front() * 2 : 0));
}

/// A Llama-7B-shaped model in float16: embed_tokens (32000 x 4096), 32 LlamaDecoderLayer blocks of 202,383,360
/// elements each (attention 4 x 4096^2, MLP 3 x 4096 x 11008; one tensor stands for each block's), norm, and an
/// untied lm_head (32000 x 4096): 13.48 GB.
json llamaShaped() {
  json modules = json::array(
      {module("", "LlamaForCausalLM", {"model", "lm_head"}),
       module("model", "LlamaModel", {"embed_tokens", "layers", "norm"}),
       module("model.embed_tokens", "Embedding", {}, json::array({tensor("weight", {32000, 4096}, "float16", 0)}))});
  std::vector<std::string> names;
  for (int i = 0; i < 32; ++i) {
    names.push_back(std::to_string(i));
  }
  modules.push_back(module("model.layers", "ModuleList", names));
  for (int i = 0; i < 32; ++i) {
    modules.push_back(module("model.layers." + names[static_cast<std::size_t>(i)], "LlamaDecoderLayer", {},
                             json::array({tensor("weight", {202'383'360}, "float16", 1 + i)})));
  }
  modules.push_back(module("model.norm", "LlamaRMSNorm", {}, json::array({tensor("weight", {4096}, "float16", 40)})));
  modules.push_back(module("lm_head", "Linear", {}, json::array({tensor("weight", {32000, 4096}, "float16", 41)})));
  return {{"modules", modules}};
}

}  // namespace

class TestDeviceMapOptimal : public QObject {
  Q_OBJECT

private slots:
  void knownOptimum() {
    // 10, 20, 30, 40 on three GPUs of 60: 10+20 | 30 | 40 gives 40, the largest layer, so nothing does better.
    LayerCutProblem p{.sizes = {10, 20, 30, 40}, .gpuLimits = {60, 60, 60}};
    LayerCuts cuts = optimalLayerCuts(p);
    QCOMPARE(cuts.gpuEnds, (std::vector<std::size_t>{2, 3, 4}));
    QCOMPARE(cuts.maxGpuLoad, 40.0);
    // Two GPUs: 10+20+30 | 40 (60) beats 10+20 | 30+40 (70).
    p.gpuLimits = {100, 100};
    cuts = optimalLayerCuts(p);
    QCOMPARE(cuts.gpuEnds, (std::vector<std::size_t>{3, 4}));
    QCOMPARE(cuts.maxGpuLoad, 60.0);
    // GPUs of 45 cannot hold all four (100 > 90) in order: offloading starts at the first layer they cannot hold,
    // and the main GPU keeps room for the largest offloaded one (40): 10 + 40 on GPU 0, 20 on GPU 1.
    p.gpuLimits = {50, 45};
    p.cpuLimit = 1000;
    cuts = optimalLayerCuts(p);
    QCOMPARE(cuts.offloadBegin(), std::size_t{2});
    QCOMPARE(cuts.gpuEnds, (std::vector<std::size_t>{1, 2}));
    QCOMPARE(cuts.gpuLoads, (std::vector<ByteCount>{50, 20}));
    QCOMPARE(cuts.cpuEnd, std::size_t{4});
    // A first GPU too small for anything with that room (10 + 40 > 20) stays empty; the next is then the main GPU:
    // 10 + 20 with room for 40.
    p.gpuLimits = {20, 80};
    cuts = optimalLayerCuts(p);
    QCOMPARE(cuts.gpuEnds, (std::vector<std::size_t>{0, 2}));
    QCOMPARE(cuts.maxGpuLoad, 70.0);
    QVERIFY(fathom::test::contains(fathom::test::messageOf([&] {
                                     evaluateLayerCuts(p, {3, 1}, 4);
                                   }),
                                   "GPU end 1 is not in [3, 4]"));
  }

  /// The dynamic programme against every cut point, on 600 small problems (zero sizes and zero limits included).
  void matchesBruteForce() {
    std::mt19937_64 rng(23);
    const auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    for (int round = 0; round < 600; ++round) {
      LayerCutProblem p;
      const int n = pick(0, 7);
      for (int i = 0; i < n; ++i) {
        p.sizes.push_back(pick(0, 20));
      }
      if (pick(0, 1) == 1) {
        for (const ByteCount s : p.sizes) {
          p.reserves.push_back(pick(0, static_cast<int>(s)));
        }
      }
      for (int j = pick(0, 3); j > 0; --j) {
        p.gpuLimits.push_back(pick(0, 45));
      }
      if (pick(0, 2) > 0) {
        p.cpuLimit = pick(0, 60);
      }
      const Evaluated expected = bruteForce(p);
      const LayerCuts cuts = optimalLayerCuts(p);
      const auto mine = evaluateByHand(p, cuts.gpuEnds, cuts.cpuEnd);
      const std::string what = "round " + std::to_string(round);
      QVERIFY2(mine.has_value(), what.c_str());  // within every limit
      QCOMPARE(mine->offloadBegin, expected.offloadBegin);
      QCOMPARE(mine->maxGpuLoad, expected.maxGpuLoad);
      QCOMPARE(cuts.maxGpuLoad, expected.maxGpuLoad);
      QCOMPARE(mine->cpuEnd, expected.cpuEnd);
    }
  }

  /// The gain on a model shaped like the ones people load this way: Llama-7B in float16 on a few GPU counts.
  void llamaShapedModel() {
    const ModuleTree tree = moduleTreeFromJson(llamaShaped());
    const double gib = 1024.0 * 1024 * 1024;
    struct Setup {
      int gpus;
      double gibPerGpu;
      double cpuGib;
    };
    for (const Setup& s : {Setup{2, 24, 0}, Setup{3, 8, 0}, Setup{4, 6, 0}, Setup{4, 4, 0}, Setup{8, 2, 0},
                           Setup{2, 5, 64}, Setup{4, 2.5, 64}}) {
      InferOptions options{.noSplitModuleClasses = {"LlamaDecoderLayer"}};
      for (int g = 0; g < s.gpus; ++g) {
        options.maxMemory.push_back({DeviceKey::gpu(g), s.gibPerGpu * gib});
      }
      if (s.cpuGib > 0) {
        options.maxMemory.push_back({DeviceKey::cpu(), s.cpuGib * gib});
      }
      const StrategyGain g = optimalGainOverBalanced(tree, options);
      qInfo("%d GPUs of %.1f GiB%s: largest GPU load %.3f GiB (balanced %.3f GiB, %.2f%% lower); offloaded %.3f GiB "
            "(balanced %.3f GiB)",
            s.gpus, s.gibPerGpu, s.cpuGib > 0 ? " + cpu" : "", g.optimalMaxGpuLoad / gib, g.balancedMaxGpuLoad / gib,
            100 * g.gain, g.optimalOffloadedBytes / gib, g.balancedOffloadedBytes / gib);
      QVERIFY(g.optimalOffloadedBytes < g.balancedOffloadedBytes ||
              (g.optimalOffloadedBytes == g.balancedOffloadedBytes && g.optimalMaxGpuLoad <= g.balancedMaxGpuLoad));
    }
  }

  /// The sweep: random layer-size profiles whose model fits its GPUs in order (2-64 blocks of 1 to 1000x, 2-8
  /// GPUs with 1.05-2x their share each, a quarter with tied embeddings, a cpu beside them). Wherever balanced keeps
  /// the whole model on the GPUs (profiles are drawn until 250 such), optimal's largest GPU load is never larger. Where
  /// balanced sends a block to the cpu although the GPUs could hold it (its limits are tighter than the GPUs'), optimal
  /// keeps everything on the GPUs: counted and reported, not compared (a GPU lightened by offloading is no rival: the
  /// offloaded block streams over PCIe every forward). Spilling profiles are the next test's.
  void neverLargerThanBalancedWhenTheModelFits() {
    std::mt19937_64 rng(0x23'1128);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    double sum = 0;
    double most = 0;
    int lower = 0;
    int compared = 0;
    int balancedOffloads = 0;
    int noFit = 0;
    // Profiles are drawn until 250 are compared.
    int profile = 0;
    for (; compared < 250 && profile < 2000; ++profile) {
      const int gpus = std::uniform_int_distribution<int>(2, 8)(rng);
      const ModuleTree tree = randomProfile(rng, /*tiedEmbeddings=*/profile % 4 == 3);
      const ByteCount total = computeModuleSizes(tree)[""];
      InferOptions options{.noSplitModuleClasses = {"Block"}};
      for (int g = 0; g < gpus; ++g) {
        options.maxMemory.push_back({DeviceKey::gpu(g), std::floor((1.05 + 0.95 * unit(rng)) * total / gpus)});
      }
      options.maxMemory.push_back({DeviceKey::cpu(), 2 * total});
      const DeviceLoads mine = deviceLoads(tree, optimalDeviceMap(tree, options).result.deviceMap, options);
      const DeviceLoads theirs = planDeviceMap(tree, DeviceMapStrategy::Balanced, options).loads;
      const std::string what = "profile " + std::to_string(profile);
      if (mine.offloadedBytes > 0) {  // no cut of the blocks in order fits the GPUs (a block larger than a GPU's room)
        ++noFit;
        continue;
      }
      if (theirs.offloadedBytes > 0) {
        ++balancedOffloads;
        continue;
      }
      ++compared;
      const std::string detail = what + ": optimal " + std::to_string(mine.maxGpuLoad) + " (offloaded " +
                                 std::to_string(mine.offloadedBytes) + "), balanced " +
                                 std::to_string(theirs.maxGpuLoad) + " (offloaded " +
                                 std::to_string(theirs.offloadedBytes) + ")";
      QVERIFY2(mine.maxGpuLoad <= theirs.maxGpuLoad, detail.c_str());
      const double reduction = (theirs.maxGpuLoad - mine.maxGpuLoad) / theirs.maxGpuLoad;
      sum += reduction;
      most = std::max(most, reduction);
      lower += reduction > 0 ? 1 : 0;
    }
    qInfo("optimal vs balanced, %d random profiles drawn with room on the GPUs: balanced keeps %d on the GPUs, and "
          "there optimal's "
          "largest GPU load is never larger: %.2f%% lower on average, %.2f%% at most, lower in %d; balanced offloads a "
          "block in %d that optimal keeps on the GPUs; in %d no cut in order fits the GPUs",
          profile, compared, 100 * sum / compared, 100 * most, lower, balancedOffloads, noFit);
    QCOMPARE(compared, 250);
  }

  /// optimal against balanced on 240 random models: 2-64 blocks of 256 to 256,000 float32 elements (1 to 1000x),
  /// 2-8 GPUs with limits of their own, for half of the models 1.1-2x their share of the model and for the other half
  /// 0.3-0.9x (spilling to cpu, or straight to disk), a quarter with tied embeddings.
  void neverWorseThanBalanced() {
    std::mt19937_64 rng(0x23'0715);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    struct {
      int sameOffload = 0, noOffload = 0, improved = 0, lessOffload = 0, onlyBalancedOffloads = 0, overLimit = 0;
      int largerLoad = 0;
      double sumReduction = 0, maxReduction = 0, sumNoOffload = 0, maxNoOffload = 0;
    } tally;
    for (int profile = 0; profile < 240; ++profile) {
      const int gpus = std::uniform_int_distribution<int>(2, 8)(rng);
      const ModuleTree tree = randomProfile(rng, /*tiedEmbeddings=*/profile % 4 == 3);
      const ByteCount total = computeModuleSizes(tree)[""];
      const bool spill = profile % 2 == 1;
      InferOptions options{.noSplitModuleClasses = {"Block"}};
      for (int g = 0; g < gpus; ++g) {
        const double share = spill ? 0.3 + 0.6 * unit(rng) : 1.1 + 0.9 * unit(rng);
        options.maxMemory.push_back({DeviceKey::gpu(g), std::floor(share * total / gpus)});
      }
      if (!spill || profile % 4 == 1) {
        options.maxMemory.push_back({DeviceKey::cpu(), std::floor((spill ? 0.2 + 0.6 * unit(rng) : 2.0) * total)});
      }

      const OptimalDeviceMap optimal = optimalDeviceMap(tree, options);
      const StrategyResult balanced = planDeviceMap(tree, DeviceMapStrategy::Balanced, options);
      const DeviceLoads mine = deviceLoads(tree, optimal.result.deviceMap, options);
      const DeviceLoads theirs = balanced.loads;
      const std::string what = "profile " + std::to_string(profile);
      const auto withinLimits = [&](const DeviceLoads& loads) {
        return std::all_of(loads.devices.begin(), loads.devices.end(), [&](const DeviceLoad& d) {
          return !d.device.isGpu() || d.load() <= *limitOf(options.maxMemory, d.device);
        });
      };
      // The map is what the cuts say, every GPU within its limit.
      QVERIFY2(mine.maxGpuLoad == optimal.cuts.maxGpuLoad, what.c_str());
      QVERIFY2(withinLimits(mine), what.c_str());
      // balanced's map may ask more of a GPU than its limit: Accelerate keeps room for the largest offloaded layer
      // on GPU 0 only, even when GPU 0 gets nothing, and dispatch then runs the offloaded layers on the first GPU
      // that holds something, with no room kept there. Such a map is no rival; against every other one optimal
      // offloads no more, and with as much offloaded has no larger largest GPU load.
      if (!withinLimits(theirs)) {
        QVERIFY2(theirs.devices.front().device != DeviceKey::gpu(0), what.c_str());  // GPU 0 got nothing
        ++tally.overLimit;
        continue;
      }
      // Against a map within its limits, a larger largest GPU load only ever comes with less offloaded: optimal does
      // not offload to lighten the GPUs.
      const std::string compared =
          what + ": optimal " + std::to_string(mine.maxGpuLoad) + " offloading " + std::to_string(mine.offloadedBytes) +
          ", balanced " + std::to_string(theirs.maxGpuLoad) + " offloading " + std::to_string(theirs.offloadedBytes);
      QVERIFY2(mine.maxGpuLoad <= theirs.maxGpuLoad || mine.offloadedBytes < theirs.offloadedBytes, compared.c_str());
      tally.largerLoad += mine.maxGpuLoad > theirs.maxGpuLoad ? 1 : 0;
      tally.onlyBalancedOffloads += mine.offloadedBytes == 0 && theirs.offloadedBytes > 0 ? 1 : 0;
      QVERIFY2(mine.offloadedBytes <= theirs.offloadedBytes, compared.c_str());
      if (mine.offloadedBytes < theirs.offloadedBytes) {
        ++tally.lessOffload;
        continue;
      }
      QVERIFY2(mine.maxGpuLoad <= theirs.maxGpuLoad, what.c_str());
      const double reduction = theirs.maxGpuLoad > 0 ? (theirs.maxGpuLoad - mine.maxGpuLoad) / theirs.maxGpuLoad : 0.0;
      ++tally.sameOffload;
      tally.improved += reduction > 0 ? 1 : 0;
      tally.sumReduction += reduction;
      tally.maxReduction = std::max(tally.maxReduction, reduction);
      if (mine.offloadedBytes == 0) {
        ++tally.noOffload;
        tally.sumNoOffload += reduction;
        tally.maxNoOffload = std::max(tally.maxNoOffload, reduction);
      }
    }
    qInfo("optimal vs balanced, 240 profiles. Same bytes offloaded, balanced within its limits: %d profiles, largest "
          "GPU load %.2f%% lower on average, %.2f%% at most, lower in %d; of them, nothing offloaded: %d profiles, "
          "%.2f%% lower on average, %.2f%% at most. Optimal offloads less than balanced (balanced within its limits): "
          "%d. Balanced over a GPU's limit: %d. Balanced offloads, optimal does not: %d. Optimal's largest GPU load "
          "larger than balanced's (each time with less offloaded): %d",
          tally.sameOffload, 100 * tally.sumReduction / tally.sameOffload, 100 * tally.maxReduction, tally.improved,
          tally.noOffload, 100 * tally.sumNoOffload / tally.noOffload, 100 * tally.maxNoOffload, tally.lessOffload,
          tally.overLimit, tally.onlyBalancedOffloads, tally.largerLoad);
    QVERIFY(tally.noOffload >= 30 && tally.sameOffload - tally.noOffload >= 30);  // both kinds are well represented
  }
};

QTEST_GUILESS_MAIN(TestDeviceMapOptimal)
#include "tst_device_map_optimal.moc"
