// SPDX-License-Identifier: Apache-2.0
// fathom::parallel::DdpReducer (and the asynchronous Comm calls under it) over real multi-process Gloo groups of
// 2 and 3 ranks, plus an in-process world of 1. The test hosts a TCPStore on 127.0.0.1 and starts copies of this
// executable as the ranks (`--worker RANK WORLD PORT TIMEOUT_MS`). Every rank builds the reference itself: the
// same model (rank 0's initial weights) run without DDP on every rank's data, gradients averaged. A rank exits 0
// only when every scenario matched.
#include "parallel/comm_work.h"  // white-box: the handle of the Comm layer's asynchronous collectives
#include "rank_checker.h"
#include "worker_group.h"

#include <fathom/common/error.h>
#include <fathom/parallel/comm.h>
#include <fathom/parallel/ddp_reducer.h>
#include <fathom/runtime/free_port.h>

#include <torch/torch.h>

#include <QCoreApplication>
#include <QTest>

#include <iostream>
#include <sstream>

using namespace Qt::StringLiterals;
using fathom::parallel::Comm;
using fathom::parallel::CommKind;
using fathom::parallel::CommRecord;
using fathom::parallel::DdpOptions;
using fathom::parallel::DdpReducer;
using fathom::parallel::GradCompression;
using fathom::runtime::ReduceOp;

namespace {

/// An MLP of `layers` Linear layers (in → hidden → ... → out) with tanh between them, plus optional extras
/// registered after the layers (so their gradients are ready first): `extra` (in → out, added to the output when
/// asked), `never` (never used), and a buffer `stat` that the forward pass adds to the output.
struct Net : torch::nn::Module {
  Net(int in, int hidden, int out, int layers, bool extras, bool buffer) {
    for (int i = 0; i < layers; ++i) {
      const int a = i == 0 ? in : hidden;
      const int b = i == layers - 1 ? out : hidden;
      fcs.push_back(register_module("fc" + std::to_string(i), torch::nn::Linear(a, b)));
    }
    if (extras) {
      extra = register_module("extra", torch::nn::Linear(in, out));
      never = register_module("never", torch::nn::Linear(in, out));
    }
    if (buffer) {
      stat = register_buffer("stat", torch::zeros({out}));
    }
  }
  torch::Tensor forward(const torch::Tensor& x, bool useExtra = false) {
    torch::Tensor h = x;
    for (std::size_t i = 0; i < fcs.size(); ++i) {
      h = fcs[i]->forward(h);
      if (i + 1 < fcs.size()) {
        h = torch::tanh(h);
      }
    }
    if (useExtra) {
      h = h + extra->forward(x);
    }
    if (stat.defined()) {
      h = h + stat;
    }
    return h;
  }
  std::vector<torch::nn::Linear> fcs;
  torch::nn::Linear extra{nullptr};
  torch::nn::Linear never{nullptr};
  torch::Tensor stat;
};

struct NetShape {
  int in = 8, hidden = 16, out = 4, layers = 4;
  bool extras = false, buffer = false;
};

std::shared_ptr<Net> makeNet(const NetShape& s, int seed) {
  torch::manual_seed(seed);
  return std::make_shared<Net>(s.in, s.hidden, s.out, s.layers, s.extras, s.buffer);
}

/// Rank `rank`'s batch for step `step`: different on every rank and step.
std::pair<torch::Tensor, torch::Tensor> batch(const NetShape& s, int rank, int step) {
  torch::manual_seed(5000 + 100 * step + rank);
  return {torch::randn({6, s.in}), torch::randn({6, s.out})};
}

torch::Tensor loss(Net& net, const NetShape& s, int rank, int step, bool useExtra = false) {
  const auto [x, y] = batch(s, rank, step);
  return torch::mse_loss(net.forward(x, useExtra), y);
}

/// Σ over `steps` of the gradients of a copy of `net` on `rank`'s data (zero where a parameter got none).
std::vector<torch::Tensor> localGrads(const Net& net, const NetShape& s, int rank, const std::vector<int>& steps,
                                      bool useExtra = false) {
  auto ref = makeNet(s, 0);
  {
    torch::NoGradGuard g;
    const auto src = net.parameters();
    auto dst = ref->parameters();
    for (std::size_t i = 0; i < src.size(); ++i) {
      dst[i].copy_(src[i]);
    }
    if (s.buffer) {
      ref->stat.copy_(net.stat);
    }
  }
  for (int step : steps) {
    loss(*ref, s, rank, step, useExtra).backward();
  }
  std::vector<torch::Tensor> out;
  for (const auto& p : ref->parameters()) {
    out.push_back(p.grad().defined() ? p.grad().clone() : torch::zeros_like(p));
  }
  return out;
}

/// The average over ranks 0..world-1 of localGrads. `extraOnRank0` uses `extra` on rank 0 only.
std::vector<torch::Tensor> averagedGrads(const Net& net, const NetShape& s, int world, const std::vector<int>& steps,
                                         bool extraOnRank0 = false) {
  std::vector<torch::Tensor> sum;
  for (int r = 0; r < world; ++r) {
    auto g = localGrads(net, s, r, steps, extraOnRank0 && r == 0);
    if (sum.empty()) {
      sum = std::move(g);
    } else {
      for (std::size_t i = 0; i < sum.size(); ++i) {
        sum[i] += g[i];
      }
    }
  }
  for (auto& t : sum) {
    t /= world;
  }
  return sum;
}

using Checker = fathom::test::RankChecker;

/// Every parameter's gradient close to `expected` (same order as parameters()).
void checkGrads(Checker& c, const char* what, const Net& net, const std::vector<torch::Tensor>& expected,
                double rtol = 1e-5, double atol = 1e-6) {
  const auto named = net.named_parameters();
  for (std::size_t i = 0; i < named.size(); ++i) {
    const auto& g = named[i].value().grad();
    c.check(g.defined(), what, ": ", named[i].key(), " has no gradient");
    if (g.defined()) {
      c.check(torch::allclose(g, expected[i], rtol, atol), what, ": ", named[i].key(), " differs by ",
              (g - expected[i]).abs().max().item<double>());
    }
  }
}

void zeroGrads(Net& net) {
  for (auto& p : net.parameters()) {
    p.mutable_grad() = torch::Tensor();
  }
}

std::vector<CommRecord> labelled(const Comm& comm, const std::string& prefix) {
  std::vector<CommRecord> out;
  for (const auto& r : comm.records()) {
    if (r.label.rfind(prefix, 0) == 0) {
      out.push_back(r);
    }
  }
  return out;
}

// ---- scenarios (every rank runs them in the same order) --------------------------------------------------

void asyncCalls(Checker& c, fathom::runtime::ProcessGroup& group) {
  Comm comm(group);
  const int w = group.worldSize();
  auto a = torch::full({256}, static_cast<float>(group.rank() + 1));
  auto b = torch::full({3}, static_cast<double>(group.rank()), torch::kDouble);
  auto workA = comm.allReduceAsync(a, ReduceOp::Sum, "async.a");
  auto workB = comm.allReduceAsync(b, ReduceOp::Avg, "async.b");
  c.check(workA.valid() && comm.records().empty(), "async calls are recorded only when waited for");
  workB.wait();
  workA.wait();
  c.check(!workA.valid(), "a waited work is empty");
  c.check(torch::all(a == w * (w + 1) / 2.0F).item<bool>(), "async sum ", a[0].item<float>());
  c.check(torch::allclose(b, torch::full({3}, (w - 1) / 2.0, torch::kDouble)), "async avg ", b[0].item<double>());
  auto bc = torch::arange(4, torch::kFloat) * static_cast<float>(group.rank() == 0 ? 1 : 0);
  comm.broadcastAsync(bc, 0, "async.bcast").wait();
  c.check(bc[3].item<float>() == 3.0F, "async broadcast ", bc[3].item<float>());
  {
    auto dropped = torch::ones({8});
    auto never = comm.allReduceAsync(dropped, ReduceOp::Sum, "async.dropped");  // destroyed without wait()
  }
  const auto records = comm.records();
  c.check(records.size() == 4, records.size(), " async records, expected 4");
  if (records.size() == 4) {
    c.check(records[0].label == "async.b" && records[0].bytes == 24 && records[0].op == ReduceOp::Avg &&
                records[1].label == "async.a" && records[1].bytes == 1024 && records[1].kind == CommKind::AllReduce &&
                records[1].sequence == 0 && records[2].kind == CommKind::Broadcast &&
                records[3].label == "async.dropped",
            "async records: order by completion, sequence by issue");
  }
}

void averageAndBuckets(Checker& c, fathom::runtime::ProcessGroup& group) {
  const int rank = group.rank();
  const int w = group.worldSize();
  const NetShape s;
  auto net = makeNet(s, 1000 + rank);  // different weights on every rank before DDP
  const auto before = net->fcs[0]->weight.clone();
  Comm comm(group);
  DdpReducer ddp(net, comm, DdpOptions{.bucketCapMb = 0.001, .firstBucketCapMb = 0.0005});

  // Initial broadcast: everyone holds rank 0's weights now.
  const auto gathered = group.allGather(net->fcs[0]->weight.detach().contiguous());
  for (const auto& g : gathered) {
    c.check(torch::equal(g, gathered[0]), "initial weights differ between ranks");
  }
  c.check(rank == 0 ? torch::equal(before, net->fcs[0]->weight) : !torch::equal(before, net->fcs[0]->weight), "rank ",
          rank, "'s weights were ", rank == 0 ? "changed" : "not replaced", " by the initial broadcast");
  const auto init = labelled(comm, "ddp.init");
  c.check(init.size() == 2 && init[0].label == "ddp.init.verify" && init[1].kind == CommKind::Broadcast &&
              init[1].label == "ddp.init" && init[1].elements == 144 + 272 + 272 + 68,
          "init records: ", init.size());

  // Buckets: 3 for these caps (see the world-1 test for the arithmetic).
  const auto& buckets = ddp.buckets();
  c.check(buckets.size() == 3, buckets.size(), " buckets, expected 3");

  // Overlap: bucket 0's all-reduce is issued before fc0.weight's gradient (the last one) is even computed.
  std::vector<std::int64_t> lastGradAt;  // per step
  net->fcs[0]->weight.register_hook([&](const torch::Tensor&) { lastGradAt.push_back(comm.recorder().now().value); });

  for (int step = 1; step <= 2; ++step) {
    comm.markStep(step);
    zeroGrads(*net);
    loss(*net, s, rank, step).backward();
    checkGrads(c, "average", *net, averagedGrads(*net, s, w, {step}));
    const auto totals = comm.stepTotals(step);
    std::int64_t bytes = 0;
    for (const auto& b : buckets) {
      bytes += b.bytes;
    }
    c.check(totals && (*totals)[CommKind::AllReduce].count == 3 && (*totals)[CommKind::AllReduce].bytes == bytes &&
                totals->total().count == 3,
            "step ", step, ": expected 3 all_reduces of ", bytes, " bytes");
  }
  const auto bucketRecords = labelled(comm, "ddp.bucket.");
  c.check(bucketRecords.size() == 6, bucketRecords.size(), " bucket records, expected 6");
  for (std::size_t i = 0; i < bucketRecords.size() && buckets.size() == 3; ++i) {
    const auto& r = bucketRecords[i];
    const std::size_t b = i % 3;
    c.check(r.label == "ddp.bucket." + std::to_string(b) && r.bytes == buckets[b].bytes &&
                r.elements == buckets[b].elements && r.kind == CommKind::AllReduce && r.groupSize == w &&
                r.dtype == c10::ScalarType::Float,
            "bucket record ", i, ": ", r.label, " bytes ", r.bytes);
  }
  c.check(lastGradAt.size() == 2, "fc0.weight's hook fired ", lastGradAt.size(), " times");
  for (std::size_t step = 0; step < 2 && bucketRecords.size() == 6 && lastGradAt.size() == 2; ++step) {
    const auto& first = bucketRecords[3 * step];
    c.check(first.label == "ddp.bucket.0" && first.start.value < lastGradAt[step], "no overlap in step ", step + 1,
            ": bucket 0 issued at ", first.start.value, " ns, last gradient computed at ", lastGradAt[step], " ns");
  }
  c.check(ddp.syncCount() == 2, "syncCount ", ddp.syncCount());
}

/// A backward pass that autograd aborts after some buckets were issued (a hook of the user's throws): the next
/// backward reports the leftovers and resets, the one after synchronizes correctly.
void abortedBackward(Checker& c, fathom::runtime::ProcessGroup& group) {
  const int rank = group.rank();
  const int w = group.worldSize();
  const NetShape s;
  auto net = makeNet(s, 6000 + rank);
  Comm comm(group);
  DdpReducer ddp(net, comm, DdpOptions{.bucketCapMb = 0.001, .firstBucketCapMb = 0.0005});
  comm.reset();
  bool abort = true;
  net->fcs[0]->weight.register_hook([&](const torch::Tensor&) {
    if (abort) {
      throw std::runtime_error("aborted by the test");
    }
  });
  std::string first;
  try {
    loss(*net, s, rank, 0).backward();
  } catch (const std::exception& e) {
    first = e.what();
  }
  c.check(first.find("aborted by the test") != std::string::npos, "abort: '", first, "'");
  abort = false;
  std::string second;
  try {
    loss(*net, s, rank, 1).backward();
  } catch (const fathom::Error& e) {
    second = e.what();
  }
  c.check(second.find("twice") != std::string::npos, "after an aborted backward: '", second, "'");
  zeroGrads(*net);
  loss(*net, s, rank, 2).backward();
  checkGrads(c, "after abort", *net, averagedGrads(*net, s, w, {2}));
  c.check(ddp.syncCount() == 1, "syncCount after abort ", ddp.syncCount());
}

void noSync(Checker& c, fathom::runtime::ProcessGroup& group) {
  const int rank = group.rank();
  const int w = group.worldSize();
  const NetShape s;
  auto net = makeNet(s, 2000 + rank);
  Comm comm(group);
  DdpReducer ddp(net, comm, DdpOptions{.bucketCapMb = 0.002});
  comm.reset();
  ddp.setRequireGradSync(false);
  for (int step = 0; step < 3; ++step) {
    loss(*net, s, rank, step).backward();
  }
  c.check(comm.records().empty(), "no_sync communicated");
  checkGrads(c, "no_sync local", *net, localGrads(*net, s, rank, {0, 1, 2}));
  ddp.setRequireGradSync(true);
  loss(*net, s, rank, 3).backward();
  checkGrads(c, "no_sync then sync", *net, averagedGrads(*net, s, w, {0, 1, 2, 3}));
  c.check(ddp.syncCount() == 1, "syncCount after no_sync ", ddp.syncCount());
  c.check(labelled(comm, "ddp.bucket.").size() == ddp.buckets().size(), "one all_reduce per bucket");
}

void unusedParameters(Checker& c, fathom::runtime::ProcessGroup& group) {
  const int rank = group.rank();
  const int w = group.worldSize();
  const NetShape s{.extras = true};
  {
    auto net = makeNet(s, 3000 + rank);
    Comm comm(group);
    DdpReducer ddp(net, comm, DdpOptions{.bucketCapMb = 0.001});
    std::string error;
    try {
      loss(*net, s, rank, 0).backward();
    } catch (const fathom::Error& e) {
      error = e.what();
    }
    c.check(error.find("extra.weight") != std::string::npos && error.find("never.bias") != std::string::npos &&
                error.find("find_unused_parameters=true") != std::string::npos &&
                error.find("fc0.weight") == std::string::npos,
            "unused-parameter error: '", error, "'");
    c.check(ddp.syncCount() == 0, "a failed backward counted as a sync");
    // The per-pass state was reset: the next backward (now using `extra`) reports only `never`, with no
    // "received its gradient twice" from the parameters that were ready in the failed pass.
    zeroGrads(*net);
    error.clear();
    try {
      loss(*net, s, rank, 1, true).backward();
    } catch (const fathom::Error& e) {
      error = e.what();
    }
    c.check(error.find("never.weight") != std::string::npos && error.find("extra.weight") == std::string::npos &&
                error.find("twice") == std::string::npos,
            "second unused-parameter error: '", error, "'");
  }
  {
    auto net = makeNet(s, 3100 + rank);
    Comm comm(group);
    DdpReducer ddp(net, comm, DdpOptions{.bucketCapMb = 0.001, .findUnusedParameters = true});
    comm.reset();
    for (int step = 0; step < 2; ++step) {  // twice: the per-pass state resets
      zeroGrads(*net);
      loss(*net, s, rank, step, rank == 0).backward();  // `extra` used on rank 0 only, `never` nowhere
      const auto expected = averagedGrads(*net, s, w, {step}, true);
      const auto named = net->named_parameters();
      for (std::size_t i = 0; i < named.size(); ++i) {
        const auto& g = named[i].value().grad();
        if (named[i].key().rfind("never.", 0) == 0) {
          c.check(!g.defined(), "globally unused ", named[i].key(), " got a gradient");
        } else {
          c.check(g.defined() && torch::allclose(g, expected[i], 1e-5, 1e-6), "find_unused: ", named[i].key(),
                  " wrong");
        }
      }
    }
    c.check(ddp.syncCount() == 2, "find_unused syncCount ", ddp.syncCount());
    const auto usedMaps = labelled(comm, "ddp.used_map");
    c.check(usedMaps.size() == 2 && usedMaps[0].dtype == c10::ScalarType::Int &&
                usedMaps[0].elements == static_cast<std::int64_t>(net->parameters().size()),
            "used-map records: ", usedMaps.size());
  }
}

void compression(Checker& c, fathom::runtime::ProcessGroup& group, GradCompression hook) {
  const int rank = group.rank();
  const int w = group.worldSize();
  const NetShape s;
  auto net = makeNet(s, 4000 + rank);
  Comm comm(group);
  DdpReducer ddp(net, comm, DdpOptions{.bucketCapMb = 0.001, .commHook = hook});
  comm.reset();
  loss(*net, s, rank, 0).backward();
  // Relative to fp32: fp16 keeps 11 significant bits, bf16 8; terms are rounded before they are summed.
  const bool fp16 = hook == GradCompression::Fp16;
  checkGrads(c, toString(hook), *net, averagedGrads(*net, s, w, {0}), fp16 ? 1e-2 : 5e-2, fp16 ? 1e-3 : 1e-2);
  const auto records = labelled(comm, "ddp.bucket.");
  c.check(records.size() == ddp.buckets().size(), toString(hook), ": ", records.size(), " records");
  for (std::size_t i = 0; i < records.size() && i < ddp.buckets().size(); ++i) {
    // Gloo has no bfloat16 sum: bf16 is rounded on both sides but sent as float32 (docs/ddp.md).
    const auto wire = fp16 ? c10::ScalarType::Half : c10::ScalarType::Float;
    const std::int64_t width = fp16 ? 2 : 4;
    c.check(records[i].dtype == wire && records[i].bytes == ddp.buckets()[i].elements * width &&
                ddp.buckets()[i].dtype == c10::ScalarType::Float,
            toString(hook), " record ", i, ": dtype ", c10::toString(records[i].dtype), " bytes ", records[i].bytes);
  }
}

/// A bfloat16 model without compression: Gloo cannot sum bfloat16, so the buckets are summed in float32.
void bfloat16Model(Checker& c, fathom::runtime::ProcessGroup& group) {
  const int rank = group.rank();
  const int w = group.worldSize();
  const NetShape s;
  auto net = makeNet(s, 4500 + rank);
  net->to(torch::kBFloat16);
  Comm comm(group);
  DdpReducer ddp(net, comm, DdpOptions{.bucketCapMb = 0.001});
  comm.reset();
  const auto [x, y] = batch(s, rank, 0);
  torch::mse_loss(net->forward(x.to(torch::kBFloat16)).to(torch::kFloat), y).backward();  // no bf16 mse on CPU
  // The reference runs in float32 on the same (bfloat16-valued) weights; bfloat16 keeps 8 significant bits.
  auto reference = averagedGrads(*net, s, w, {0});
  const auto named = net->named_parameters();
  for (std::size_t i = 0; i < named.size(); ++i) {
    const auto& g = named[i].value().grad();
    c.check(g.defined() && g.scalar_type() == torch::kBFloat16 &&
                torch::allclose(g.to(torch::kFloat), reference[i].to(torch::kFloat), 1e-1, 2e-2),
            "bfloat16 model: ", named[i].key(), " wrong");
  }
  const auto records = labelled(comm, "ddp.bucket.");
  c.check(!records.empty() && records[0].dtype == c10::ScalarType::Float &&
              records[0].bytes == ddp.buckets()[0].elements * 4 && ddp.buckets()[0].dtype == c10::ScalarType::BFloat16,
          "bfloat16 model: the bucket was not summed as float32");
}

void buffers(Checker& c, fathom::runtime::ProcessGroup& group, bool broadcast) {
  const int rank = group.rank();
  const NetShape s{.buffer = true};
  auto net = makeNet(s, 5000 + rank);
  Comm comm(group);
  DdpReducer ddp(net, comm, DdpOptions{.broadcastBuffers = broadcast});
  comm.reset();
  {
    torch::NoGradGuard g;
    net->stat.fill_(10.0F + static_cast<float>(rank));  // ranks change the buffer differently
  }
  loss(*net, s, rank, 0).backward();
  const float expected = broadcast ? 10.0F : 10.0F + static_cast<float>(rank);
  c.check(torch::all(net->stat == expected).item<bool>(), "buffer after backward (broadcast ", broadcast,
          "): ", net->stat[0].item<float>());
  c.check(labelled(comm, "ddp.buffers").size() == (broadcast ? 1U : 0U), "ddp.buffers records");
}

int runWorker(int rank, int world, int port, int timeoutMs) {
  return fathom::test::runRankChecks(rank, [&](Checker& c) {
    auto group = fathom::test::joinWorkerGroup(rank, world, port, timeoutMs);
    asyncCalls(c, *group);
    averageAndBuckets(c, *group);
    noSync(c, *group);
    abortedBackward(c, *group);
    unusedParameters(c, *group);
    compression(c, *group, GradCompression::Fp16);
    compression(c, *group, GradCompression::Bf16);
    bfloat16Model(c, *group);
    buffers(c, *group, true);
    buffers(c, *group, false);
  });
}

}  // namespace

class TestDdpGloo : public QObject {
  Q_OBJECT

  static void checkGroup(int world) {
    QList<int> ranks;
    for (int rank = 0; rank < world; ++rank) {
      ranks << rank;
    }
    const auto results = fathom::test::runWorkerGroup(world, ranks, 60'000);
    QCOMPARE(results.size(), world);
    for (int rank = 0; rank < world; ++rank) {
      const auto& r = results[rank];
      QVERIFY2(r.exitCode == 0, qPrintable(u"rank %1 exit %2: %3"_s.arg(rank).arg(r.exitCode).arg(r.err)));
      QCOMPARE(r.out.trimmed(), u"rank %1 ok"_s.arg(rank));
    }
  }

private slots:
  void options() {
    using fathom::parallel::gradCompressionFromString;
    QVERIFY(gradCompressionFromString("no") == GradCompression::None);
    QVERIFY(gradCompressionFromString("FP16") == GradCompression::Fp16);
    QVERIFY(gradCompressionFromString("bf16") == GradCompression::Bf16);
    QVERIFY(!gradCompressionFromString("power_sgd").has_value());
    QCOMPARE(std::string(toString(GradCompression::Bf16)), std::string("bf16"));
    fathom::parallel::validate(DdpOptions{});
    for (double bad : {0.0, -1.0, std::nan("")}) {
      try {
        fathom::parallel::validate(DdpOptions{.bucketCapMb = bad});
        QFAIL("bucket_cap_mb accepted");
      } catch (const fathom::ConfigError& e) {
        QVERIFY2(std::string(e.what()).find("bucket_cap_mb") != std::string::npos, e.what());
      }
    }
    QVERIFY_THROWS_EXCEPTION(fathom::ConfigError, fathom::parallel::validate(DdpOptions{.firstBucketCapMb = 0}));
  }

  void worldOfOne() {
    auto group = fathom::runtime::ProcessGroup::create({.rank = 0,
                                                        .worldSize = 1,
                                                        .masterPort = fathom::runtime::findFreePort(),
                                                        .timeout = std::chrono::seconds(20)});
    Comm comm(*group);
    const NetShape s;
    auto net = makeNet(s, 7);
    const auto before = net->fcs[0]->weight.clone();
    DdpReducer ddp(net, comm, DdpOptions{.bucketCapMb = 0.001, .firstBucketCapMb = 0.0005});
    QVERIFY(torch::equal(before, net->fcs[0]->weight));
    QCOMPARE(ddp.module().get(), net.get());
    // Reverse registration order; caps 524 B (first) and 1048 B: fc3.bias 16 + fc3.weight 256 + fc2.bias 64 +
    // fc2.weight 1024 = 1360 >= 524 closes bucket 0; fc1.bias 64 + fc1.weight 1024 = 1088 >= 1048 closes bucket 1;
    // fc0.bias 64 + fc0.weight 512 = 576 stays open and becomes bucket 2.
    const auto& b = ddp.buckets();
    QCOMPARE(b.size(), std::size_t{3});
    QCOMPARE(b[0].parameterNames, (std::vector<std::string>{"fc3.bias", "fc3.weight", "fc2.bias", "fc2.weight"}));
    QCOMPARE(b[1].parameterNames, (std::vector<std::string>{"fc1.bias", "fc1.weight"}));
    QCOMPARE(b[2].parameterNames, (std::vector<std::string>{"fc0.bias", "fc0.weight"}));
    QCOMPARE(b[0].bytes, std::int64_t{1360});
    QCOMPARE(b[0].elements, std::int64_t{340});
    QCOMPARE(b[1].bytes, std::int64_t{1088});
    QCOMPARE(b[2].bytes, std::int64_t{576});
    QCOMPARE(b[2].dtype, c10::ScalarType::Float);

    loss(*net, s, 0, 0).backward();
    Checker c(0);
    checkGrads(c, "world 1", *net, localGrads(*net, s, 0, {0}));
    c.report();
    QVERIFY(c.ok());
    QCOMPARE(ddp.syncCount(), std::int64_t{1});
    QVERIFY(comm.records().empty());

    // Default caps: one bucket (the whole model is far below 1 MiB), still reverse order.
    auto other = makeNet(s, 8);
    DdpReducer defaults(other, comm);
    QCOMPARE(defaults.buckets().size(), std::size_t{1});
    QCOMPARE(defaults.buckets()[0].parameterNames.front(), std::string("fc3.bias"));
    QCOMPARE(defaults.buckets()[0].parameterNames.back(), std::string("fc0.weight"));
    QCOMPARE(defaults.options().bucketCapMb, 25.0);

    // Unused parameters are caught at world size 1 too.
    const NetShape withExtras{.extras = true};
    auto extras = makeNet(withExtras, 9);
    DdpReducer strict(extras, comm);
    try {
      loss(*extras, withExtras, 0, 0).backward();
      QFAIL("unused parameters accepted");
    } catch (const fathom::Error& e) {
      QVERIFY2(std::string(e.what()).find("find_unused_parameters") != std::string::npos, e.what());
    }
    QVERIFY_THROWS_EXCEPTION(fathom::ConfigError, DdpReducer(nullptr, comm));
    QVERIFY_THROWS_EXCEPTION(fathom::ConfigError, DdpReducer(makeNet(s, 1), comm, DdpOptions{.bucketCapMb = 0}));
  }

  void twoRanks() { checkGroup(2); }
  void threeRanks() { checkGroup(3); }
};

int main(int argc, char** argv) {
  if (argc == 6 && std::string_view(argv[1]) == "--worker") {
    return runWorker(std::atoi(argv[2]), std::atoi(argv[3]), std::atoi(argv[4]), std::atoi(argv[5]));
  }
  QCoreApplication app(argc, argv);
  TestDdpGloo test;
  return QTest::qExec(&test, argc, argv);
}
#include "tst_ddp_gloo.moc"
