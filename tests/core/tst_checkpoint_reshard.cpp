// SPDX-License-Identifier: Apache-2.0
// Resharding on load (issue 22; docs/checkpoint.md, "Resharding"), across real Gloo process groups (separate processes
// on 127.0.0.1): a sharded checkpoint (FSDP FULL_SHARD with SHARDED_STATE_DICT, ZeRO-3) saved on N processes loads on
// M, its parameters equal checkpoint::mergeShardedModel's full model exactly, and training continues with the
// losses of the N-process run (within 1e-5: the same samples per step, summed in another order). Bad cases: another
// strategy family and a missing rank file fail with the file named, and leave the model unchanged.
// The worker's scenario travels in FATHOM_TEST_SCENARIO ("phase:strategy"), the folder in FATHOM_TEST_DIR.
#include "rank_checker.h"
#include "worker_group.h"

#include <fathom/checkpoint/checkpoint_folder.h>
#include <fathom/common/error.h>
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
constexpr int kSaveAt = 3;  ///< optimizer steps before the checkpoint (mid-epoch: an epoch is 2 steps of 2 micro-steps)
constexpr int kSteps = 6;   ///< optimizer steps of a whole run
constexpr std::int64_t kGlobalBatch = 12;  ///< samples per micro-step on any number of processes

/// "fsdp-sharded" (FULL_SHARD, SHARDED_STATE_DICT), "shard_grad_op" (SHARD_GRAD_OP, SHARDED_STATE_DICT), "zero3",
/// "zero2" (full model, sharded optimizer), or "ddp" (for the strategy-family refusal).
fathom::train::AcceleratorOptions optionsFor(const std::string& strategy, int timeoutMs, const std::string& dir) {
  fathom::train::AcceleratorOptions options;
  options.cpu = true;
  options.processGroup.storeRole = fathom::runtime::StoreRole::ClientOnly;  // the test hosts the store
  options.processGroup.timeout = std::chrono::milliseconds(timeoutMs);
  options.gradientAccumulationSteps = 2;
  options.projectDir = dir;
  options.checkpoint.automaticCheckpointNaming = true;
  // split_batches: the loader's batch is the step's global batch on any number of processes, and the scheduler steps
  // once per optimizer step. Without it Accelerate steps the scheduler num_processes times per optimizer step, so a
  // run on 2 processes follows another schedule than one on 4 from the checkpoint on (docs/checkpoint.md).
  options.dataLoader.splitBatches = true;
  if (strategy == "fsdp-sharded" || strategy == "shard_grad_op") {
    fathom::parallel::FsdpOptions fsdp;
    fsdp.shardingStrategy = strategy == "shard_grad_op" ? fathom::parallel::FsdpShardingStrategy::ShardGradOp
                                                        : fathom::parallel::FsdpShardingStrategy::FullShard;
    fsdp.stateDictType = fathom::parallel::FsdpStateDictType::ShardedStateDict;
    options.fsdp = fsdp;
  } else if (strategy == "zero3" || strategy == "zero2") {
    fathom::parallel::ZeroOptions zero;
    zero.stage = strategy == "zero3" ? 3 : 2;
    zero.reduceBucketSize = 200;  // ZeRO-2: several buckets, so the optimizer holds several shards
    options.deepspeed = zero;
  }
  return options;
}

/// One run: "save" trains kSteps steps and saves checkpoint_0 after kSaveAt; "resume" loads it (on any number of
/// processes) and trains to kSteps; "refuse" tries to load it and must fail with the model unchanged. Every run
/// writes its per-micro-step losses after the checkpoint and its final parameters.
void scenario(Checker& c, const std::string& phase, const std::string& strategy, int rank, int world, int port,
              int timeoutMs, const std::string& dir) {
  // "<strategy>-2layers": another model (one block fewer), for the refusal.
  const bool fewerLayers = strategy.ends_with("-2layers");
  const std::string base = fewerLayers ? strategy.substr(0, strategy.size() - 8) : strategy;
  Accelerator accelerator(optionsFor(base, timeoutMs, dir), fathom::test::workerProcessState(rank, world, port));
  fathom::models::ModelRequest request;
  request.set(fathom::models::ModelDimension::Hidden, kHidden)
      .set(fathom::models::ModelDimension::Layers, fewerLayers ? 2 : 3);
  torch::manual_seed(7);
  std::shared_ptr<fathom::models::Model> model0 = fathom::models::makeModel(request);
  auto optimizer0 =
      std::make_shared<torch::optim::AdamW>(model0->parameters(), torch::optim::AdamWOptions(1e-2).weight_decay(0.01));
  auto scheduler0 = std::make_shared<torch::optim::StepLR>(*optimizer0, 2, 0.5);
  // 48 samples: 4 whole micro-steps of 12 per epoch, split across the processes, so every run takes the same samples
  // per step, and the losses can be compared across numbers of processes.
  auto dataset = std::make_shared<fathom::models::RegressionDataset>(
      fathom::models::RegressionDatasetOptions{.numSamples = 48, .dim = kHidden, .seed = 3});
  fathom::data::DataLoader loader0(dataset, {.batchSize = kGlobalBatch, .shuffle = true, .seed = 11});
  auto [model, optimizer, scheduler, loader] = accelerator.prepare(model0, optimizer0, scheduler0, loader0);
  const std::string tag = phase + "_" + strategy + "_x" + std::to_string(world) + "_rank" + std::to_string(rank);

  if (phase == "refuse") {
    const auto before = accelerator.getStateDict(model, /*rank0Only=*/false);
    try {
      accelerator.loadState();
      c.check(false, "loadState succeeded");
    } catch (const fathom::Error& e) {
      const auto after = accelerator.getStateDict(model, /*rank0Only=*/false);
      c.check(after.size() == before.size(), "state dict sizes differ after a failed load");
      for (std::size_t i = 0; i < std::min(after.size(), before.size()); ++i)
        c.check(at::equal(after[i].second, before[i].second), "a failed load changed ", after[i].first);
      c.check(accelerator.optimizerSteps() == 0, "a failed load changed the step count");
      throw;  // exit code 3 with the message, which the test reads
    }
    return;
  }
  if (phase == "resume") {
    const auto folder = accelerator.loadState();
    c.check(accelerator.optimizerSteps() == kSaveAt, "optimizer steps after load: ", accelerator.optimizerSteps());
    fathom::io::writeSafetensors(dir + "/loaded_" + tag + ".safetensors",
                                 accelerator.getStateDict(model, /*rank0Only=*/false));
  }
  std::vector<double> losses;
  for (std::int64_t epoch = loader->epoch(); accelerator.optimizerSteps() < kSteps; ++epoch) {
    loader->setEpoch(epoch);
    for (const auto& batch : *loader) {
      auto sync = accelerator.accumulate();
      const at::Tensor loss = model->loss(model->forward(batch.input), batch.target);
      if (accelerator.optimizerSteps() >= kSaveAt)
        losses.push_back(loss.item<double>());
      accelerator.backward(loss);
      optimizer->step();
      scheduler->step();
      optimizer->zeroGrad();
      if (accelerator.syncGradients() && accelerator.optimizerSteps() == kSaveAt && phase == "save")
        accelerator.saveState();
      if (accelerator.syncGradients() && accelerator.optimizerSteps() == kSteps)
        break;
    }
  }
  fathom::io::writeSafetensors(dir + "/losses_" + tag + ".safetensors", {{"losses", at::tensor(losses, at::kDouble)}});
  fathom::io::writeSafetensors(dir + "/final_" + tag + ".safetensors",
                               accelerator.getStateDict(model, /*rank0Only=*/false));
}

int runWorker(int rank, int world, int port, int timeoutMs) {
  return fathom::test::runRankChecks(rank, [&](Checker& c) {
    const std::string scenarioText = std::getenv("FATHOM_TEST_SCENARIO");
    const std::string dir = std::getenv("FATHOM_TEST_DIR");
    const auto colon = scenarioText.find(':');
    scenario(c, scenarioText.substr(0, colon), scenarioText.substr(colon + 1), rank, world, port, timeoutMs, dir);
  });
}

fathom::io::SafetensorsFile readResult(const QString& dir, const std::string& name) {
  return fathom::io::readSafetensors(dir.toStdString() + "/" + name + ".safetensors");
}

/// The losses of each micro-step of a run on `world` processes: the mean of the processes' losses (each the mean over
/// its equally sized batch, so this is the mean over the step's samples).
at::Tensor globalLosses(const QString& dir, const std::string& phase, const std::string& strategy, int world) {
  at::Tensor sum;
  for (int rank = 0; rank < world; ++rank) {
    const auto file = readResult(dir, "losses_" + phase + "_" + strategy + "_x" + std::to_string(world) + "_rank" +
                                          std::to_string(rank));
    sum = rank == 0 ? file.tensors.at(0).second.clone() : sum + file.tensors.at(0).second;
  }
  return sum / world;
}

double maxAbsDifference(const at::Tensor& a, const at::Tensor& b) {
  return a.numel() == 0 ? 0.0 : (a.to(at::kDouble) - b.to(at::kDouble)).abs().max().item<double>();
}

}  // namespace

class TestCheckpointReshard : public QObject {
  Q_OBJECT

  static void runPhase(const QString& phase, const QString& strategy, int world, const QString& dir) {
    const QString failure = fathom::test::firstFailure(fathom::test::runScenarioPhase(phase, strategy, world, dir),
                                                       u"%1 %2 x%3"_s.arg(phase, strategy).arg(world));
    QVERIFY2(failure.isEmpty(), qPrintable(failure));
  }

  /// Saves on `from` processes, resumes on each of `to` (a number of processes, and the strategy to resume with when
  /// not `strategy`), and compares against mergeShardedModel and the `from` run.
  static void reshardAndCompare(const QString& strategy, int from, const QList<std::pair<int, QString>>& to) {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string s = strategy.toStdString();
    runPhase(u"save"_s, strategy, from, dir.path());
    const std::filesystem::path checkpoint = dir.path().toStdString() + "/checkpoints/checkpoint_0";
    // The full model the checkpoint holds: merged from the rank files, or ZeRO-1/2's model.safetensors.
    const bool shardedModel = strategy != u"zero2"_s;
    QVERIFY(
        std::filesystem::exists(checkpoint / (shardedModel ? "model_rank" + std::to_string(from - 1) + ".safetensors"
                                                           : std::string("model.safetensors"))));
    QVERIFY(std::filesystem::exists(checkpoint / ("optimizer_rank" + std::to_string(from - 1) + ".safetensors")));
    const auto merged = shardedModel ? fathom::checkpoint::mergeShardedModel(checkpoint)
                                     : fathom::io::readSafetensors(checkpoint / "model.safetensors").tensors;
    const at::Tensor reference = globalLosses(dir.path(), "save", s, from);
    QCOMPARE(reference.numel(), 2 * (kSteps - kSaveAt));
    const auto referenceFinal = readResult(dir.path(), "final_save_" + s + "_x" + std::to_string(from) + "_rank0");
    for (const auto& [world, resumeWith] : to) {
      const QString resumeStrategy = resumeWith.isEmpty() ? strategy : resumeWith;
      const std::string rs = resumeStrategy.toStdString();
      runPhase(u"resume"_s, resumeStrategy, world, dir.path());
      if (QTest::currentTestFailed())
        return;
      // Right after loadState, every process holds exactly the merged full model.
      for (int rank = 0; rank < world; ++rank) {
        const auto loaded = readResult(dir.path(), "loaded_resume_" + rs + "_x" + std::to_string(world) + "_rank" +
                                                       std::to_string(rank));
        QCOMPARE(loaded.tensors.size(), merged.size());
        for (const auto& [name, t] : loaded.tensors) {
          const auto it = std::find_if(merged.begin(), merged.end(), [&](const auto& m) { return m.first == name; });
          QVERIFY2(it != merged.end() && at::equal(it->second, t), qPrintable(u"x%1 rank %2: %3 differs from the "
                                                                              u"merged model"_s.arg(world)
                                                                                  .arg(rank)
                                                                                  .arg(QString::fromStdString(name))));
        }
      }
      const at::Tensor losses = globalLosses(dir.path(), "resume", rs, world);
      QCOMPARE(losses.numel(), reference.numel());
      const double lossDiff = maxAbsDifference(losses, reference);
      qInfo("%s %d -> %s %d processes: max abs loss difference %.3g over %lld micro-steps", qPrintable(strategy), from,
            qPrintable(resumeStrategy), world, lossDiff, static_cast<long long>(losses.numel()));
      for (std::int64_t k = 0; lossDiff > 1e-5 && k < losses.numel(); ++k)
        qInfo("  micro-step %lld: %.9f (x%d) %.9f (x%d)", static_cast<long long>(k), losses[k].item<double>(), world,
              reference[k].item<double>(), from);
      QVERIFY2(lossDiff <= 1e-5, qPrintable(u"x%1: losses differ by %2"_s.arg(world).arg(lossDiff)));
      const auto final = readResult(dir.path(), "final_resume_" + rs + "_x" + std::to_string(world) + "_rank0");
      double paramDiff = 0;
      for (std::size_t i = 0; i < referenceFinal.tensors.size(); ++i) {
        QCOMPARE(final.tensors[i].first, referenceFinal.tensors[i].first);
        paramDiff = std::max(paramDiff, maxAbsDifference(final.tensors[i].second, referenceFinal.tensors[i].second));
      }
      qInfo("%s %d -> %s %d processes: max abs final parameter difference %.3g", qPrintable(strategy), from,
            qPrintable(resumeStrategy), world, paramDiff);
      QVERIFY2(paramDiff <= 1e-5, qPrintable(u"x%1: final parameters differ by %2"_s.arg(world).arg(paramDiff)));
    }
  }

private slots:
#ifndef FATHOM_RESHARD_ZERO3
  /// 4 -> 2, 4 -> 1 (FSDP unsharded), and 4 -> 1 process of DDP (the model merged, the optimizer state cut into
  /// the parameters).
  void fsdpFourToTwoAndOne() {
    reshardAndCompare(u"fsdp-sharded"_s, 4, {{2, {}}, {1, {}}, { 1, u"ddp"_s }});
  }
  void fsdpTwoToFour() {
    reshardAndCompare(u"fsdp-sharded"_s, 2, {{ 4, {} }});
  }

  /// Another strategy family, and a missing rank file: every process fails naming the file; the model is unchanged.
  void unreshardableCheckpointsAreRefusedAndLoadNothing() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    runPhase(u"save"_s, u"fsdp-sharded"_s, 4, dir.path());
    auto results = fathom::test::runScenarioPhase(u"refuse"_s, u"zero3"_s, 2, dir.path());
    for (int rank = 0; rank < 2; ++rank) {
      const QString expected = u"model_rank%1.safetensors: a sharded file saved by 4 process(es) with strategy fsdp; "
                               u"this run has 2 with strategy zero3"_s.arg(rank);
      QVERIFY2(results[rank].exitCode == 3 && results[rank].err.contains(expected),
               qPrintable(results[rank].out + results[rank].err));
    }
    results = fathom::test::runScenarioPhase(u"refuse"_s, u"fsdp-sharded-2layers"_s, 2, dir.path());
    for (int rank = 0; rank < 2; ++rank) {
      QVERIFY2(results[rank].exitCode == 3 && results[rank].err.contains(u"index.json: the checkpoint's unit"_s) &&
                   results[rank].err.contains(u"of model is not a unit of this run (another model or wrapping)"_s),
               qPrintable(results[rank].out + results[rank].err));
    }
    QVERIFY(QFile::remove(dir.path() + u"/checkpoints/checkpoint_0/model_rank3.safetensors"_s));
    results = fathom::test::runScenarioPhase(u"refuse"_s, u"fsdp-sharded"_s, 2, dir.path());
    // Rank 1's new range lies in old ranks 2 and 3: it reads the missing file and names it; rank 0 hears of it.
    QVERIFY2(results[1].exitCode == 3 && results[1].err.contains(u"model_rank3.safetensors is missing"_s),
             qPrintable(results[1].out + results[1].err));
    QVERIFY2(results[0].exitCode == 3 && results[0].err.contains(u"process(es) 1 failed"_s),
             qPrintable(results[0].out + results[0].err));
  }
#else
  void zero3FourToTwoAndOne() {
    reshardAndCompare(u"zero3"_s, 4, {{2, {}}, {1, {}}});
  }
  void shardGradOpFourToTwo() {
    reshardAndCompare(u"shard_grad_op"_s, 4, {{2, {}}});
  }
  /// ZeRO-2: the model file is whole; the optimizer's bucket shards are re-cut (4 -> 2), or cut into the parameters
  /// (4 -> 1: ZeRO-2 on one process runs as DDP).
  void zero2FourToTwoAndOne() {
    reshardAndCompare(u"zero2"_s, 4, {{2, {}}, {1, {}}});
  }
#endif
};

int main(int argc, char** argv) {
  if (argc == 6 && std::string_view(argv[1]) == "--worker") {
    return runWorker(std::atoi(argv[2]), std::atoi(argv[3]), std::atoi(argv[4]), std::atoi(argv[5]));
  }
  QCoreApplication app(argc, argv);
  TestCheckpointReshard test;
  return QTest::qExec(&test, argc, argv);
}
#include "tst_checkpoint_reshard.moc"
