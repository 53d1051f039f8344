// SPDX-License-Identifier: Apache-2.0
// fathom::parallel::ZeroEngine (ZeRO stages 1 and 2) against DDP (DdpReducer) over real multi-process Gloo groups
// of 2 and 4 ranks, plus in-process checks at world size 1. Every rank trains the built-in GPT (gpt-tiny) twice
// from the same seed on the same per-rank batches, once under DDP and once under ZeRO, and compares the losses of
// every micro-step and the final parameters; it also checks the Comm records of every optimizer step and
// stateBytes() against sizes computed here from plan::zeroBuckets / paddedElements / shardElements and (stage 1's
// full gradients) the model's parameters. A rank exits 0
// only when every case matched; rank 0 prints the measured differences on stderr.
#include "rank_checker.h"
#include "worker_group.h"

#include <fathom/common/error.h>
#include <fathom/models/gpt.h>
#include <fathom/parallel/comm.h>
#include <fathom/parallel/ddp_reducer.h>
#include <fathom/parallel/zero_bucket_layout.h>
#include <fathom/parallel/zero_engine.h>
#include <fathom/plan/shard_layout.h>
#include <fathom/runtime/free_port.h>

#include <torch/torch.h>

#include <QCoreApplication>
#include <QTest>

#include <algorithm>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

using namespace Qt::StringLiterals;
using fathom::models::Gpt;
using fathom::models::GptOptions;
using fathom::parallel::Comm;
using fathom::parallel::CommKind;
using fathom::parallel::DdpReducer;
using fathom::parallel::OffloadDevice;
using fathom::parallel::ZeroBucketLayout;
using fathom::parallel::ZeroEngine;
using fathom::parallel::ZeroOptions;
using Checker = fathom::test::RankChecker;

namespace {

enum class Opt { AdamW, Sgd };

/// One training run: the model, optimizer, accumulation and (for ZeRO) the engine's options.
struct Case {
  std::string name;
  Opt opt = Opt::AdamW;
  int steps = 20;
  int micro = 1;        ///< micro-steps per optimizer step
  bool noSync = false;  ///< every micro-step but the last runs with gradient sync off
  double clip = 0;      ///< clip the gradient norm to this before each step (0: no clipping)
  GptOptions model;     ///< gpt-tiny by default
  ZeroOptions zero;     ///< ignored by the DDP reference
};

/// What a run produced on this rank: the local loss of every micro-step and the final parameters.
struct Trace {
  std::vector<double> losses;
  std::vector<double> norms;  ///< the gradient norm before clipping, per optimizer step (clipping runs only)
  std::vector<std::pair<std::string, torch::Tensor>> params;
};

constexpr std::int64_t kBatch = 2;
constexpr std::int64_t kTokens = 16;

std::pair<torch::Tensor, torch::Tensor> batch(const GptOptions& m, int rank, int step, int micro) {
  torch::manual_seed(7000 + 1000 * step + 10 * micro + rank);
  return {torch::randint(m.vocabSize, {kBatch, kTokens}, torch::kLong),
          torch::randint(m.vocabSize, {kBatch, kTokens}, torch::kLong)};
}

/// The same initial weights on every rank after the engines' broadcast from rank 0 (each rank seeds differently,
/// so a missing broadcast would show).
std::shared_ptr<Gpt> makeGpt(const GptOptions& m, int rank) {
  torch::manual_seed(1234 + rank);
  return std::make_shared<Gpt>(m);
}

/// AdamW's eps is 1e-6, not torch's 1e-8: the attention key bias has an exactly-zero true gradient (softmax ignores
/// a constant added to every score of a row), so autograd hands it rounding noise of ~1e-10, and with eps 1e-8 Adam
/// turns any change in that noise (a clip coefficient or a sum rounded in another order) into updates of ~lr/100.
/// With eps 1e-8 the measured difference from DDP is ~2e-5 in c_attn.bias only (docs/sharding.md).
std::unique_ptr<torch::optim::Optimizer> makeOptimizer(Opt opt, const std::vector<torch::Tensor>& params) {
  if (opt == Opt::AdamW) {
    return std::make_unique<torch::optim::AdamW>(params, torch::optim::AdamWOptions(3e-3).weight_decay(0.1).eps(1e-6));
  }
  return std::make_unique<torch::optim::SGD>(params, torch::optim::SGDOptions(0.05).momentum(0.9).weight_decay(1e-3));
}

torch::Tensor microLoss(Gpt& model, const Case& c, int rank, int step, int micro) {
  const auto [x, y] = batch(c.model, rank, step, micro);
  return model.loss(model.forward(x), y) / c.micro;
}

std::vector<std::pair<std::string, torch::Tensor>> snapshot(const torch::nn::Module& m) {
  std::vector<std::pair<std::string, torch::Tensor>> out;
  for (const auto& item : m.named_parameters()) {
    out.emplace_back(item.key(), item.value().detach().clone());
  }
  return out;
}

Trace runDdp(fathom::runtime::ProcessGroup& group, const Case& c) {
  const int rank = group.rank();
  Comm comm(group);
  auto model = makeGpt(c.model, rank);
  DdpReducer ddp(model, comm);
  auto optimizer = makeOptimizer(c.opt, model->parameters());
  Trace t;
  for (int step = 0; step < c.steps; ++step) {
    for (int micro = 0; micro < c.micro; ++micro) {
      ddp.setRequireGradSync(!c.noSync || micro == c.micro - 1);
      auto loss = microLoss(*model, c, rank, step, micro);
      t.losses.push_back(loss.item<double>());
      loss.backward();
    }
    if (c.clip > 0) {
      t.norms.push_back(torch::nn::utils::clip_grad_norm_(model->parameters(), c.clip, 2.0));
    }
    optimizer->step();
    optimizer->zero_grad();
  }
  t.params = snapshot(*model);
  return t;
}

/// Sizes computed here, independently of the engine, from the planner's layout functions.
struct ExpectedLayout {
  std::int64_t buckets = 0;
  std::int64_t padded = 0;  ///< Σ paddedElements(bucket, world)
  std::int64_t shard = 0;   ///< Σ shardElements(bucket, world)
  bool anyPadding = false;
};

ExpectedLayout expectedLayout(const torch::nn::Module& m, std::int64_t bucketElements, int world) {
  std::vector<std::int64_t> numels;
  for (const auto& p : m.parameters()) {
    numels.push_back(p.numel());
  }
  ExpectedLayout e;
  for (std::int64_t b : fathom::plan::zeroBuckets(numels, bucketElements)) {
    ++e.buckets;
    e.padded += fathom::plan::paddedElements(b, world);
    e.shard += fathom::plan::shardElements(b, world);
    e.anyPadding = e.anyPadding || fathom::plan::paddedElements(b, world) != b;
  }
  return e;
}

Trace runZero(Checker& chk, fathom::runtime::ProcessGroup& group, const Case& c) {
  const int rank = group.rank();
  const int world = group.worldSize();
  const std::string& n = c.name;
  Comm comm(group);
  auto model = makeGpt(c.model, rank);
  ZeroEngine zero(model, comm, c.zero);
  const ExpectedLayout e = expectedLayout(*model, c.zero.reduceBucketSize, world);
  chk.check(static_cast<std::int64_t>(zero.layout().buckets().size()) == e.buckets &&
                zero.layout().paddedElements() == e.padded && zero.layout().shardElements() == e.shard,
            n, ": layout ", zero.layout().buckets().size(), " buckets, expected ", e.buckets);
  chk.check(zero.strategy() == (c.zero.stage == 1 ? "zero1" : "zero2"), n, ": strategy ", zero.strategy());
  chk.check(zero.reducesEveryMicroStep() == (c.zero.stage == 2), n, ": reducesEveryMicroStep");
  auto optimizer = makeOptimizer(c.opt, model->parameters());
  zero.bindOptimizer(*optimizer);
  chk.check(optimizer->param_groups().size() == 1 &&
                static_cast<std::int64_t>(optimizer->param_groups()[0].params().size()) == e.buckets,
            n, ": the optimizer steps ", optimizer->param_groups()[0].params().size(),
            " tensors, expected one per bucket");
  const auto init = comm.records();
  chk.check(!init.empty() &&
                std::all_of(init.begin(), init.end(), [](const auto& r) { return r.label.rfind("zero.init", 0) == 0; }),
            n, ": construction issued something other than zero.init");

  const std::int64_t bucketBytes = e.padded * 4;
  Trace t;
  for (int step = 0; step < c.steps; ++step) {
    comm.markStep(step + 1);
    int syncs = 0;
    for (int micro = 0; micro < c.micro; ++micro) {
      const bool sync = !c.noSync || micro == c.micro - 1;
      zero.setRequireGradSync(sync);
      syncs += sync ? 1 : 0;
      auto loss = microLoss(*model, c, rank, step, micro);
      t.losses.push_back(loss.item<double>());
      loss.backward();
      // Stage 2 and a synchronized stage 1 pass release the full gradients; no_sync keeps them.
      bool anyFull = false;
      for (const auto& p : model->parameters()) {
        anyFull = anyFull || p.grad().defined();
      }
      if (step == 0) {
        chk.check(anyFull == !sync, n, ": after micro-step ", micro, " full gradients ", anyFull ? "kept" : "released",
                  " with sync ", sync);
      }
    }
    if (c.clip > 0) {
      t.norms.push_back(zero.clipGradNorm(c.clip, 2.0));
    }
    zero.beforeOptimizerStep();
    optimizer->step();
    zero.afterOptimizerStep();
    optimizer->zero_grad();

    const auto totals = comm.stepTotals(step + 1);
    chk.check(totals.has_value(), n, ": no totals for step ", step + 1);
    if (totals) {
      const auto& rs = totals->requested(CommKind::ReduceScatter);
      const auto& ag = totals->requested(CommKind::AllGather);
      chk.check(rs.count == e.buckets * syncs && rs.bytes == bucketBytes * syncs, n, ": step ", step + 1,
                " reduce_scatter count ", rs.count, " bytes ", rs.bytes, ", expected ", e.buckets * syncs, " and ",
                bucketBytes * syncs);
      chk.check(ag.count == e.buckets && ag.bytes == bucketBytes, n, ": step ", step + 1, " all_gather count ",
                ag.count, " bytes ", ag.bytes, ", expected ", e.buckets, " and ", bucketBytes);
    }
  }

  // Overlap: stage 2 with overlapComm issues each bucket's reduce-scatter from a hook and waits for all of them in
  // the end-of-backward callback, after every hook ran, so bucket 1's call starts while bucket 0's is still in
  // flight (its record spans issue to wait) in every step, whatever the timing. Synchronous reductions never nest.
  std::set<std::int64_t> nested;
  const auto records = comm.records();
  for (const auto& a : records) {
    for (const auto& b : records) {
      if (a.requested == CommKind::ReduceScatter && b.requested == CommKind::ReduceScatter && a.step == b.step &&
          b.start > a.start && b.start.value < a.start.value + a.duration.value)
        nested.insert(a.step);
    }
  }
  const bool overlaps = c.zero.stage == 2 && c.zero.overlapComm && e.buckets >= 2;
  chk.check(static_cast<int>(nested.size()) == (overlaps ? c.steps : 0), n, ": ", nested.size(), " of ", c.steps,
            " steps overlapped reduce-scatters, expected ", overlaps ? c.steps : 0);

  // Model-state bytes: Adam keeps two moments per stepped element, SGD one momentum buffer. Stage 1's gradients are
  // every parameter's full gradient as autograd made it (unpadded: the padding never has a gradient), counted from
  // the model here, not from the layout the engine shares with the planner.
  std::int64_t gradientElements = 0;
  std::set<const void*> counted;  // a tied weight is one tensor
  for (const auto& p : model->parameters()) {
    if (counted.insert(p.unsafeGetTensorImpl()).second) {
      gradientElements += p.numel();
    }
  }
  const auto bytes = zero.stateBytes({optimizer.get()});
  const bool off = c.zero.offloadOptimizer == OffloadDevice::Cpu;
  const std::int64_t states = (c.opt == Opt::AdamW ? 2 : 1) * e.shard * 4;
  fathom::parallel::ModelStateBytes want;
  want.device.parameters = e.padded * 4;
  want.device.gradients = c.zero.stage == 1 ? gradientElements * 4 : (off ? 0 : e.shard * 4);
  (off ? want.host : want.device).optimizerStates = states;
  if (off) {
    want.host.gradients = e.shard * 4;
    want.host.masterWeights = e.shard * 4;
  }
  auto show = [](const fathom::parallel::StateCategoryBytes& b) {
    std::ostringstream s;
    s << "{params " << b.parameters << ", grads " << b.gradients << ", optim " << b.optimizerStates << ", master "
      << b.masterWeights << "}";
    return s.str();
  };
  chk.check(bytes.device == want.device && bytes.host == want.host && bytes.peakGatheredParameters == 0, n,
            ": stateBytes device ", show(bytes.device), " host ", show(bytes.host), ", expected device ",
            show(want.device), " host ", show(want.host));

  // The padding at the end of each bucket (in the last ranks' partitions) is never stepped away from zero.
  for (std::size_t k = 0; k < zero.layout().buckets().size(); ++k) {
    const auto& b = zero.layout().buckets()[k];
    const std::int64_t begin = std::max<std::int64_t>(b.elements, rank * b.shard);
    const std::int64_t end = (rank + 1) * b.shard;
    if (begin < end) {
      const auto pad = zero.stepped()[k].narrow(0, begin - rank * b.shard, end - begin);
      chk.check(torch::all(pad == 0).item<bool>(), n, ": bucket ", k, " padding is not zero");
    }
  }
  const auto full = zero.fullStateDict(false);
  const auto named = model->named_parameters();
  chk.check(full.size() == named.size(), n, ": fullStateDict has ", full.size(), " tensors");
  for (std::size_t i = 0; i < full.size() && i < named.size(); ++i) {
    chk.check(full[i].first == named[i].key() && torch::equal(full[i].second, named[i].value()), n,
              ": fullStateDict entry ", i, " is ", full[i].first);
  }
  chk.check(zero.fullStateDict(true).empty() == (rank != 0), n, ": fullStateDict(rank0Only) on rank ", rank);
  t.params = snapshot(*model);
  return t;
}

/// Compares a ZeRO run with the DDP reference; rank 0 prints the measured differences.
void compare(Checker& chk, int rank, int world, const Case& c, const Trace& ddp, const Trace& zero) {
  double lossDiff = 0;
  chk.check(ddp.losses.size() == zero.losses.size(), c.name, ": ", zero.losses.size(), " losses");
  for (std::size_t i = 0; i < ddp.losses.size() && i < zero.losses.size(); ++i) {
    lossDiff = std::max(lossDiff, std::abs(ddp.losses[i] - zero.losses[i]));
  }
  double normDiff = 0;  // relative
  chk.check(ddp.norms.size() == zero.norms.size(), c.name, ": ", zero.norms.size(), " gradient norms");
  for (std::size_t i = 0; i < ddp.norms.size() && i < zero.norms.size(); ++i) {
    normDiff = std::max(normDiff, std::abs(ddp.norms[i] - zero.norms[i]) / ddp.norms[i]);
  }
  double paramDiff = 0;
  std::string worst;
  for (std::size_t i = 0; i < ddp.params.size() && i < zero.params.size(); ++i) {
    chk.check(ddp.params[i].first == zero.params[i].first, c.name, ": parameter ", i, " named ", zero.params[i].first);
    const double d = (ddp.params[i].second - zero.params[i].second).abs().max().item<double>();
    if (d > paramDiff) {
      paramDiff = d;
      worst = zero.params[i].first;
    }
  }
  chk.check(lossDiff <= 1e-5, c.name, ": losses differ from DDP by ", lossDiff);
  chk.check(normDiff <= 1e-5, c.name, ": gradient norms differ from DDP by ", normDiff, " (relative)");
  chk.check(paramDiff <= 1e-6, c.name, ": parameters differ from DDP by ", paramDiff);
  if (rank == 0) {
    std::cerr << "world " << world << " " << c.name << ": max |loss - ddp| " << lossDiff << ", max |param - ddp| "
              << paramDiff << " (" << worst << "), max relative |norm - ddp| " << normDiff << std::endl;
  }
}

std::vector<Case> cases() {
  std::vector<Case> out;
  constexpr std::int64_t kSmallBucket = 20'000;  // gpt-tiny (112,384 elements) in 6 buckets
  for (Opt opt : {Opt::AdamW, Opt::Sgd}) {
    for (int stage : {1, 2}) {
      for (bool offload : {false, true}) {
        for (std::int64_t bucket : {kSmallBucket, ZeroOptions{}.reduceBucketSize}) {
          Case c;
          c.opt = opt;
          c.clip = opt == Opt::AdamW ? 0.5 : 0.0;  // AdamW runs clip, so clipGradNorm is compared too
          c.zero.stage = stage;
          c.zero.offloadOptimizer = offload ? OffloadDevice::Cpu : OffloadDevice::None;
          c.zero.reduceBucketSize = bucket;
          c.name = std::string(opt == Opt::AdamW ? "adamw+clip" : "sgd") + " zero" + std::to_string(stage) +
                   (offload ? " offload" : "") + (bucket == kSmallBucket ? " bucket 20000" : " default bucket");
          out.push_back(c);
        }
      }
    }
  }
  // Accumulation over 2 micro-steps: no_sync on the first (both stages), and stage 2 reducing on every micro-step
  // (DeepSpeed's way, what reducesEveryMicroStep() asks the Accelerator for).
  for (auto [stage, noSync, offload] :
       {std::tuple{1, true, false}, std::tuple{1, true, true}, std::tuple{2, false, false}, std::tuple{2, true, false},
        std::tuple{2, false, true}}) {
    Case c;
    c.steps = 8;
    c.micro = 2;
    c.noSync = noSync;
    c.zero.stage = stage;
    c.zero.offloadOptimizer = offload ? OffloadDevice::Cpu : OffloadDevice::None;
    c.zero.reduceBucketSize = kSmallBucket;
    c.name = "accumulate 2 zero" + std::to_string(stage) + (noSync ? " no_sync" : " sync each") +
             (offload ? " offload" : "");
    out.push_back(c);
  }
  // A model whose buckets do not split evenly (so padding is exercised), reduced at the end of backward.
  for (int stage : {1, 2}) {
    Case c;
    c.steps = 6;
    c.model = GptOptions{.nLayer = 2, .nHead = 3, .nEmbd = 27, .blockSize = 16, .vocabSize = 37};
    c.zero.stage = stage;
    c.zero.reduceBucketSize = 1'000;
    c.zero.overlapComm = false;
    c.clip = 0.5;  // the norm would show gradients leaking into the padding
    c.name = "padded zero" + std::to_string(stage) + " no overlap + clip";
    out.push_back(c);
  }
  return out;
}

std::string referenceKey(const Case& c) {
  std::ostringstream k;
  k << static_cast<int>(c.opt) << '/' << c.steps << '/' << c.micro << '/' << c.noSync << '/' << c.clip << '/'
    << c.model.nEmbd;
  return k.str();
}

/// Two paths: `extra` (registered between `a` and `b`, so it spans two buckets of 40 elements) is used on rank 0
/// only. Stage 2 cannot complete those buckets in the hooks of the other ranks, so they are reduced in the
/// end-of-backward callback with zeros there; the result must equal DDP's with find_unused_parameters.
struct TwoPath : torch::nn::Module {
  TwoPath() {
    a = register_module("a", torch::nn::Linear(6, 10));
    extra = register_module("extra", torch::nn::Linear(6, 10));
    b = register_module("b", torch::nn::Linear(10, 3));
  }
  torch::Tensor forward(const torch::Tensor& x, bool useExtra) {
    torch::Tensor h = torch::tanh(a->forward(x));
    if (useExtra) {
      h = h + extra->forward(x);
    }
    return b->forward(h);
  }
  torch::nn::Linear a{nullptr}, extra{nullptr}, b{nullptr};
};

void unusedOnSomeRanks(Checker& chk, fathom::runtime::ProcessGroup& group, int stage) {
  const int rank = group.rank();
  auto train = [&](auto&& prepare) {
    torch::manual_seed(99 + rank);
    auto net = std::make_shared<TwoPath>();
    Comm comm(group);
    auto step = prepare(net, comm);
    torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));
    step.bind(opt);
    std::vector<double> losses;
    for (int i = 0; i < 5; ++i) {
      torch::manual_seed(300 + 10 * i + rank);
      auto loss = torch::mse_loss(net->forward(torch::randn({4, 6}), rank == 0), torch::randn({4, 3}));
      losses.push_back(loss.item<double>());
      loss.backward();
      step.before();
      opt.step();
      step.after();
      opt.zero_grad();
    }
    return std::pair{losses, snapshot(*net)};
  };
  struct DdpSteps {
    std::shared_ptr<DdpReducer> ddp;
    void bind(torch::optim::Optimizer&) {}
    void before() {}
    void after() {}
  };
  struct ZeroSteps {
    std::shared_ptr<ZeroEngine> zero;
    void bind(torch::optim::Optimizer& o) { zero->bindOptimizer(o); }
    void before() { zero->beforeOptimizerStep(); }
    void after() { zero->afterOptimizerStep(); }
  };
  const auto ddp = train([](const std::shared_ptr<TwoPath>& net, Comm& comm) {
    return DdpSteps{
        std::make_shared<DdpReducer>(net, comm, fathom::parallel::DdpOptions{.findUnusedParameters = true})};
  });
  const auto zero = train([stage](const std::shared_ptr<TwoPath>& net, Comm& comm) {
    return ZeroSteps{std::make_shared<ZeroEngine>(net, comm, ZeroOptions{.stage = stage, .reduceBucketSize = 40})};
  });
  const std::string name = "unused on ranks > 0, zero" + std::to_string(stage);
  for (std::size_t i = 0; i < ddp.first.size(); ++i) {
    chk.check(std::abs(ddp.first[i] - zero.first[i]) <= 1e-6, name, ": loss ", i, " differs by ",
              std::abs(ddp.first[i] - zero.first[i]));
  }
  for (std::size_t i = 0; i < ddp.second.size(); ++i) {
    chk.check(torch::allclose(ddp.second[i].second, zero.second[i].second, 0, 1e-6), name, ": ", ddp.second[i].first,
              " differs by ", (ddp.second[i].second - zero.second[i].second).abs().max().item<double>());
  }
}

int runWorker(int rank, int world, int port, int timeoutMs) {
  return fathom::test::runRankChecks(rank, [&](Checker& chk) {
    auto group = fathom::test::joinWorkerGroup(rank, world, port, timeoutMs);
    std::map<std::string, Trace> references;
    for (const Case& c : cases()) {
      auto it = references.find(referenceKey(c));
      if (it == references.end()) {
        it = references.emplace(referenceKey(c), runDdp(*group, c)).first;
      }
      if (c.model.nEmbd == 27) {
        chk.check(expectedLayout(*makeGpt(c.model, 0), c.zero.reduceBucketSize, world).anyPadding, c.name,
                  ": no bucket needs padding");
      }
      compare(chk, rank, world, c, it->second, runZero(chk, *group, c));
    }
    unusedOnSomeRanks(chk, *group, 1);
    unusedOnSomeRanks(chk, *group, 2);
  });
}

/// A one-rank group for the in-process checks.
std::unique_ptr<fathom::runtime::ProcessGroup> soloGroup() {
  return fathom::runtime::ProcessGroup::create(
      {.rank = 0, .worldSize = 1, .masterPort = fathom::runtime::findFreePort(), .timeout = std::chrono::seconds(20)});
}

template <typename F> void expectConfigError(F&& f, const std::string& fragment) {
  try {
    f();
    QFAIL(qPrintable(u"no ConfigError; expected one mentioning '%1'"_s.arg(QString::fromStdString(fragment))));
  } catch (const fathom::ConfigError& e) {
    QVERIFY2(std::string(e.what()).find(fragment) != std::string::npos, e.what());
  }
}

}  // namespace

class TestZeroGloo : public QObject {
  Q_OBJECT

  static void checkGroup(int world) {
    QList<int> ranks;
    for (int rank = 0; rank < world; ++rank) {
      ranks << rank;
    }
    const auto results = fathom::test::runWorkerGroup(world, ranks, 120'000);
    QCOMPARE(results.size(), world);
    qInfo().noquote() << results[0].err.trimmed();
    for (int rank = 0; rank < world; ++rank) {
      const auto& r = results[rank];
      QVERIFY2(r.exitCode == 0, qPrintable(u"rank %1 exit %2: %3"_s.arg(rank).arg(r.exitCode).arg(r.err)));
      QCOMPARE(r.out.trimmed(), u"rank %1 ok"_s.arg(rank));
    }
  }

private slots:
  void layout() {
    // Reverse registration order, a bucket closes once it reaches 8 elements: {3 + 5} then {7 + 10}.
    const ZeroBucketLayout l({10, 7, 5, 3}, 4, 8);
    QCOMPARE(l.buckets().size(), std::size_t{2});
    const auto& b0 = l.buckets()[0];
    const auto& b1 = l.buckets()[1];
    QCOMPARE(b0.members.size(), std::size_t{2});
    QCOMPARE(b0.members[0].tensor, std::size_t{3});
    QCOMPARE(b0.members[1].tensor, std::size_t{2});
    QCOMPARE(b0.members[1].offset, std::int64_t{3});
    QCOMPARE(b0.elements, std::int64_t{8});
    QCOMPARE(b0.padded, std::int64_t{8});
    QCOMPARE(b1.members[0].tensor, std::size_t{1});
    QCOMPARE(b1.members[1].tensor, std::size_t{0});
    QCOMPARE(b1.members[1].offset, std::int64_t{7});
    QCOMPARE(b1.elements, std::int64_t{17});
    QCOMPARE(b1.padded, std::int64_t{20});
    QCOMPARE(b1.shard, std::int64_t{5});
    QCOMPARE(l.paddedElements(), std::int64_t{28});
    QCOMPARE(l.shardElements(), std::int64_t{7});
    QCOMPARE(l.bucketOf(0), std::size_t{1});
    QCOMPARE(l.slotOf(2).offset, std::int64_t{3});
    // Empty tensors take a zero-length slot in the open (or last) bucket.
    const ZeroBucketLayout e({0, 4, 0}, 2, 4);
    QCOMPARE(e.buckets().size(), std::size_t{1});
    QCOMPARE(e.buckets()[0].members.size(), std::size_t{3});
    QCOMPARE(e.buckets()[0].padded, std::int64_t{4});
    expectConfigError([] { ZeroBucketLayout({4}, 2, 0); }, "reduce_bucket_size");
    expectConfigError([] { ZeroBucketLayout({4}, 0, 4); }, "world size");
  }

  void configErrors() {
    auto group = soloGroup();
    Comm comm(*group);
    const GptOptions tiny;
    expectConfigError([&] { ZeroEngine(makeGpt(tiny, 0), comm, ZeroOptions{.stage = 3}); }, "stage 3");
    expectConfigError(
        [&] { ZeroEngine(makeGpt(tiny, 0), comm, ZeroOptions{.stage = 2, .offloadOptimizer = OffloadDevice::Nvme}); },
        "nvme");
    expectConfigError([&] { ZeroEngine(nullptr, comm, ZeroOptions{}); }, "null");
    auto doubles = makeGpt(tiny, 0);
    doubles->to(torch::kDouble);
    expectConfigError([&] { ZeroEngine(doubles, comm, ZeroOptions{}); }, "float32");

    // bindOptimizer: one group holding every trainable parameter, no state yet.
    auto model = makeGpt(tiny, 0);
    ZeroEngine zero(model, comm, ZeroOptions{.stage = 1, .reduceBucketSize = 20'000});
    // Buckets in reverse registration order: ln_f.bias is reduced first, the (tied) wte weight last.
    QCOMPARE(zero.bucketParameterNames(0).front(), std::string("transformer.ln_f.bias"));
    QCOMPARE(zero.bucketParameterNames(zero.layout().buckets().size() - 1).back(),
             std::string("transformer.wte.weight"));
    const auto params = model->parameters();
    std::vector<torch::Tensor> firstHalf(params.begin(), params.begin() + 4);
    std::vector<torch::Tensor> secondHalf(params.begin() + 4, params.end());
    torch::optim::SGD split(
        {torch::optim::OptimizerParamGroup(firstHalf), torch::optim::OptimizerParamGroup(secondHalf)},
        torch::optim::SGDOptions(0.1));
    expectConfigError([&] { zero.bindOptimizer(split); }, "found them in 2 of its 2 groups");
    torch::optim::SGD partial(secondHalf, torch::optim::SGDOptions(0.1));
    expectConfigError([&] { zero.bindOptimizer(partial); }, "transformer.wte.weight");
    torch::optim::Adagrad stateful(params, torch::optim::AdagradOptions(0.1));  // Adagrad creates state at once
    expectConfigError([&] { zero.bindOptimizer(stateful); }, "already holds state");
    expectConfigError([&] { zero.beforeOptimizerStep(); }, "bindOptimizer");
    torch::optim::SGD fine(params, torch::optim::SGDOptions(0.1).momentum(0.9));
    zero.bindOptimizer(fine);
    QCOMPARE(fine.param_groups()[0].params().size(), zero.layout().buckets().size());
    QCOMPARE(fine.param_groups()[0].options().get_lr(), 0.1);
    expectConfigError([&] { zero.bindOptimizer(fine); }, "already bound");

    // no_sync without a synchronized pass before the step is an error, not a silent loss of gradients.
    const auto [x, y] = batch(tiny, 0, 0, 0);
    zero.setRequireGradSync(false);
    model->loss(model->forward(x), y).backward();
    QVERIFY_THROWS_EXCEPTION(fathom::Error, zero.beforeOptimizerStep());
    zero.setRequireGradSync(true);
    model->loss(model->forward(x), y).backward();
    zero.beforeOptimizerStep();
    QVERIFY(comm.records().empty());  // world size 1: nothing is communicated
  }

  /// World size 1: ZeRO must train exactly as plain LibTorch does (the partition is the whole bucket).
  void worldOfOne() {
    auto group = soloGroup();
    Comm comm(*group);
    const GptOptions tiny;
    for (int stage : {1, 2}) {
      auto plain = makeGpt(tiny, 0);
      auto model = makeGpt(tiny, 0);
      ZeroEngine zero(model, comm, ZeroOptions{.stage = stage, .reduceBucketSize = 30'000});
      auto plainOpt = makeOptimizer(Opt::AdamW, plain->parameters());
      auto opt = makeOptimizer(Opt::AdamW, model->parameters());
      zero.bindOptimizer(*opt);
      for (int step = 0; step < 3; ++step) {
        const auto [x, y] = batch(tiny, 0, step, 0);
        plain->loss(plain->forward(x), y).backward();
        plainOpt->step();
        plainOpt->zero_grad();
        model->loss(model->forward(x), y).backward();
        zero.beforeOptimizerStep();
        opt->step();
        zero.afterOptimizerStep();
        opt->zero_grad();
      }
      const auto a = plain->parameters();
      const auto b = model->parameters();
      for (std::size_t i = 0; i < a.size(); ++i) {
        QVERIFY2(torch::allclose(a[i], b[i], 0, 1e-6), qPrintable(u"stage %1 parameter %2"_s.arg(stage).arg(i)));
      }
    }
  }

  void twoRanks() { checkGroup(2); }
  void fourRanks() { checkGroup(4); }
};

int main(int argc, char** argv) {
  if (argc == 6 && std::string_view(argv[1]) == "--worker") {
    return runWorker(std::atoi(argv[2]), std::atoi(argv[3]), std::atoi(argv[4]), std::atoi(argv[5]));
  }
  QCoreApplication app(argc, argv);
  TestZeroGloo test;
  return QTest::qExec(&test, argc, argv);
}
#include "tst_zero_gloo.moc"
