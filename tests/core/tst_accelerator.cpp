// SPDX-License-Identifier: Apache-2.0
// fathom::Accelerator in one process (DistributedType NO, no process group): gradient accumulation (G1-G6),
// prepared loaders (end_of_dataloader, remainder, skip_first_batches, shuffling, iterable datasets),
// gather_for_metrics (G13), single-process collectives, find_executable_batch_size, option resolution,
// autocast and the fp16 overflow path. Expected values follow accelerate-semantics.md §3.4-3.6 and §4.
#include "fathom/common/error.h"
#include "fathom/data/data_loader.h"
#include "fathom/data/dataset.h"
#include "fathom/precision/grad_scaler.h"
#include "fathom/train/accelerator.h"
#include "fathom/train/find_executable_batch_size.h"
#include "runtime/torch_compat.h"

#include <torch/torch.h>

#include <QTest>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <new>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace ft = fathom::train;
namespace fd = fathom::data;
using fathom::precision::MixedPrecision;

namespace {

std::optional<std::string> noEnv(const std::string& /*name*/) {
  return std::nullopt;
}

fathom::runtime::EnvLookup envOf(std::map<std::string, std::string> values) {
  return [values = std::move(values)](const std::string& name) -> std::optional<std::string> {
    auto it = values.find(name);
    if (it == values.end())
      return std::nullopt;
    return it->second;
  };
}

std::unique_ptr<ft::Accelerator> makeAccelerator(ft::AcceleratorOptions options = {}) {
  return std::make_unique<ft::Accelerator>(options, fathom::runtime::ProcessState::fromVariables(noEnv));
}

/// Sample i: input = target = [float(i)].
class RangeDataset : public fd::Dataset {
public:
  explicit RangeDataset(std::int64_t n) : m_n(n) {}
  std::int64_t size() const override { return m_n; }
  fd::Example get(std::int64_t index) const override {
    return {torch::tensor({static_cast<float>(index)}), torch::tensor({static_cast<float>(index)})};
  }
  void setEpoch(std::int64_t epoch) override { epochs.push_back(epoch); }
  std::vector<std::int64_t> epochs;

private:
  std::int64_t m_n;
};

/// Streams samples 0..n-1 (same shape as RangeDataset).
class RangeStream : public fd::IterableDataset {
public:
  explicit RangeStream(std::int64_t n) : m_n(n) {}
  void reset() override { m_next = 0; }
  std::optional<fd::Example> next() override {
    if (m_next >= m_n)
      return std::nullopt;
    const auto value = static_cast<float>(m_next++);
    return fd::Example{torch::tensor({value}), torch::tensor({value})};
  }

private:
  std::int64_t m_n;
  std::int64_t m_next = 0;
};

fd::DataLoader rangeLoader(std::int64_t n, fd::DataLoaderOptions options) {
  return fd::DataLoader(std::make_shared<RangeDataset>(n), options);
}

std::vector<float> valuesOf(const at::Tensor& tensor) {
  const at::Tensor flat = tensor.detach().to(at::kFloat).contiguous().view({-1});
  return std::vector<float>(flat.data_ptr<float>(), flat.data_ptr<float>() + flat.numel());
}

std::vector<std::int64_t> range(std::int64_t from, std::int64_t to) {
  std::vector<std::int64_t> out(static_cast<std::size_t>(to - from));
  std::iota(out.begin(), out.end(), from);
  return out;
}

std::vector<float> floats(std::int64_t from, std::int64_t to) {
  std::vector<float> out;
  for (std::int64_t i = from; i < to; ++i)
    out.push_back(static_cast<float>(i));
  return out;
}

/// The message of the E `f` throws, or std::nullopt when it throws nothing (another type escapes).
template <typename E, typename F> std::optional<std::string> thrownMessage(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return std::string(e.what());
  }
  return std::nullopt;
}

/// Linear(1, 1, bias=false) with weight `w`.
torch::nn::Linear scalarModel(float w) {
  torch::nn::Linear model(torch::nn::LinearOptions(1, 1).bias(false));
  torch::NoGradGuard noGrad;
  model->weight.fill_(w);
  return model;
}

float weightOf(const torch::nn::Linear& model) {
  return model->weight.item<float>();
}

double lrOf(const torch::optim::Optimizer& optimizer) {
  return static_cast<const torch::optim::SGDOptions&>(optimizer.param_groups().front().options()).lr();
}

c10::OutOfMemoryError oomError() {
  return c10::OutOfMemoryError(c10::SourceLocation{__func__, __FILE__, static_cast<std::uint32_t>(__LINE__)},
                               "CUDA out of memory. Tried to allocate 2.00 GiB");
}

struct Net : torch::nn::Module {
  Net() { fc = register_module("fc", torch::nn::Linear(1, 1)); }
  torch::nn::Linear fc{nullptr};
};

}  // namespace

class TestAccelerator : public QObject {
  Q_OBJECT

private slots:
  void initTestCase() {
    // The Accelerator resolves unset options from the process environment; keep it neutral.
    qunsetenv("ACCELERATE_GRADIENT_ACCUMULATION_STEPS");
    qunsetenv("ACCELERATE_MIXED_PRECISION");
  }

  void singleProcessState() {
    auto acc = makeAccelerator();
    QCOMPARE(acc->numProcesses(), 1);
    QCOMPARE(acc->processIndex(), 0);
    QVERIFY(acc->isMainProcess());
    QVERIFY(acc->distributedType() == fathom::runtime::DistributedType::No);
    QVERIFY(acc->comm() == nullptr);
    QVERIFY(acc->commRecords().empty());
    QVERIFY(acc->scaler() == nullptr);
    QCOMPARE(acc->gradientAccumulationSteps(), 1);
    QVERIFY(acc->syncGradients());
  }

  // ---- 1. G1/G2 --------------------------------------------------------------------------------------------------
  void gradientAccumulationSyncsEveryKthAndLastBatch() {
    auto acc = makeAccelerator({.gradientAccumulationSteps = 2});
    auto loader = acc->prepareDataLoader(rangeLoader(80, {.batchSize = 16}));
    QCOMPARE(loader->size(), std::int64_t{5});
    for (int epoch = 0; epoch < 2; ++epoch) {
      std::vector<int> syncs, ends;
      int i = 0;
      for (const auto& batch : *loader) {
        QCOMPARE(batch.size(), std::int64_t{16});
        auto pause = acc->accumulate();
        if (acc->syncGradients())
          syncs.push_back(i);
        if (acc->gradientState().endOfDataloader())
          ends.push_back(i);
        ++i;
      }
      QCOMPARE(i, 5);
      QCOMPARE(syncs, (std::vector<int>{1, 3, 4}));
      QCOMPARE(ends, (std::vector<int>{4}));
      QCOMPARE(acc->step(), std::int64_t{0});  // reset at the last batch, so the next epoch starts afresh
    }
  }

  void gradientAccumulationOneStepSyncsEveryBatch() {
    auto acc = makeAccelerator({.gradientAccumulationSteps = 1});
    auto loader = acc->prepareDataLoader(rangeLoader(80, {.batchSize = 16}));
    int syncs = 0, i = 0;
    for (const auto& batch : *loader) {
      Q_UNUSED(batch);
      auto pause = acc->accumulate();
      syncs += acc->syncGradients() ? 1 : 0;
      ++i;
    }
    QCOMPARE(i, 5);
    QCOMPARE(syncs, 5);
  }

  void accumulateOutsideALoaderFollowsTheCounter() {
    auto acc = makeAccelerator({.gradientAccumulationSteps = 3});
    QVERIFY(acc->gradientState().activeDataloader() == nullptr);
    std::vector<bool> syncs;
    for (int i = 0; i < 7; ++i) {
      auto pause = acc->accumulate();
      QVERIFY(!acc->gradientState().endOfDataloader());
      syncs.push_back(acc->syncGradients());
    }
    QCOMPARE(syncs, (std::vector<bool>{false, false, true, false, false, true, false}));
    QCOMPARE(acc->step(), std::int64_t{7});
    acc->setGradientAccumulationSteps(2);
    QCOMPARE(acc->gradientAccumulationSteps(), 2);
    {
      auto pause = acc->accumulate();  // step 8
      QVERIFY(acc->syncGradients());
    }
    QVERIFY(thrownMessage<fathom::ConfigError>([&] { acc->setGradientAccumulationSteps(0); }).has_value());
  }

  void syncWithDataloaderFalseIgnoresTheLastBatch() {
    ft::AcceleratorOptions options{.gradientAccumulationSteps = 2};
    options.gradientAccumulation.syncWithDataloader = false;
    auto acc = makeAccelerator(options);
    auto loader = acc->prepareDataLoader(rangeLoader(80, {.batchSize = 16}));
    std::vector<int> syncs;
    int i = 0;
    for (const auto& batch : *loader) {
      Q_UNUSED(batch);
      auto pause = acc->accumulate();
      if (acc->syncGradients())
        syncs.push_back(i);
      ++i;
    }
    QCOMPARE(syncs, (std::vector<int>{1, 3}));
    QCOMPARE(acc->step(), std::int64_t{5});
  }

  // ---- 2. end_of_dataloader / active loader -----------------------------------------------------------------------
  void endOfDataloaderOnTheLastBatchEveryPass() {
    auto acc = makeAccelerator();
    auto loader = acc->prepareDataLoader(rangeLoader(16, {.batchSize = 4}));
    for (int pass = 0; pass < 2; ++pass) {
      std::vector<bool> ends;
      for (const auto& batch : *loader) {
        Q_UNUSED(batch);
        QCOMPARE(acc->gradientState().activeDataloader(), loader.get());
        ends.push_back(acc->gradientState().endOfDataloader());
        QCOMPARE(loader->endOfDataloader(), ends.back());
      }
      QCOMPARE(ends, (std::vector<bool>{false, false, false, true}));
      QVERIFY(acc->gradientState().activeDataloader() == nullptr);
      QVERIFY(!acc->gradientState().endOfDataloader());
      QVERIFY(!loader->endOfDataloader());
    }
  }

  void breakLeavesNoActiveLoader() {
    auto acc = makeAccelerator();
    auto loader = acc->prepareDataLoader(rangeLoader(16, {.batchSize = 4}));
    int seen = 0;
    for (const auto& batch : *loader) {
      Q_UNUSED(batch);
      QCOMPARE(acc->gradientState().activeDataloader(), loader.get());
      if (++seen == 2)
        break;
    }
    QCOMPARE(seen, 2);
    QVERIFY(acc->gradientState().activeDataloader() == nullptr);
    QVERIFY(!acc->gradientState().endOfDataloader());
    // The loader can be iterated again from the start after the break.
    std::vector<std::int64_t> firsts;
    for (const auto& batch : *loader)
      firsts.push_back(batch.indices.front());
    QCOMPARE(firsts, (std::vector<std::int64_t>{0, 4, 8, 12}));
  }

  void nestedLoadersRestoreTheOuterOne() {
    auto acc = makeAccelerator();
    auto outer = acc->prepareDataLoader(rangeLoader(8, {.batchSize = 4}));
    auto inner = acc->prepareDataLoader(rangeLoader(12, {.batchSize = 4}));
    int outerBatches = 0;
    std::vector<bool> outerEnds;
    for (const auto& ob : *outer) {
      Q_UNUSED(ob);
      QCOMPARE(acc->gradientState().activeDataloader(), outer.get());
      const bool outerEnd = acc->gradientState().endOfDataloader();
      std::vector<bool> innerEnds;
      for (const auto& ib : *inner) {
        Q_UNUSED(ib);
        QCOMPARE(acc->gradientState().activeDataloader(), inner.get());
        innerEnds.push_back(acc->gradientState().endOfDataloader());
      }
      QCOMPARE(innerEnds, (std::vector<bool>{false, false, true}));
      QCOMPARE(acc->gradientState().activeDataloader(), outer.get());
      QCOMPARE(acc->gradientState().endOfDataloader(), outerEnd);
      outerEnds.push_back(outerEnd);
      ++outerBatches;
    }
    QCOMPARE(outerBatches, 2);
    QCOMPARE(outerEnds, (std::vector<bool>{false, true}));
    QVERIFY(acc->gradientState().activeDataloader() == nullptr);
  }

  // ---- 3. remainder -----------------------------------------------------------------------------------------------
  void remainderOfTheLastGlobalBatch() {
    auto acc = makeAccelerator();
    auto loader = acc->prepareDataLoader(rangeLoader(82, {.batchSize = 16}));
    QCOMPARE(acc->gradientState().remainder(), std::int64_t{-1});  // no active loader
    std::vector<std::int64_t> sizes;
    std::vector<std::int64_t> lastIndices;
    for (const auto& batch : *loader) {
      QCOMPARE(acc->gradientState().remainder(), std::int64_t{2});
      QCOMPARE(loader->remainder(), std::int64_t{2});
      sizes.push_back(batch.size());
      lastIndices = batch.indices;
    }
    // One process: Accelerate leaves the DataLoader unsharded, so the last batch is the short one [80, 81].
    QCOMPARE(sizes, (std::vector<std::int64_t>{16, 16, 16, 16, 16, 2}));
    QCOMPARE(lastIndices, (std::vector<std::int64_t>{80, 81}));
    QCOMPARE(loader->size(), std::int64_t{6});

    auto dropped = acc->prepareDataLoader(rangeLoader(82, {.batchSize = 16, .dropLast = true}));
    int batches = 0;
    for (const auto& batch : *dropped) {
      QCOMPARE(batch.size(), std::int64_t{16});
      QCOMPARE(acc->gradientState().remainder(), std::int64_t{-1});
      ++batches;
    }
    QCOMPARE(batches, 5);
    QCOMPARE(dropped->size(), std::int64_t{5});
  }

  // ---- 4. G4/G5 ---------------------------------------------------------------------------------------------------
  void backwardDividesTheLossByTheAccumulationSteps() {
    auto acc = makeAccelerator({.gradientAccumulationSteps = 4});
    auto model = scalarModel(1.0f);
    const auto x = torch::tensor({{3.0f}, {5.0f}});
    acc->backward(model(x).sum());
    QCOMPARE(model->weight.grad().item<float>(), 8.0f / 4.0f);

    auto plain = makeAccelerator();
    auto model1 = scalarModel(1.0f);
    plain->backward(model1(x).sum());
    QCOMPARE(model1->weight.grad().item<float>(), 8.0f);
  }

  void optimizerStepsAndZeroesOnlyOnSyncBatches() {
    auto acc = makeAccelerator({.gradientAccumulationSteps = 2});
    auto model = scalarModel(1.0f);
    auto sgd = std::make_shared<torch::optim::SGD>(model->parameters(), torch::optim::SGDOptions(0.1));
    auto [m, opt] = acc->prepare(model, sgd);
    const auto x = torch::tensor({{2.0f}});

    auto step = [&] {
      auto pause = acc->accumulate();
      acc->backward(m(x).sum());
      opt->step();
      opt->zeroGrad();
    };
    step();  // non-sync: grad 2/2 = 1 kept, weight unchanged
    QVERIFY(!acc->syncGradients());
    QCOMPARE(weightOf(model), 1.0f);
    QVERIFY(model->weight.grad().defined());
    QCOMPARE(model->weight.grad().item<float>(), 1.0f);
    QCOMPARE(acc->optimizerSteps(), std::int64_t{0});

    {  // sync: grad accumulates to 2, the step uses it, zeroGrad clears it
      auto pause = acc->accumulate();
      QVERIFY(acc->syncGradients());
      acc->backward(m(x).sum());
      QCOMPARE(model->weight.grad().item<float>(), 2.0f);
      opt->step();
      QCOMPARE(weightOf(model), 1.0f - 0.1f * 2.0f);
      opt->zeroGrad(/*setToNone=*/true);
      QVERIFY(!model->weight.grad().defined());
    }
    QCOMPARE(acc->optimizerSteps(), std::int64_t{1});
    QVERIFY(!acc->optimizerStepWasSkipped());

    step();  // non-sync again
    QCOMPARE(weightOf(model), 0.8f);
    QCOMPARE(model->weight.grad().item<float>(), 1.0f);  // cleared on the sync batch, then x / 2 again

    {  // without an argument, the optimizer's own zero_grad(): zeros in place on 1.13, undefined on 2.x
      auto pause = acc->accumulate();
      acc->backward(m(x).sum());
      opt->step();
      opt->zeroGrad();
      const at::Tensor& grad = model->weight.grad();
      QVERIFY(!grad.defined() || grad.item<float>() == 0.0f);
#if TORCH_VERSION_MAJOR < 2
      QVERIFY(grad.defined());
#endif
    }
  }

  // ---- 5. G6 ------------------------------------------------------------------------------------------------------
  void schedulerStepsOnlyOnSyncBatches() {
    // Reference: an unprepared StepLR stepped twice (LibTorch's StepLR leaves the LR alone on its first step).
    auto refWeight = torch::zeros({1}, torch::requires_grad());
    torch::optim::SGD refSgd(std::vector<torch::Tensor>{refWeight}, torch::optim::SGDOptions(1.0));
    torch::optim::StepLR refSched(refSgd, 1, 0.5);
    std::vector<double> refLrs{lrOf(refSgd)};
    for (int i = 0; i < 4; ++i) {
      refSched.step();
      refLrs.push_back(lrOf(refSgd));
    }

    for (const bool withOptimizer : {true, false}) {
      ft::AcceleratorOptions options{.gradientAccumulationSteps = 2};
      options.stepSchedulerWithOptimizer = withOptimizer;
      auto acc = makeAccelerator(options);
      auto model = scalarModel(1.0f);
      auto sgd = std::make_shared<torch::optim::SGD>(model->parameters(), torch::optim::SGDOptions(1.0));
      auto sched = std::make_shared<torch::optim::StepLR>(*sgd, 1, 0.5);
      auto [m, opt, s, loader] = acc->prepare(model, sgd, sched, rangeLoader(16, {.batchSize = 4}));
      std::vector<std::int64_t> inner;
      for (const auto& batch : *loader) {
        auto pause = acc->accumulate();
        acc->backward(m(batch.input).sum());
        opt->step();
        s->step();
        opt->zeroGrad();
        inner.push_back(s->innerSteps());
      }
      if (withOptimizer) {
        QCOMPARE(inner, (std::vector<std::int64_t>{0, 1, 1, 2}));
        QCOMPARE(lrOf(*sgd), refLrs[2]);
      } else {
        QCOMPARE(inner, (std::vector<std::int64_t>{1, 2, 3, 4}));
        QCOMPARE(lrOf(*sgd), refLrs[4]);
      }
    }
    QCOMPARE(refLrs[2], 0.5);
    QCOMPARE(refLrs[4], 0.125);
  }

  // ---- 6. §3.6 skip_first_batches ---------------------------------------------------------------------------------
  void skipFirstBatchesResumesMidEpoch() {
    auto acc = makeAccelerator();
    auto dataset = std::make_shared<RangeDataset>(16);
    auto loader = acc->prepareDataLoader(fd::DataLoader(dataset, {.batchSize = 4}));
    loader->setEpoch(3);
    auto skipped = acc->skipFirstBatches(loader, 2);
    QCOMPARE(skipped->size(), std::int64_t{2});
    QCOMPARE(skipped->epoch(), std::int64_t{3});
    QCOMPARE(skipped->skipBatches(), std::int64_t{2});
    QCOMPARE(loader->size(), std::int64_t{4});  // the original is untouched
    std::vector<std::vector<std::int64_t>> indices;
    std::vector<std::vector<float>> inputs;
    dataset->epochs.clear();
    for (const auto& batch : *skipped) {
      indices.push_back(batch.indices);
      inputs.push_back(valuesOf(batch.input));
    }
    QCOMPARE(indices, (std::vector<std::vector<std::int64_t>>{range(8, 12), range(12, 16)}));
    QCOMPARE(inputs, (std::vector<std::vector<float>>{floats(8, 12), floats(12, 16)}));
    QVERIFY(!dataset->epochs.empty());
    QCOMPARE(dataset->epochs.back(), std::int64_t{3});  // the sampler/dataset is not reset to epoch 0
  }

  void skipFirstBatchesKeepsTheShuffleEpoch() {
    auto acc = makeAccelerator();
    auto loader = acc->prepareDataLoader(rangeLoader(16, {.batchSize = 4, .shuffle = true, .seed = 7}));
    loader->setEpoch(3);
    std::vector<std::vector<std::int64_t>> full;
    for (const auto& batch : *loader)
      full.push_back(batch.indices);
    auto skipped = acc->skipFirstBatches(loader, 2);
    std::vector<std::vector<std::int64_t>> rest;
    for (const auto& batch : *skipped)
      rest.push_back(batch.indices);
    QCOMPARE(rest, (std::vector<std::vector<std::int64_t>>{full[2], full[3]}));
    QVERIFY(thrownMessage<fathom::ConfigError>([&] { acc->skipFirstBatches(loader, -1); }).has_value());
  }

  // ---- 7. seeded shuffling ----------------------------------------------------------------------------------------
  void shuffledLoaderIsSeededAndPerEpoch() {
    bool valuesMatchIndices = true;
    auto orderOf = [&](ft::DataLoaderShard& loader) {
      std::vector<std::int64_t> order;
      for (const auto& batch : loader) {
        const auto values = valuesOf(batch.input);
        for (std::size_t k = 0; k < batch.indices.size(); ++k) {
          valuesMatchIndices = valuesMatchIndices && values.at(k) == static_cast<float>(batch.indices[k]);
        }
        order.insert(order.end(), batch.indices.begin(), batch.indices.end());
      }
      return order;
    };
    auto acc1 = makeAccelerator();
    auto acc2 = makeAccelerator();
    const fd::DataLoaderOptions options{.batchSize = 4, .shuffle = true, .seed = 7};
    auto l1 = acc1->prepareDataLoader(rangeLoader(16, options));
    auto l2 = acc2->prepareDataLoader(rangeLoader(16, options));
    const auto epoch0 = orderOf(*l1);
    QCOMPARE(orderOf(*l2), epoch0);
    QCOMPARE(orderOf(*l1), epoch0);  // same epoch again → same order
    QVERIFY(epoch0 != range(0, 16));
    auto sorted = epoch0;
    std::sort(sorted.begin(), sorted.end());
    QCOMPARE(sorted, range(0, 16));

    l1->setEpoch(1);
    l2->setEpoch(1);
    const auto epoch1 = orderOf(*l1);
    QCOMPARE(orderOf(*l2), epoch1);
    QVERIFY(epoch1 != epoch0);
    sorted = epoch1;
    std::sort(sorted.begin(), sorted.end());
    QCOMPARE(sorted, range(0, 16));

    auto other = acc1->prepareDataLoader(rangeLoader(16, {.batchSize = 4, .shuffle = true, .seed = 8}));
    QVERIFY(orderOf(*other) != epoch0);
    QVERIFY(valuesMatchIndices);
  }

  // ---- 8. iterable datasets ---------------------------------------------------------------------------------------
  void iterableDatasetSingleProcess() {
    auto acc = makeAccelerator();
    auto loader = acc->prepareDataLoader(fd::DataLoader(std::make_shared<RangeStream>(30), {.batchSize = 4}));
    QCOMPARE(loader->size(), std::int64_t{-1});
    std::vector<std::vector<float>> batches;
    std::vector<bool> ends;
    for (const auto& batch : *loader) {
      batches.push_back(valuesOf(batch.input));
      QCOMPARE(valuesOf(batch.target), batches.back());
      ends.push_back(acc->gradientState().endOfDataloader());
    }
    QCOMPARE(batches.size(), std::size_t{8});
    for (std::size_t b = 0; b < 7; ++b)
      QCOMPARE(batches[b], floats(4 * b, 4 * b + 4));
    // One process: Accelerate does not wrap the dataset (no IterableDatasetShard, and the dispatcher pads only
    // when the last batch does not divide by the number of processes), so the last batch is the short [28, 29].
    QCOMPARE(batches[7], (std::vector<float>{28, 29}));
    QCOMPARE(ends, (std::vector<bool>{false, false, false, false, false, false, false, true}));

    auto dropped =
        acc->prepareDataLoader(fd::DataLoader(std::make_shared<RangeStream>(30), {.batchSize = 4, .dropLast = true}));
    std::vector<std::vector<float>> kept;
    for (const auto& batch : *dropped)
      kept.push_back(valuesOf(batch.input));
    QCOMPARE(kept.size(), std::size_t{7});
    QCOMPARE(kept.back(), floats(24, 28));
  }

  // ---- 9. G13 gather_for_metrics ----------------------------------------------------------------------------------
  void gatherForMetricsCollectsEverySampleOnce() {
    auto acc = makeAccelerator();
    auto loader = acc->prepareDataLoader(rangeLoader(82, {.batchSize = 16}));
    std::vector<float> collected;
    for (const auto& batch : *loader) {
      const auto gathered = acc->gatherForMetrics(batch.target);
      QVERIFY(gathered.size(0) <= 16);
      const auto v = valuesOf(gathered);
      collected.insert(collected.end(), v.begin(), v.end());
    }
    QCOMPARE(collected, floats(0, 82));

    auto stream = acc->prepareDataLoader(fd::DataLoader(std::make_shared<RangeStream>(30), {.batchSize = 4}));
    collected.clear();
    for (const auto& batch : *stream) {
      const auto v = valuesOf(acc->gatherForMetrics(batch.target));
      collected.insert(collected.end(), v.begin(), v.end());
    }
    QCOMPARE(collected, floats(0, 30));

    // Outside a loader gather_for_metrics is gather: nothing is cut.
    const auto t = torch::arange(5, torch::kFloat);
    QCOMPARE(valuesOf(acc->gatherForMetrics(t)), floats(0, 5));
  }

  // ---- 10. single-process collectives -----------------------------------------------------------------------------
  void collectivesInOneProcess() {
    auto acc = makeAccelerator();
    const std::vector<int> items{1, 2, 3, 4, 5};
    QCOMPARE(acc->splitBetweenProcesses(items), items);
    QCOMPARE(acc->splitBetweenProcesses(items, true), items);
    QCOMPARE(acc->splitBetweenProcesses(std::vector<int>{}), std::vector<int>{});
    const auto rows = torch::arange(6, torch::kFloat).reshape({3, 2});
    QVERIFY(torch::equal(acc->splitBetweenProcesses(rows), rows));

    const auto t = torch::tensor({1.0f, -2.0f, 3.0f});
    auto sum = acc->reduce(t);
    QVERIFY(torch::equal(sum, t));
    QVERIFY(sum.data_ptr() != t.data_ptr());  // a clone
    sum.add_(1);
    QCOMPARE(valuesOf(t), (std::vector<float>{1, -2, 3}));
    QCOMPARE(valuesOf(acc->reduce(t, ft::Reduction::Mean)), (std::vector<float>{1, -2, 3}));
    QCOMPARE(valuesOf(acc->reduce(t, ft::Reduction::Max)), (std::vector<float>{1, -2, 3}));
    QCOMPARE(valuesOf(acc->reduce(t, ft::Reduction::Sum, 0.5)), (std::vector<float>{0.5f, -1, 1.5f}));

    QVERIFY(torch::equal(acc->padAcrossProcesses(rows, 1, -1), rows));
    QVERIFY(torch::equal(acc->broadcast(t), t));
    QVERIFY(thrownMessage<fathom::ConfigError>([&] { acc->broadcast(t, 1); }).has_value());
    QVERIFY(torch::equal(acc->gather(rows), rows));
    QVERIFY(thrownMessage<fathom::ConfigError>([&] { acc->gather(at::Tensor()); }).has_value());
    acc->waitForEveryone();

    QVERIFY(!acc->checkTrigger());
    acc->setTrigger();
    QVERIFY(acc->checkTrigger());
    QVERIFY(!acc->checkTrigger());

    int ran = 0;
    acc->onMainProcess([&] { ran += 1; });
    acc->onLocalMainProcess([&] { ran += 10; });
    acc->onLastProcess([&] { ran += 100; });
    acc->onProcess(1, [&] { ran += 1000; });
    QCOMPARE(ran, 111);
    { auto first = acc->mainProcessFirst(); }
  }

  // ---- 11. find_executable_batch_size -----------------------------------------------------------------------------
  void findExecutableBatchSizeHalvesOnOom() {
    std::vector<std::int64_t> calls;
    const auto result = ft::findExecutableBatchSize(
        [&](std::int64_t bs) -> std::int64_t {
          calls.push_back(bs);
          if (bs > 16)
            throw oomError();
          return bs * 10;
        },
        128);
    QCOMPARE(result, std::int64_t{160});
    QCOMPARE(calls, (std::vector<std::int64_t>{128, 64, 32, 16}));

    calls.clear();
    const auto viaBadAlloc = ft::findExecutableBatchSize([&](std::int64_t bs) {
      calls.push_back(bs);
      if (bs > 40)
        throw std::bad_alloc();
      return bs;
    });
    QCOMPARE(viaBadAlloc, std::int64_t{32});
    QCOMPARE(calls, (std::vector<std::int64_t>{128, 64, 32}));
  }

  void findExecutableBatchSizeErrors() {
    std::vector<std::int64_t> calls;
    const auto other = thrownMessage<std::invalid_argument>([&] {
      ft::findExecutableBatchSize(
          [&](std::int64_t bs) -> int {
            calls.push_back(bs);
            throw std::invalid_argument("shape mismatch");
          },
          64);
    });
    QCOMPARE(other, std::optional<std::string>("shape mismatch"));
    QCOMPARE(calls, (std::vector<std::int64_t>{64}));

    calls.clear();
    const auto exhausted = thrownMessage<fathom::Error>([&] {
      ft::findExecutableBatchSize(
          [&](std::int64_t bs) -> int {
            calls.push_back(bs);
            throw oomError();
          },
          8);
    });
    QCOMPARE(exhausted, std::optional<std::string>("No executable batch size found, reached zero."));
    QCOMPARE(calls, (std::vector<std::int64_t>{8, 4, 2, 1}));
    QVERIFY(thrownMessage<fathom::ConfigError>([] {
              ft::findExecutableBatchSize([](std::int64_t) { return 0; }, 0);
            }).has_value());
  }

  void isOutOfMemoryRecognizesAccelerateMessages() {
    QVERIFY(ft::isOutOfMemory(oomError()));
    QVERIFY(ft::isOutOfMemory(std::bad_alloc()));
    QVERIFY(ft::isOutOfMemory(std::runtime_error("CUDA out of memory. Tried to allocate 20.00 MiB")));
    QVERIFY(ft::isOutOfMemory(std::runtime_error("cuDNN error: CUDNN_STATUS_NOT_SUPPORTED. This error may appear")));
    QVERIFY(ft::isOutOfMemory(std::runtime_error(
        "[enforce fail at alloc_cpu.cpp:75] DefaultCPUAllocator: can't allocate memory: you tried")));
    QVERIFY(ft::isOutOfMemory(c10::Error(c10::SourceLocation{"f", "file", 1}, "CUDA out of memory. Tried")));
    QVERIFY(!ft::isOutOfMemory(std::runtime_error("index out of range")));
    QVERIFY(!ft::isOutOfMemory(std::invalid_argument("shape mismatch")));
    QVERIFY(!ft::isOutOfMemory(c10::Error(c10::SourceLocation{"f", "file", 1}, "mat1 and mat2 shapes cannot")));
  }

  // ---- 12. option resolution --------------------------------------------------------------------------------------
  void optionsFromTheEnvironment() {
    const auto resolved = ft::resolveAcceleratorOptions(
        {}, envOf({{"ACCELERATE_GRADIENT_ACCUMULATION_STEPS", "4"}, {"ACCELERATE_MIXED_PRECISION", "bf16"}}));
    QCOMPARE(resolved.gradientAccumulationSteps, 4);
    QVERIFY(resolved.mixedPrecision == MixedPrecision::Bf16);

    const auto defaults = ft::resolveAcceleratorOptions({}, noEnv);
    QCOMPARE(defaults.gradientAccumulationSteps, 1);
    QVERIFY(defaults.mixedPrecision == MixedPrecision::No);

    // The constructor's mixed_precision overrides ACCELERATE_MIXED_PRECISION (§2.4 item 7).
    const auto explicitMp = ft::resolveAcceleratorOptions({.mixedPrecision = MixedPrecision::No},
                                                          envOf({{"ACCELERATE_MIXED_PRECISION", "fp16"}}));
    QVERIFY(explicitMp.mixedPrecision == MixedPrecision::No);
    QVERIFY(ft::resolveAcceleratorOptions({}, envOf({{"ACCELERATE_MIXED_PRECISION", "FP16"}})).mixedPrecision ==
            MixedPrecision::Fp16);

    // ... while ACCELERATE_GRADIENT_ACCUMULATION_STEPS overrides the constructor's value (G8: Accelerate parses
    // the variable with the argument as its default).
    const auto envSteps = ft::resolveAcceleratorOptions({.gradientAccumulationSteps = 2},
                                                        envOf({{"ACCELERATE_GRADIENT_ACCUMULATION_STEPS", "8"}}));
    QCOMPARE(envSteps.gradientAccumulationSteps, 8);
    QCOMPARE(ft::resolveAcceleratorOptions({.gradientAccumulationSteps = 2}, noEnv).gradientAccumulationSteps, 2);
  }

  void badOptionsAreConfigErrors() {
    const auto badSteps = thrownMessage<fathom::ConfigError>([] {
      ft::resolveAcceleratorOptions({}, envOf({{"ACCELERATE_GRADIENT_ACCUMULATION_STEPS", "four"}}));
    });
    QVERIFY(badSteps.has_value());
    QVERIFY2(badSteps->find("ACCELERATE_GRADIENT_ACCUMULATION_STEPS") != std::string::npos, badSteps->c_str());

    const auto partial = thrownMessage<fathom::ConfigError>([] {
      ft::resolveAcceleratorOptions({}, envOf({{"ACCELERATE_GRADIENT_ACCUMULATION_STEPS", "4x"}}));
    });
    QVERIFY(partial.has_value());

    const auto badMp = thrownMessage<fathom::ConfigError>([] {
      ft::resolveAcceleratorOptions({}, envOf({{"ACCELERATE_MIXED_PRECISION", "fp32"}}));
    });
    QVERIFY(badMp.has_value());
    QVERIFY2(badMp->find("ACCELERATE_MIXED_PRECISION") != std::string::npos, badMp->c_str());

    const auto zero = thrownMessage<fathom::ConfigError>(
        [] { ft::resolveAcceleratorOptions({.gradientAccumulationSteps = 0}, noEnv); });
    QVERIFY(zero.has_value());
    QVERIFY2(zero->find("gradient_accumulation_steps") != std::string::npos, zero->c_str());
    QVERIFY(thrownMessage<fathom::ConfigError>([] {
              ft::resolveAcceleratorOptions({}, envOf({{"ACCELERATE_GRADIENT_ACCUMULATION_STEPS", "0"}}));
            }).has_value());
    QVERIFY(thrownMessage<fathom::ConfigError>([] { makeAccelerator({.gradientAccumulationSteps = -1}); }).has_value());

    const auto fp8 = thrownMessage<fathom::ConfigError>(
        [] { ft::resolveAcceleratorOptions({.mixedPrecision = MixedPrecision::Fp8}, noEnv); });
    QVERIFY(fp8.has_value());
    QVERIFY2(fp8->find("fp8") != std::string::npos, fp8->c_str());
    QVERIFY(thrownMessage<fathom::ConfigError>([] {
              ft::resolveAcceleratorOptions({}, envOf({{"ACCELERATE_MIXED_PRECISION", "fp8"}}));
            }).has_value());
  }

  // ---- 13. autocast -----------------------------------------------------------------------------------------------
  void autocastRegions() {
    constexpr auto kCpu = c10::DeviceType::CPU;
    QVERIFY(!fathom::compat::isAutocastEnabled(kCpu));
    {
      auto acc = makeAccelerator({.mixedPrecision = MixedPrecision::No});
      auto region = acc->autocast();
      QVERIFY(!region.active());
      QVERIFY(!fathom::compat::isAutocastEnabled(kCpu));
    }
    {
      auto acc = makeAccelerator({.mixedPrecision = MixedPrecision::Bf16});
      QVERIFY(acc->scaler() == nullptr);
      {
        auto region = acc->autocast();
        QVERIFY(region.active());
        QVERIFY(fathom::compat::isAutocastEnabled(kCpu));
        QCOMPARE(fathom::compat::autocastDtype(kCpu), at::kBFloat16);
        const auto a = torch::randn({4, 4});
        QCOMPARE(torch::mm(a, a).scalar_type(), at::kBFloat16);
      }
      QVERIFY(!fathom::compat::isAutocastEnabled(kCpu));
      {
        auto off = acc->autocast({.enabled = false});
        QVERIFY(!off.active());
        QVERIFY(!fathom::compat::isAutocastEnabled(kCpu));
      }
    }
    {
      auto acc = makeAccelerator({.mixedPrecision = MixedPrecision::Fp16});
      QVERIFY(acc->scaler() != nullptr);
      QCOMPARE(acc->scaler()->getScale(), 65536.0);
      if constexpr (!fathom::compat::kCpuAutocastSupportsFp16) {
        const auto error = thrownMessage<fathom::ConfigError>([&] { auto region = acc->autocast(); });
        QVERIFY(error.has_value());
        QVERIFY2(error->find("2.3") != std::string::npos, error->c_str());
      } else {
        auto region = acc->autocast();
        QVERIFY(region.active());
      }
      QVERIFY(!fathom::compat::isAutocastEnabled(kCpu));
    }
  }

  // ---- 14. fp16 overflow ------------------------------------------------------------------------------------------
  void fp16OverflowSkipsTheStepAndTheScheduler() {
    auto acc = makeAccelerator({.mixedPrecision = MixedPrecision::Fp16});
    auto model = scalarModel(1.0f);
    auto sgd = std::make_shared<torch::optim::SGD>(model->parameters(), torch::optim::SGDOptions(0.1));
    auto sched = std::make_shared<torch::optim::StepLR>(*sgd, 1, 0.5);
    auto [m, opt, s] = acc->prepare(model, sgd, sched);
    const auto x = torch::tensor({{1.0f}});

    {  // overflow
      auto pause = acc->accumulate();
      acc->backward(m(x).sum() * std::numeric_limits<float>::infinity());
      QVERIFY(!std::isfinite(model->weight.grad().item<float>()));
      opt->step();
      s->step();
      opt->zeroGrad();
    }
    QCOMPARE(weightOf(model), 1.0f);
    QVERIFY(opt->stepWasSkipped());
    QVERIFY(acc->optimizerStepWasSkipped());
    QCOMPARE(acc->scaler()->getScale(), 32768.0);
    QCOMPARE(s->innerSteps(), std::int64_t{0});
    QCOMPARE(lrOf(*sgd), 0.1);

    {  // a normal batch: the scaled gradient is unscaled before the step
      auto pause = acc->accumulate();
      acc->backward(m(x).sum());
      QCOMPARE(model->weight.grad().item<float>(), 32768.0f);
      opt->step();
      s->step();
      opt->zeroGrad();
    }
    QCOMPARE(weightOf(model), 0.9f);
    QVERIFY(!opt->stepWasSkipped());
    QVERIFY(!acc->optimizerStepWasSkipped());
    QCOMPARE(acc->scaler()->getScale(), 32768.0);
    QCOMPARE(s->innerSteps(), std::int64_t{1});
  }

  void fp16ClipGradNormUnscalesFirst() {
    auto acc = makeAccelerator({.mixedPrecision = MixedPrecision::Fp16});
    auto model = scalarModel(1.0f);
    auto sgd = std::make_shared<torch::optim::SGD>(model->parameters(), torch::optim::SGDOptions(0.1));
    auto [m, opt] = acc->prepare(model, sgd);
    acc->backward(m(torch::tensor({{3.0f}})).sum());
    const double norm = acc->clipGradNorm_(model->parameters(), 1.0);
    QCOMPARE(norm, 3.0);  // unscaled norm, not 3 * 65536
    QVERIFY(std::abs(model->weight.grad().item<float>() - 1.0f) < 1e-5f);
    opt->step();  // does not unscale a second time
    QVERIFY(std::abs(weightOf(model) - 0.9f) < 1e-5f);
  }

  // ---- 15. prepare ------------------------------------------------------------------------------------------------
  void prepareKeepsOrderAndTypes() {
    auto acc = makeAccelerator();
    auto net = std::make_shared<Net>();
    auto sgd = std::make_shared<torch::optim::SGD>(net->parameters(), torch::optim::SGDOptions(0.1));
    auto sched = std::make_shared<torch::optim::StepLR>(*sgd, 1, 0.5);
    const fd::DataLoader loader = rangeLoader(8, {.batchSize = 4});
    auto prepared = acc->prepare(sched, net, 42, loader, sgd);
    using T = decltype(prepared);
    static_assert(std::tuple_size_v<T> == 5);
    static_assert(std::is_same_v<std::tuple_element_t<0, T>, std::shared_ptr<ft::AcceleratedScheduler>>);
    static_assert(std::is_same_v<std::tuple_element_t<1, T>, std::shared_ptr<Net>>);
    static_assert(std::is_same_v<std::tuple_element_t<2, T>, int>);
    static_assert(std::is_same_v<std::tuple_element_t<3, T>, std::shared_ptr<ft::DataLoaderShard>>);
    static_assert(std::is_same_v<std::tuple_element_t<4, T>, std::shared_ptr<ft::AcceleratedOptimizer>>);
    auto& [s, m, n, l, o] = prepared;
    QCOMPARE(&s->scheduler(), static_cast<torch::optim::LRScheduler*>(sched.get()));
    QCOMPARE(m.get(), net.get());
    QCOMPARE(n, 42);
    QCOMPARE(l->size(), std::int64_t{2});
    QCOMPARE(o->shared().get(), static_cast<torch::optim::Optimizer*>(sgd.get()));
    QCOMPARE(&o->optimizer(), static_cast<torch::optim::Optimizer*>(sgd.get()));
    QVERIFY(acc->unwrapModel(m) == net);

    torch::nn::Linear linear(torch::nn::LinearOptions(1, 1));
    auto [lin] = acc->prepare(linear);
    static_assert(std::is_same_v<decltype(lin), torch::nn::Linear>);
    QCOMPARE(lin.ptr().get(), linear.ptr().get());
    QVERIFY(lin->weight.device().is_cpu());
  }

  void preparingAModelTwiceIsHarmlessInOneProcess() {
    auto acc = makeAccelerator({.gradientAccumulationSteps = 2});
    auto net = std::make_shared<Net>();
    auto [a] = acc->prepare(net);
    auto [b] = acc->prepare(net);  // no DDP reducer in one process, so nothing to register twice
    QCOMPARE(a.get(), b.get());
    QVERIFY(acc->reducerFor(*net) == nullptr);
    {
      auto pause = acc->accumulate(net);
      QVERIFY(!acc->syncGradients());
      auto noSync = acc->noSync(net);
    }
    QVERIFY(thrownMessage<fathom::ConfigError>([&] { acc->prepare(std::shared_ptr<Net>()); }).has_value());
    QVERIFY(
        thrownMessage<fathom::ConfigError>([&] { acc->prepare(std::shared_ptr<torch::optim::SGD>()); }).has_value());
  }
};

QTEST_GUILESS_MAIN(TestAccelerator)
#include "tst_accelerator.moc"
