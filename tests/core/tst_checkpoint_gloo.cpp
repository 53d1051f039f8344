// SPDX-License-Identifier: Apache-2.0
// Exact resume across real Gloo process groups (separate processes on 127.0.0.1): for each strategy, 20
// optimizer steps straight (saving after 10) must equal loadState in NEW processes + the last 10 steps, bit for bit
// (parameters, optimizer states, learning rate, RNG), with shuffling, gradient accumulation, AdamW, StepLR and an
// input noise drawn from the global RNG. The test hosts the store and starts copies of itself as workers
// (tests/support/worker_group.h); the scenario travels in FATHOM_TEST_SCENARIO, the folder in FATHOM_TEST_DIR.
#include "rank_checker.h"
#include "worker_group.h"

#include <fathom/checkpoint/checkpoint_folder.h>
#include <fathom/checkpoint/training_state.h>
#include <fathom/io/safetensors.h>
#include <fathom/models/model.h>
#include <fathom/models/model_factory.h>
#include <fathom/models/regression_dataset.h>
#include <fathom/train/accelerator.h>

#include <ATen/ATen.h>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <torch/optim/adamw.h>
#include <torch/optim/schedulers/step_lr.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>

using namespace Qt::StringLiterals;
using fathom::train::Accelerator;
using Checker = fathom::test::RankChecker;

namespace {

constexpr std::int64_t kHidden = 16;
constexpr int kHalf = 10;  ///< optimizer steps before the checkpoint; the run takes twice as many

fathom::runtime::ProcessState stateFor(int rank, int world, int port) {
  return fathom::test::workerProcessState(rank, world, port);
}

/// The accelerator options of `strategy`: "ddp", "fsdp" (FULL_SHARD, full state dict), "fsdp-sharded" (FULL_SHARD,
/// SHARDED_STATE_DICT), "shard_grad_op", "hybrid" (HYBRID_SHARD, shard groups of 2), "fsdp-offload", "zero1",
/// "zero2", "zero3", "zero1-offload", "zero2-offload", "zero3-offload"; a "+bf16" suffix adds bf16 autocast.
fathom::train::AcceleratorOptions optionsFor(std::string strategy, int timeoutMs, const std::string& dir) {
  fathom::train::AcceleratorOptions options;
  options.cpu = true;
  options.processGroup.storeRole = fathom::runtime::StoreRole::ClientOnly;  // the test hosts the store
  options.processGroup.timeout = std::chrono::milliseconds(timeoutMs);
  options.gradientAccumulationSteps = 2;
  options.projectDir = dir;
  options.checkpoint.automaticCheckpointNaming = true;
  if (const auto plus = strategy.find("+bf16"); plus != std::string::npos) {
    options.mixedPrecision = fathom::precision::MixedPrecision::Bf16;
    strategy = strategy.substr(0, plus);
  }
  using fathom::parallel::FsdpShardingStrategy;
  if (strategy.rfind("fsdp", 0) == 0 || strategy == "shard_grad_op" || strategy == "hybrid") {
    fathom::parallel::FsdpOptions fsdp;
    fsdp.shardingStrategy = strategy == "shard_grad_op" ? FsdpShardingStrategy::ShardGradOp
                            : strategy == "hybrid"      ? FsdpShardingStrategy::HybridShard
                                                        : FsdpShardingStrategy::FullShard;
    if (strategy == "hybrid")
      fsdp.shardGroupSize = 2;
    if (strategy == "fsdp-sharded")
      fsdp.stateDictType = fathom::parallel::FsdpStateDictType::ShardedStateDict;
    fsdp.offloadParams = strategy == "fsdp-offload";
    options.fsdp = fsdp;
  } else if (strategy.rfind("zero", 0) == 0) {
    fathom::parallel::ZeroOptions zero;
    zero.stage = strategy[4] - '0';
    zero.reduceBucketSize = 200;  // several buckets, so the optimizer holds several shards
    if (strategy.find("offload") != std::string::npos)
      zero.offloadOptimizer = fathom::parallel::OffloadDevice::Cpu;
    options.deepspeed = zero;
  }
  return options;
}

/// One phase of the resume test: "straight" trains 2·kHalf steps and saves a checkpoint after kHalf of them (which
/// must not disturb it), "resumed" loads that checkpoint in new processes and trains to 2·kHalf. Both write what must
/// be identical.
void resumeScenario(Checker& c, const std::string& phase, const std::string& strategy, int rank, int world, int port,
                    int timeoutMs, const std::string& dir) {
  Accelerator accelerator(optionsFor(strategy, timeoutMs, dir), stateFor(rank, world, port));
  fathom::models::ModelRequest request;
  request.set(fathom::models::ModelDimension::Hidden, kHidden).set(fathom::models::ModelDimension::Layers, 3);
  torch::manual_seed(7);
  std::shared_ptr<fathom::models::Model> model0 = fathom::models::makeModel(request);
  auto optimizer0 =
      std::make_shared<torch::optim::AdamW>(model0->parameters(), torch::optim::AdamWOptions(1e-2).weight_decay(0.01));
  auto scheduler0 = std::make_shared<torch::optim::StepLR>(*optimizer0, 3, 0.5);
  // 52 samples, batches of 3 per rank: an uneven last round, so even_batches tops it up from the start.
  auto dataset = std::make_shared<fathom::models::RegressionDataset>(
      fathom::models::RegressionDatasetOptions{.numSamples = 52, .dim = kHidden, .seed = 3});
  fathom::data::DataLoader loader0(dataset, {.batchSize = 3, .shuffle = true, .seed = 11});
  auto [model, optimizer, scheduler, loader] = accelerator.prepare(model0, optimizer0, scheduler0, loader0);

  const int target = 2 * kHalf;
  if (phase == "resumed") {
    const auto folder = accelerator.loadState();
    c.check(folder.filename() == "checkpoint_0", "loaded ", folder.string());
    c.check(accelerator.optimizerSteps() == kHalf, "optimizer steps after load: ", accelerator.optimizerSteps());
  }
  // Resume where the checkpoint left off: its epoch, then the next batch of it (the loader carries the skip).
  for (std::int64_t epoch = loader->epoch(); accelerator.optimizerSteps() < target; ++epoch) {
    loader->setEpoch(epoch);
    for (const auto& batch : *loader) {
      auto sync = accelerator.accumulate();
      const at::Tensor input = batch.input + 0.05 * at::randn(batch.input.sizes());  // consumes the global RNG
      at::Tensor loss;
      {
        auto autocast = accelerator.autocast();
        loss = model->loss(model->forward(input), batch.target);
      }
      accelerator.backward(loss);
      optimizer->step();
      scheduler->step();
      optimizer->zeroGrad();
      if (accelerator.syncGradients() && accelerator.optimizerSteps() == kHalf && phase == "straight") {
        accelerator.saveState();
        // The full model at the checkpoint, to compare with what mergeShardedModel puts together from the files.
        fathom::io::writeSafetensors(dir + "/saved_rank" + std::to_string(rank) + ".safetensors",
                                     accelerator.getStateDict(model, /*rank0Only=*/false));
      }
      if (accelerator.syncGradients() && accelerator.optimizerSteps() == target)
        break;
    }
  }
  // What must match: every parameter, this rank's optimizer state (its shards), the learning rate, the RNG.
  std::vector<std::pair<std::string, at::Tensor>> out;
  for (auto& [name, t] : accelerator.getStateDict(model, /*rank0Only=*/false))
    out.emplace_back("model/" + name, t);
  for (auto& [name, t] : fathom::checkpoint::optimizerStateDict(optimizer->optimizer()).tensors)
    out.emplace_back("optimizer/" + name, t);
  out.emplace_back("lr", at::scalar_tensor(optimizer->optimizer().param_groups()[0].options().get_lr(), at::kDouble));
  out.emplace_back("rng", at::randn({4}));
  out.emplace_back("position", at::scalar_tensor(loader->batchesConsumed(), at::kLong));
  fathom::io::writeSafetensors(dir + "/" + phase + "_rank" + std::to_string(rank) + ".safetensors", out);
}

int runWorker(int rank, int world, int port, int timeoutMs) {
  return fathom::test::runRankChecks(rank, [&](Checker& c) {
    const std::string scenario = std::getenv("FATHOM_TEST_SCENARIO");
    const std::string dir = std::getenv("FATHOM_TEST_DIR");
    const auto colon = scenario.find(':');
    resumeScenario(c, scenario.substr(0, colon), scenario.substr(colon + 1), rank, world, port, timeoutMs, dir);
  });
}

}  // namespace

class TestCheckpointGloo : public QObject {
  Q_OBJECT

  /// Runs one phase on `world` processes; returns their results (exit code 0 expected unless checked otherwise).
  static QList<fathom::test::WorkerResult> startPhase(const QString& phase, const QString& strategy, int world,
                                                      const QString& dir) {
    return fathom::test::runScenarioPhase(phase, strategy, world, dir);
  }
  static void runPhase(const QString& phase, const QString& strategy, int world, const QString& dir) {
    const QString failure =
        fathom::test::firstFailure(startPhase(phase, strategy, world, dir), phase + u' ' + strategy);
    QVERIFY2(failure.isEmpty(), qPrintable(failure));
  }
  static void addRows(const std::vector<std::pair<const char*, int>>& rows) {
    QTest::addColumn<QString>("strategy");
    QTest::addColumn<int>("world");
    for (const auto& [s, world] : rows)
      QTest::addRow("%s x%d", s, world) << QString::fromLatin1(s) << world;
  }

private slots:
#if defined(FATHOM_CHECKPOINT_FOUR_RANKS)
  // Every strategy on 4 processes, and the rows the other two leave out (issue 22's matrix), as a third executable.
  void resumeIsBitExact_data() {
    addRows({{"ddp", 4},
             {"fsdp", 4},
             {"shard_grad_op", 4},
             {"hybrid", 2},
             {"zero1", 4},
             {"zero1-offload", 2},
             {"zero1-offload", 4},
             {"fsdp-offload", 4},
             {"zero2", 4},
             {"zero2-offload", 4},
             {"zero3-offload", 4},
             {"ddp+bf16", 2},
             { "zero3+bf16",
               4 }});
  }
#elif !defined(FATHOM_CHECKPOINT_WIDE)
  void resumeIsBitExact_data() {
    addRows({{"ddp", 2}, {"fsdp", 2}, {"fsdp-sharded", 2}, {"zero1", 2}, {"zero2", 2}, { "zero3", 2 }});
  }
#else
  // The wider matrix, as its own executable (tst_checkpoint_resume_wide) so each stays within CI's per-test budget.
  void resumeIsBitExact_data() {
    addRows({{"shard_grad_op", 2},
             {"fsdp-offload", 2},
             {"zero2-offload", 2},
             {"zero3-offload", 2},
             {"fsdp+bf16", 2},
             {"hybrid", 4},
             {"zero3", 4}});
  }
#endif
  void resumeIsBitExact() {
    QFETCH(QString, strategy);
    QFETCH(int, world);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    runPhase(u"straight"_s, strategy, world, dir.path());
    runPhase(u"resumed"_s, strategy, world, dir.path());
    // A sharded model (FSDP SHARDED_STATE_DICT, ZeRO-3) merges into the full state dict without those processes.
    const std::filesystem::path checkpoint = dir.path().toStdString() + "/checkpoints/checkpoint_0";
    if (std::filesystem::exists(checkpoint / "model_rank0.safetensors")) {
      const auto merged = fathom::checkpoint::mergeShardedModel(checkpoint);
      const auto saved = fathom::io::readSafetensors(dir.path().toStdString() + "/saved_rank0.safetensors");
      QCOMPARE(merged.size(), saved.tensors.size());
      for (const auto& [name, t] : saved.tensors) {
        const auto it = std::find_if(merged.begin(), merged.end(), [&](const auto& m) { return m.first == name; });
        QVERIFY2(it != merged.end() && at::equal(it->second, t), name.c_str());
      }
    }
    for (int rank = 0; rank < world; ++rank) {
      const auto suffix = u"_rank%1.safetensors"_s.arg(rank);
      const auto straight = fathom::io::readSafetensors((dir.path() + u"/straight"_s + suffix).toStdString());
      const auto resumed = fathom::io::readSafetensors((dir.path() + u"/resumed"_s + suffix).toStdString());
      QCOMPARE(resumed.tensors.size(), straight.tensors.size());
      QVERIFY(straight.tensors.size() > 4);
      for (std::size_t i = 0; i < straight.tensors.size(); ++i) {
        const auto& [name, a] = straight.tensors[i];
        const auto& [resumedName, b] = resumed.tensors[i];
        QCOMPARE(resumedName, name);
        QVERIFY2(a.sizes() == b.sizes(), name.c_str());
        const double diff = a.numel() == 0 ? 0.0 : (a.to(at::kDouble) - b.to(at::kDouble)).abs().max().item<double>();
        QVERIFY2(diff == 0.0, qPrintable(u"rank %1, %2: max abs difference %3"_s.arg(rank)
                                             .arg(QString::fromStdString(name))
                                             .arg(diff, 0, 'g', 17)));
      }
    }
  }

#ifdef FATHOM_CHECKPOINT_WIDE
  /// Sharded files of another strategy, and a missing rank file: every process fails, naming the file.
  void anotherLayoutAndAMissingRankFileAreRefused() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    runPhase(u"straight"_s, u"zero3"_s, 2, dir.path());
    auto results = startPhase(u"resumed"_s, u"zero2"_s, 2, dir.path());
    for (int rank = 0; rank < 2; ++rank) {
      const QString expected = u"model_rank%1.safetensors: a sharded file saved by 2 process(es) with strategy zero3; "
                               u"this run has 2 with strategy zero2"_s.arg(rank);
      QVERIFY2(results[rank].exitCode == 3 && results[rank].err.contains(expected), qPrintable(results[rank].err));
    }
    QVERIFY(QFile::remove(dir.path() + u"/checkpoints/checkpoint_0/optimizer_rank1.safetensors"_s));
    results = startPhase(u"resumed"_s, u"zero3"_s, 2, dir.path());
    QVERIFY2(results[1].exitCode == 3 && results[1].err.contains(u"optimizer_rank1.safetensors is missing"_s),
             qPrintable(results[1].err));
    QVERIFY2(results[0].exitCode == 3 && results[0].err.contains(u"process(es) 1 failed"_s),
             qPrintable(results[0].err));
  }
#endif
};

int main(int argc, char** argv) {
  if (argc == 6 && std::string_view(argv[1]) == "--worker") {
    return runWorker(std::atoi(argv[2]), std::atoi(argv[3]), std::atoi(argv[4]), std::atoi(argv[5]));
  }
  QCoreApplication app(argc, argv);
  TestCheckpointGloo test;
  return QTest::qExec(&test, argc, argv);
}
#include "tst_checkpoint_gloo.moc"
