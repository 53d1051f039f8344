// SPDX-License-Identifier: Apache-2.0
// Plan evaluations per second on one core (issue 5: at least 100,000/s for transformer-dimension models).
// Evaluates plan::predict over a rotation of models (GPT-2 small shape, Llama-2-7B, a 70B GQA model, Mixtral-8x7B) and
// plans (DDP, ZeRO-1/2/3, FSDP flavours, TP/PP/SP, recomputation, accumulation), without explanations, exactly as the
// Studio's wizard and `fathom plan search` call it. Prints the median of several timed rounds and its ratio to
// the 100,000/s anchor.
#include <fathom/plan/predict.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

using namespace fathom::plan;

namespace {

ModelSpec llama(long long layers, long long hidden, long long heads, long long kv, long long ffn, long long experts) {
  TransformerDims d;
  d.arch = Arch::Llama;
  d.layers = layers;
  d.hidden = hidden;
  d.heads = heads;
  d.kvHeads = kv;
  d.ffnHidden = ffn;
  d.vocab = 32000;
  d.tiedEmbeddings = false;
  d.numExperts = experts;
  d.expertsPerToken = experts > 1 ? 2 : 0;
  return modelFromDims(d);
}

HardwareSpec h100() {
  HardwareSpec hw;
  hw.name = "h100-sxm-80gb";
  hw.memoryBytes = 85520809984LL;
  hw.peak = {66.9e12, 494.7e12, 989.4e12, 989.4e12, 1978.9e12, 1978.9e12};
  hw.memoryBandwidth = 3.35e12;
  hw.gpusPerNode = 8;
  hw.intraNode = {450e9, 3e-6};
  hw.interNode = {50e9, 1e-5};
  hw.hostMemoryBytes = 2199023255552LL;
  hw.hostToDeviceBandwidth = 55e9;
  hw.frameworkOverheadBytes = 1LL << 30;
  return hw;
}

}  // namespace

int main() {
  TransformerDims gpt2;
  gpt2.arch = Arch::Gpt;
  gpt2.layers = 12;
  gpt2.hidden = 768;
  gpt2.heads = 12;
  gpt2.vocab = 50257;
  gpt2.maxPositions = 4096;  // GPT-2 small shape with a position table long enough for seq 4096
  const std::vector<ModelSpec> models{modelFromDims(gpt2), llama(32, 4096, 32, 32, 11008, 0),
                                      llama(80, 8192, 64, 8, 28672, 0), llama(32, 4096, 32, 8, 14336, 8)};
  std::vector<Plan> plans;
  const Strategy strategies[] = {Strategy::Ddp, Strategy::Zero1, Strategy::Zero2, Strategy::Zero3, Strategy::Fsdp};
  const FsdpSharding shardings[] = {FsdpSharding::FullShard, FsdpSharding::ShardGradOp, FsdpSharding::HybridShard};
  for (Strategy s : strategies) {
    for (int tp : {1, 2, 4}) {
      for (Recompute rc : {Recompute::None, Recompute::Selective, Recompute::Full}) {
        Plan p;
        p.strategy = s;
        p.fsdpSharding = shardings[plans.size() % 3];
        p.numGpus = 64;
        p.tp = tp;
        p.pp = s == Strategy::Zero2 || s == Strategy::Zero3 ? 1 : 2;
        p.sequenceParallel = tp > 1;
        p.microBatch = 2;
        p.gradAccum = 4;
        p.seqLen = 4096;
        p.recompute = rc;
        plans.push_back(p);
      }
    }
  }
  const HardwareSpec hw = h100();
  const PredictOptions options;  // explain = false

  // Warm-up, and a check that every combination is valid (an exception would skew the timing).
  double sink = 0;
  for (const auto& m : models) {
    for (const auto& p : plans) {
      sink += predict(m, hw, p, options).time.tokensPerS;
    }
  }
  const int perRound = 200'000;
  const int rounds = 9;
  std::vector<double> rates;
  for (int r = 0; r < rounds; ++r) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < perRound; ++i) {
      const ModelSpec& m = models[static_cast<std::size_t>(i) % models.size()];
      const Plan& p = plans[static_cast<std::size_t>(i / 4) % plans.size()];
      sink += predict(m, hw, p, options).memory.total;
    }
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    rates.push_back(perRound / elapsed.count());
  }
  std::sort(rates.begin(), rates.end());
  const double median = rates[rates.size() / 2];
  std::printf("bench_plan: %zu models x %zu plans, %d evaluations per round, %d rounds, one thread\n", models.size(),
              plans.size(), perRound, rounds);
  std::printf("plan evaluations/s: median %.0f (min %.0f, max %.0f)\n", median, rates.front(), rates.back());
  std::printf("anchor 100000/s: ratio %.2fx %s\n", median / 100000.0,
              median >= 100000.0 ? "(meets target)" : "(BELOW target)");
  std::printf("(checksum %.6g)\n", sink);
  return median >= 100000.0 ? 0 : 1;
}
