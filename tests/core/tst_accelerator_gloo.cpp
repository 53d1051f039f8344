// SPDX-License-Identifier: Apache-2.0
// fathom::Accelerator across real Gloo process groups (separate processes on 127.0.0.1): gather_for_metrics on
// uneven data under every loader mode, the fp16 overflow path across ranks, the collective helpers, and DDP's
// communication under gradient accumulation. The test hosts the store and starts copies of itself as workers
// (tests/support/worker_group.h); the scenario travels in FATHOM_TEST_SCENARIO.
#include "rank_checker.h"
#include "worker_group.h"

#include <fathom/parallel/comm_record.h>
#include <fathom/parallel/ddp_reducer.h>
#include <fathom/precision/grad_scaler.h>
#include <fathom/train/accelerator.h>

#include <ATen/ATen.h>
#include <QTest>
#include <torch/nn/modules/linear.h>
#include <torch/optim/schedulers/step_lr.h>
#include <torch/optim/sgd.h>

#include <cstdlib>
#include <iostream>
#include <numeric>
#include <sstream>
#include <string>

using namespace Qt::StringLiterals;
using fathom::train::Accelerator;

namespace {

/// Sample i is the value i (input and target), so gathered metrics show exactly which samples came back.
class IndexDataset : public fathom::data::Dataset {
public:
  explicit IndexDataset(std::int64_t n) : m_n(n) {}
  std::int64_t size() const override { return m_n; }
  fathom::data::Example get(std::int64_t i) const override {
    return {at::full({1}, static_cast<double>(i), at::kFloat), at::full({1}, static_cast<double>(i), at::kFloat)};
  }

private:
  std::int64_t m_n;
};

class IndexStream : public fathom::data::IterableDataset {
public:
  explicit IndexStream(std::int64_t n) : m_n(n) {}
  void reset() override { m_next = 0; }
  std::optional<fathom::data::Example> next() override {
    if (m_next >= m_n)
      return std::nullopt;
    const double v = static_cast<double>(m_next++);
    return fathom::data::Example{at::full({1}, v, at::kFloat), at::full({1}, v, at::kFloat)};
  }

private:
  std::int64_t m_n;
  std::int64_t m_next = 0;
};

using Checker = fathom::test::RankChecker;

fathom::runtime::ProcessState stateFor(int rank, int world, int port) {
  return fathom::test::workerProcessState(rank, world, port);
}

fathom::train::AcceleratorOptions baseOptions(int timeoutMs) {
  fathom::train::AcceleratorOptions options;
  options.cpu = true;
  options.processGroup.storeRole = fathom::runtime::StoreRole::ClientOnly;  // the test hosts the store
  options.processGroup.timeout = std::chrono::milliseconds(timeoutMs);
  return options;
}

std::string join(const std::vector<std::int64_t>& v) {
  std::ostringstream out;
  for (auto x : v)
    out << x << ' ';
  return out.str();
}

/// Iterates a prepared loader, gathering every batch for metrics; rank 0 checks it got exactly 0..n-1 in order.
void metricsScenario(Checker& c, const std::string& mode, int rank, int world, int port, int timeoutMs) {
  auto options = baseOptions(timeoutMs);
  const bool iterable = mode.find("iterable") != std::string::npos;
  const std::int64_t n = iterable ? 30 : 82;
  std::int64_t batchSize = iterable ? 4 : 16;
  if (mode.find("split") != std::string::npos) {
    options.dataLoader.splitBatches = true;
    batchSize *= world;
  }
  if (mode.find("dispatch") != std::string::npos)
    options.dataLoader.dispatchBatches = true;
  // Iterable loaders dispatch by default (Accelerate): "metrics-iterable" runs that way.
  Accelerator accelerator(options, stateFor(rank, world, port));
  fathom::data::DataLoader loader =
      iterable ? fathom::data::DataLoader(std::make_shared<IndexStream>(n), {.batchSize = batchSize})
               : fathom::data::DataLoader(std::make_shared<IndexDataset>(n), {.batchSize = batchSize});
  auto [prepared] = accelerator.prepare(loader);
  for (int epoch = 0; epoch < 2; ++epoch) {  // twice: the state must reset between passes
    std::vector<std::int64_t> seen;
    std::int64_t batches = 0;
    for (const auto& batch : *prepared) {
      at::Tensor gathered = accelerator.gatherForMetrics(batch.input.view({-1}));
      for (std::int64_t i = 0; i < gathered.size(0); ++i)
        seen.push_back(gathered[i].item<std::int64_t>());
      ++batches;
    }
    std::vector<std::int64_t> expected(static_cast<std::size_t>(n));
    std::iota(expected.begin(), expected.end(), 0);
    c.check(seen == expected, mode, " epoch ", epoch, ": gathered ", seen.size(), " samples: ", join(seen));
    c.check(prepared->size() < 0 || prepared->size() == batches, mode, ": size() ", prepared->size(), " but ", batches,
            " batches");
  }
}

/// fp16: a step whose gradients overflow on one rank is skipped on every rank and halves the scale.
void fp16Scenario(Checker& c, int rank, int world, int port, int timeoutMs) {
  auto options = baseOptions(timeoutMs);
  options.mixedPrecision = fathom::precision::MixedPrecision::Fp16;
  Accelerator accelerator(options, stateFor(rank, world, port));
  torch::manual_seed(1);
  torch::nn::Linear model0(torch::nn::LinearOptions(4, 1));
  auto optimizer0 = std::make_shared<torch::optim::SGD>(model0->parameters(), torch::optim::SGDOptions(0.1));
  auto scheduler0 = std::make_shared<torch::optim::StepLR>(*optimizer0, 1, 0.5);
  auto [model, optimizer, scheduler] = accelerator.prepare(model0, optimizer0, scheduler0);
  auto x = at::ones({2, 4}) * (rank + 1);

  auto runStep = [&](double lossFactor) {
    at::Tensor loss = model->forward(x).sum() * lossFactor;
    accelerator.backward(loss);
    optimizer->step();
    scheduler->step();
    optimizer->zeroGrad();
  };
  const double inf = std::numeric_limits<double>::infinity();
  const at::Tensor w0 = model->weight.detach().clone();
  runStep(1.0);
  const at::Tensor w1 = model->weight.detach().clone();
  c.check(!accelerator.optimizerStepWasSkipped(), "first step skipped");
  c.check(!at::equal(w0, w1), "first step did not change the weights");
  c.check(accelerator.scaler()->getScale() == 65536.0, "scale after a good step: ", accelerator.scaler()->getScale());
  c.check(scheduler->innerSteps() == world, "scheduler stepped ", scheduler->innerSteps(), " times, expected ", world);

  runStep(rank == world - 1 ? inf : 1.0);  // only the last rank overflows; the average is inf everywhere
  c.check(accelerator.optimizerStepWasSkipped(), "overflowing step was not skipped");
  c.check(at::equal(model->weight.detach(), w1), "overflowing step changed the weights");
  c.check(accelerator.scaler()->getScale() == 32768.0, "scale after overflow: ", accelerator.scaler()->getScale());
  c.check(scheduler->innerSteps() == world, "scheduler stepped on a skipped step");

  runStep(1.0);
  c.check(!accelerator.optimizerStepWasSkipped(), "third step skipped");
  c.check(!at::equal(model->weight.detach(), w1), "third step did not change the weights");
  // Same weights on every rank after all of it.
  at::Tensor gathered = accelerator.gather(model->weight.detach().view({1, -1}));
  for (int r = 1; r < world; ++r)
    c.check(at::equal(gathered[0], gathered[r]), "rank ", r, " weights differ");
}

void collectivesScenario(Checker& c, int rank, int world, int port, int timeoutMs) {
  Accelerator accelerator(baseOptions(timeoutMs), stateFor(rank, world, port));
  const double sum = world * (world + 1) / 2.0;  // Σ (rank + 1)
  const at::Tensor mine = at::full({2}, rank + 1.0);
  c.check(accelerator.reduce(mine).equal(at::full({2}, sum)), "reduce sum");
  c.check(accelerator.reduce(mine, fathom::train::Reduction::Mean).allclose(at::full({2}, sum / world)), "mean");
  c.check(accelerator.reduce(mine, fathom::train::Reduction::Max).equal(at::full({2}, double(world))), "max");
  c.check(mine.equal(at::full({2}, rank + 1.0)), "reduce changed its input");
  c.check(accelerator.broadcast(mine, world - 1).equal(at::full({2}, double(world))), "broadcast from last");

  at::Tensor gathered = accelerator.gather(at::tensor(static_cast<std::int64_t>(rank)));
  c.check(gathered.equal(at::arange(world, at::kLong)), "gather of 0-dim tensors");

  // Rank r has r + 1 rows; padding makes world rows everywhere, filled with -1 at the end (or the start).
  at::Tensor rows = at::full({rank + 1, 3}, 1.0);
  at::Tensor padded = accelerator.padAcrossProcesses(rows, 0, -1);
  c.check(padded.size(0) == world && padded.size(1) == 3, "pad shape ", padded.sizes());
  c.check(padded.slice(0, rank + 1).eq(-1).all().item<bool>(), "pad value");
  at::Tensor first = accelerator.padAcrossProcesses(rows, 0, -1, true);
  c.check(first.slice(0, 0, world - rank - 1).eq(-1).all().item<bool>() &&
              first.slice(0, world - rank - 1).eq(1).all().item<bool>(),
          "pad_first");

  c.check(!accelerator.checkTrigger(), "trigger set without anyone setting it");
  if (rank == world - 1)
    accelerator.setTrigger();
  c.check(accelerator.checkTrigger(), "trigger of the last rank not seen");
  c.check(!accelerator.checkTrigger(), "trigger not reset");

  std::vector<int> items(10);
  std::iota(items.begin(), items.end(), 0);
  const auto share = accelerator.splitBetweenProcesses(items);
  const auto all = accelerator.gather(at::tensor(static_cast<std::int64_t>(share.size())));
  c.check(all.sum().item<std::int64_t>() == 10, "split_between_processes lost items");
  const auto padded10 = accelerator.splitBetweenProcesses(items, true);
  c.check(static_cast<int>(padded10.size()) == (10 + world - 1) / world, "padded share size ", padded10.size());
  { auto first = accelerator.mainProcessFirst(); }
  accelerator.waitForEveryone();
}

/// DDP under accumulate(): gradients are all-reduced only on sync batches, one call per bucket, and the
/// per-step totals say so.
void accumulationScenario(Checker& c, int rank, int world, int port, int timeoutMs) {
  auto options = baseOptions(timeoutMs);
  options.gradientAccumulationSteps = 2;
  Accelerator accelerator(options, stateFor(rank, world, port));
  torch::manual_seed(static_cast<std::uint64_t>(rank));  // different per rank: DDP must broadcast rank 0's
  torch::nn::Linear model0(torch::nn::LinearOptions(8, 2));
  auto optimizer0 = std::make_shared<torch::optim::SGD>(model0->parameters(), torch::optim::SGDOptions(0.1));
  fathom::data::DataLoader loader(std::make_shared<IndexDataset>(40), {.batchSize = 2});
  auto [model, optimizer, batches] = accelerator.prepare(model0, optimizer0, loader);
  const auto* reducer = accelerator.reducerFor(*model.ptr());
  c.check(reducer != nullptr, "no reducer for the prepared model");
  if (!reducer)
    return;
  std::int64_t count = 0;
  for (const auto& batch : *batches) {
    auto sync = accelerator.accumulate(model);
    at::Tensor loss = model->forward(batch.input.expand({-1, 8})).pow(2).mean();
    accelerator.backward(loss);
    optimizer->step();
    optimizer->zeroGrad();
    if (++count == 8)
      break;
  }
  c.check(accelerator.optimizerSteps() == 4, "optimizer steps ", accelerator.optimizerSteps());
  const std::int64_t bytes = (8 * 2 + 2) * 4;
  for (std::int64_t step = 1; step <= 4; ++step) {
    const auto totals = accelerator.commStepTotals(step);
    c.check(totals.has_value(), "no comm totals for step ", step);
    if (!totals)
      continue;
    const auto& ar = (*totals)[fathom::parallel::CommKind::AllReduce];
    c.check(ar.count == static_cast<std::int64_t>(reducer->buckets().size()) && ar.bytes == bytes, "step ", step, ": ",
            ar.count, " all_reduce(s) of ", ar.bytes, " bytes, expected ", reducer->buckets().size(), " of ", bytes);
  }
  at::Tensor gathered = accelerator.gather(model->weight.detach().view({1, -1}));
  for (int r = 1; r < world; ++r)
    c.check(at::equal(gathered[0], gathered[r]), "rank ", r, " weights differ");
}

int runWorker(int rank, int world, int port, int timeoutMs) {
  const char* raw = std::getenv("FATHOM_TEST_SCENARIO");
  const std::string scenario = raw ? raw : "";
  return fathom::test::runRankChecks(rank, [&](Checker& c) {
    if (scenario.rfind("metrics", 0) == 0) {
      metricsScenario(c, scenario, rank, world, port, timeoutMs);
    } else if (scenario == "fp16") {
      fp16Scenario(c, rank, world, port, timeoutMs);
    } else if (scenario == "collectives") {
      collectivesScenario(c, rank, world, port, timeoutMs);
    } else if (scenario == "accumulation") {
      accumulationScenario(c, rank, world, port, timeoutMs);
    } else {
      c.check(false, "unknown scenario '", scenario, "'");
    }
  });
}

}  // namespace

class TestAcceleratorGloo : public QObject {
  Q_OBJECT

  static void runScenario(const QString& scenario, int world) {
    qputenv("FATHOM_TEST_SCENARIO", scenario.toUtf8());
    QList<int> ranks;
    for (int rank = 0; rank < world; ++rank)
      ranks << rank;
    const auto results = fathom::test::runWorkerGroup(world, ranks, 60'000);
    for (int rank = 0; rank < world; ++rank) {
      const auto& r = results[rank];
      QVERIFY2(r.exitCode == 0,
               qPrintable(u"%1, rank %2 exit %3:\n%4"_s.arg(scenario).arg(rank).arg(r.exitCode).arg(r.err)));
    }
  }

private slots:
  void gatherForMetricsReturnsExactlyTheDataset_data() {
    QTest::addColumn<QString>("scenario");
    QTest::addColumn<int>("world");
    for (int world : {2, 3}) {
      for (const char* mode :
           {"metrics", "metrics-split", "metrics-dispatch", "metrics-dispatch-split", "metrics-iterable"}) {
        QTest::addRow("%s x%d", mode, world) << QString::fromLatin1(mode) << world;
      }
    }
  }
  void gatherForMetricsReturnsExactlyTheDataset() {
    QFETCH(QString, scenario);
    QFETCH(int, world);
    runScenario(scenario, world);
  }
  void fp16OverflowSkipsTheStepOnEveryRank() { runScenario(u"fp16"_s, 2); }
  void collectiveHelpers() {
    runScenario(u"collectives"_s, 2);
    runScenario(u"collectives"_s, 3);
  }
  void accumulationCommunicatesOnlyOnSyncSteps() { runScenario(u"accumulation"_s, 2); }
};

int main(int argc, char** argv) {
  if (argc == 6 && std::string_view(argv[1]) == "--worker") {
    return runWorker(std::atoi(argv[2]), std::atoi(argv[3]), std::atoi(argv[4]), std::atoi(argv[5]));
  }
  QCoreApplication app(argc, argv);
  TestAcceleratorGloo test;
  return QTest::qExec(&test, argc, argv);
}
#include "tst_accelerator_gloo.moc"
