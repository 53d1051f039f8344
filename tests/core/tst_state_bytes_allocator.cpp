// SPDX-License-Identifier: Apache-2.0
// Measured means measured (issue 18): on 2 real Gloo ranks, for DDP, FSDP (FULL_SHARD, SHARD_GRAD_OP, NO_SHARD,
// HYBRID_SHARD, HYBRID_SHARD_ZERO2), ZeRO-1, ZeRO-2, ZeRO-3 and the offloading variants that keep fp32 master
// weights (ZeRO-2 and ZeRO-3 offload_optimizer), on gpt-tiny, the bytes the CPU allocator holds on each rank against
// the bytes the engine reports (DataParallelEngine::stateBytes), an account independent of the layout functions the
// engines share with the planner: no expected size here comes from plan/ or a layout; every figure is an allocator
// reading or an engine report.
//
// The allocator: fathom::test::CountingCpuAllocator (tests/support), installed as LibTorch's CPU allocator before
// anything else in the worker, counts every block until it is freed, on whatever thread (a collective's input copy
// that a Gloo thread drops counts as freed). Readings are taken once the count has settled (a backend thread drops
// its reference to a finished work a moment after wait() returns).
//
// Each case runs in windows; over each, the allocator's change must equal the change of everything the engine
// reports: parameters + gradients + optimizer states + master weights (device and host; on CPU both are this
// allocator) + communicationBuffers (what the engine keeps for its collectives: DDP's buckets until the gradients
// alias them, ZeRO-1/2's staging and scratch). The window that creates a category therefore measures it exactly:
// - construction (model creation, the engine, the optimizer bound): parameters, master weights, communication
//   buffers, plus the model's buffers (not a model state; measured here from their storages). The parameters the
//   model allocated and the engine replaced by flat buffers or shards are freed inside the window;
// - the first forward and backward, the graph dropped: gradients (DDP: the buckets turn from communication buffers
//   into the gradients, a net 0 that the reports must match). ZeRO-1 holds full gradients only until the
//   reduction at the end of a synchronized backward, which then reports what they held (not what it keeps after:
//   the partition's gradient); so its first backward runs with sync off, when the full gradients are what it
//   holds, and the synchronized one after it is checked against that window's allocator figure;
// - the first optimizer step (with the engine's before/after hooks): optimizer states;
// - a second iteration (steady state) and the teardown (everything returns to the allocator).
// Rank 0 prints every window's figures (all ranks with FATHOM_TEST_VERBOSE).
#include "counting_cpu_allocator.h"
#include "rank_checker.h"
#include "worker_group.h"

#include <fathom/models/model_factory.h>
#include <fathom/parallel/comm.h>
#include <fathom/parallel/ddp_engine.h>
#include <fathom/parallel/fully_sharded_engine.h>
#include <fathom/parallel/zero_engine.h>

#include <torch/torch.h>

#include <QCoreApplication>
#include <QTest>

#include <cstdlib>
#include <functional>
#include <iostream>
#include <memory>
#include <unordered_set>

using namespace Qt::StringLiterals;
using fathom::parallel::Comm;
using fathom::parallel::DataParallelEngine;
using fathom::parallel::FsdpShardingStrategy;
using fathom::parallel::FullyShardedConfig;
using fathom::parallel::ModelStateBytes;
using fathom::test::CountingCpuAllocator;
using Checker = fathom::test::RankChecker;

namespace {

/// The groups a case may run on: the world, and HYBRID_SHARD's groups (2 ranks on one node: the node's shard group
/// is the world, each rank is its own replica group).
struct Groups {
  Comm& world;
  Comm& hybridShard;
  Comm& hybridReplica;
};

using Module = std::shared_ptr<torch::nn::Module>;

struct Case {
  std::string name;
  std::function<std::unique_ptr<DataParallelEngine>(Module, Groups&)> make;
  bool fullGradientsBeforeReduction = false;  ///< ZeRO-1: measure gradients in a no_sync backward first
};

FullyShardedConfig fully(FsdpShardingStrategy sharding, bool zero3, bool offloadOptimizer = false) {
  FullyShardedConfig c;
  c.zero3 = zero3;
  c.sharding = sharding;
  c.unitClassNames = {"GptBlock"};
  c.rootOpensScope = true;  // Gpt::forward opens the root's scope
  c.offloadOptimizer = offloadOptimizer;
  return c;
}

std::vector<Case> cases() {
  using fathom::parallel::FullyShardedEngine;
  std::vector<Case> out;
  out.push_back({"ddp", [](Module m, Groups& g) {
                   return std::make_unique<fathom::parallel::DdpEngine>(m, &g.world, fathom::parallel::DdpOptions{});
                 }});
  for (const auto& [name, sharding] : {std::pair{"fsdp full_shard", FsdpShardingStrategy::FullShard},
                                       std::pair{"fsdp shard_grad_op", FsdpShardingStrategy::ShardGradOp},
                                       std::pair{"fsdp no_shard", FsdpShardingStrategy::NoShard}}) {
    out.push_back({name, [sharding](Module m, Groups& g) {
                     return std::make_unique<FullyShardedEngine>(m, &g.world, nullptr, fully(sharding, false));
                   }});
  }
  for (const auto& [name, sharding] : {std::pair{"fsdp hybrid_shard", FsdpShardingStrategy::HybridShard},
                                       std::pair{"fsdp hybrid_shard_zero2", FsdpShardingStrategy::HybridShardZero2}}) {
    out.push_back({name, [sharding](Module m, Groups& g) {
                     return std::make_unique<FullyShardedEngine>(m, &g.hybridShard, &g.hybridReplica,
                                                                 fully(sharding, false));
                   }});
  }
  for (const auto& [stage, offload] : {std::pair{1, false}, std::pair{2, false}, std::pair{2, true}}) {
    out.push_back({"zero" + std::to_string(stage) + (offload ? " offload_optimizer" : ""),
                   [stage, offload](Module m, Groups& g) {
                     fathom::parallel::ZeroOptions o;
                     o.stage = stage;
                     o.offloadOptimizer =
                         offload ? fathom::parallel::OffloadDevice::Cpu : fathom::parallel::OffloadDevice::None;
                     return std::make_unique<fathom::parallel::ZeroEngine>(m, g.world, o);
                   },
                   stage == 1});
  }
  for (const bool offload : {false, true}) {
    out.push_back({offload ? "zero3 offload_optimizer" : "zero3", [offload](Module m, Groups& g) {
                     return std::make_unique<FullyShardedEngine>(m, &g.world, nullptr,
                                                                 fully(FsdpShardingStrategy::FullShard, true, offload));
                   }});
  }
  return out;
}

/// The engine's figures summed over device and host (on a CPU run both are the counted allocator).
struct Reported {
  std::int64_t parameters = 0;
  std::int64_t gradients = 0;
  std::int64_t optimizerStates = 0;
  std::int64_t masterWeights = 0;
  std::int64_t communicationBuffers = 0;

  explicit Reported(const ModelStateBytes& b) {
    for (const auto* side : {&b.device, &b.host}) {
      parameters += side->parameters;
      gradients += side->gradients;
      optimizerStates += side->optimizerStates;
      masterWeights += side->masterWeights;
    }
    communicationBuffers = b.communicationBuffers;
  }
  Reported() = default;
  std::int64_t total() const { return parameters + gradients + optimizerStates + masterWeights + communicationBuffers; }
};

std::ostream& operator<<(std::ostream& os, const Reported& r) {
  return os << "parameters " << r.parameters << ", gradients " << r.gradients << ", optimizer states "
            << r.optimizerStates << ", master weights " << r.masterWeights << ", communication buffers "
            << r.communicationBuffers;
}

/// The model's registered buffers (each storage once, whole): held by the model, not a model state.
std::int64_t moduleBufferBytes(const torch::nn::Module& module) {
  std::unordered_set<const void*> seen;
  std::int64_t bytes = 0;
  for (const at::Tensor& b : module.buffers(/*recurse=*/true)) {
    if (b.defined() && b.has_storage() && seen.insert(b.storage().unsafeGetStorageImpl()).second)
      bytes += static_cast<std::int64_t>(b.storage().nbytes());
  }
  return bytes;
}

class CaseRun {
public:
  CaseRun(Checker& chk, int rank, const Case& c) : m_chk(chk), m_case(c), m_verbose(rank == 0 || verboseAll()) {
    if (m_verbose)
      std::cerr << "rank " << rank << " " << c.name << ":\n";
  }

  /// Starts a window: the allocator's settled reading and the reports it is compared against. Returns the
  /// allocator's change since the last window (unchecked).
  std::int64_t open(const Reported& reported) {
    const std::int64_t live = CountingCpuAllocator::install().settledLiveBytes();
    const std::int64_t change = live - m_live;
    m_live = live;
    m_reported = reported;
    return change;
  }

  /// Ends the window that open() (or the previous close()) started: the allocator's change must equal the change of
  /// everything reported plus `extra`. `category` names what the window creates; its allocator figure (the
  /// change less the other reported changes) is printed next to its report. Returns the allocator's change.
  std::int64_t close(const char* window, const Reported& now, std::int64_t extra,
                     std::int64_t Reported::*category = nullptr) {
    const std::int64_t live = CountingCpuAllocator::install().settledLiveBytes();
    const std::int64_t allocator = live - m_live;
    const std::int64_t reported = now.total() - m_reported.total() + extra;
    if (m_verbose) {
      std::cerr << "  " << window << ": allocator " << allocator << " B, reported change " << reported << " B";
      if (category != nullptr) {
        const std::int64_t others = reported - (now.*category - m_reported.*category);
        std::cerr << "; category: allocator " << allocator - others << " B, reported "
                  << now.*category - m_reported.*category << " B";
      }
      std::cerr << " (now " << now << ")\n";
    }
    m_chk.check(category == nullptr || now.*category - m_reported.*category > 0, m_case.name, ": ", window,
                ": the category it creates did not grow");
    m_chk.check(allocator == reported, m_case.name, ": ", window, ": the allocator's held bytes changed by ", allocator,
                ", the engine's reports by ", reported, " (now ", now, ")");
    m_live = live;
    m_reported = now;
    return allocator;
  }

private:
  static bool verboseAll() { return std::getenv("FATHOM_TEST_VERBOSE") != nullptr; }
  Checker& m_chk;
  const Case& m_case;
  bool m_verbose;
  std::int64_t m_live = 0;
  Reported m_reported;
};

void iteration(fathom::models::Model& model, int seed) {
  torch::manual_seed(seed);
  const at::Tensor x = torch::randint(128, {4, 32}, torch::kLong);
  const at::Tensor y = torch::randint(128, {4, 32}, torch::kLong);
  at::Tensor loss = model.loss(model.forward(x), y);
  loss.backward();
}

void runCase(Checker& chk, Groups& groups, const Case& c) {
  const int rank = groups.world.rank();
  CaseRun run(chk, rank, c);
  run.open(Reported{});
  torch::manual_seed(1234);
  fathom::models::ModelRequest request;
  request.name = "gpt-tiny";
  std::shared_ptr<fathom::models::Model> model = fathom::models::makeModel(request);
  std::unique_ptr<DataParallelEngine> engine = c.make(model, groups);
  auto optimizer = std::make_unique<torch::optim::AdamW>(model->parameters(), torch::optim::AdamWOptions(1e-3));
  engine->bindOptimizer(*optimizer);
  auto report = [&] { return Reported(engine->stateBytes({optimizer.get()})); };
  const std::int64_t buffers = moduleBufferBytes(*model);
  run.close("construction (parameters)", report(), buffers, &Reported::parameters);

  // ZeRO-1 from its first reduction on: the full gradients it reports minus the partition's gradient it keeps.
  std::int64_t overReported = 0;
  if (c.fullGradientsBeforeReduction) {
    engine->setRequireGradSync(false);
    iteration(*model, 99 + rank);
    const std::int64_t full = run.close("backward, sync off (full gradients)", report(), 0, &Reported::gradients);
    engine->setRequireGradSync(true);
    iteration(*model, 199 + rank);
    const Reported reduced = report();
    chk.check(reduced.gradients == full, c.name, ": the full gradients reported at the reduction (", reduced.gradients,
              " B) are not the ", full, " B the allocator saw them hold");
    overReported = -run.open(reduced);  // the reduction released the full gradients and kept the partition's
    if (rank == 0)
      std::cerr << "  synchronized backward: reported " << reduced.gradients
                << " B (the full gradients at the reduction); kept after it: " << full - overReported << " B\n";
  } else {
    iteration(*model, 99 + rank);
    run.close("first forward and backward (gradients)", report(), 0, &Reported::gradients);
  }

  engine->beforeOptimizerStep();
  optimizer->step();
  engine->afterOptimizerStep();
  run.close("first optimizer step (optimizer states)", report(), 0, &Reported::optimizerStates);

  optimizer->zero_grad();
  iteration(*model, 299 + rank);
  engine->beforeOptimizerStep();
  optimizer->step();
  engine->afterOptimizerStep();
  run.close("second iteration", report(), 0);

  engine.reset();
  optimizer.reset();
  model.reset();
  run.close("teardown", Reported{}, overReported - buffers);
}

int runWorker(int rank, int world, int port, int timeoutMs) {
  CountingCpuAllocator::install();  // before any tensor exists
  return fathom::test::runRankChecks(rank, [&](Checker& chk) {
    auto group = fathom::test::joinWorkerGroup(rank, world, port, timeoutMs);
    auto shardGroup = group->newGroup({0, 1}, "hybrid.shard.0");
    auto replicaGroup = group->newGroup({rank}, "hybrid.replica." + std::to_string(rank));
    Comm worldComm(*group);
    Comm shardComm(*shardGroup);
    Comm replicaComm(*replicaGroup);
    Groups groups{worldComm, shardComm, replicaComm};
    for (const Case& c : cases())
      runCase(chk, groups, c);
  });
}

}  // namespace

class TestStateBytesAllocator : public QObject {
  Q_OBJECT

private slots:
  void allocatorAgreesWithTheEngines() {
    const auto results = fathom::test::runWorkerGroup(2, {0, 1}, 120'000);
    QCOMPARE(results.size(), 2);
    qInfo().noquote() << results[0].err.trimmed();
    for (int rank = 0; rank < 2; ++rank) {
      const auto& r = results[rank];
      QVERIFY2(r.exitCode == 0, qPrintable(u"rank %1 exit %2: %3"_s.arg(rank).arg(r.exitCode).arg(r.err)));
      QCOMPARE(r.out.trimmed(), u"rank %1 ok"_s.arg(rank));
    }
  }
};

int main(int argc, char** argv) {
  if (argc == 6 && std::string_view(argv[1]) == "--worker") {
    return runWorker(std::atoi(argv[2]), std::atoi(argv[3]), std::atoi(argv[4]), std::atoi(argv[5]));
  }
  QCoreApplication app(argc, argv);
  TestStateBytesAllocator test;
  return QTest::qExec(&test, argc, argv);
}
#include "tst_state_bytes_allocator.moc"
