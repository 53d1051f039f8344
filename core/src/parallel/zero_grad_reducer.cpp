// SPDX-License-Identifier: Apache-2.0
#include "zero_grad_reducer.h"

#include "storage_bytes.h"

#include "comm_work.h"

#include <fathom/common/error.h>

#include <ATen/ATen.h>
#include <torch/csrc/autograd/engine.h>
#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/utils/lambda_post_hook.h>
#include <torch/csrc/autograd/variable.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <utility>

namespace fathom::parallel {

namespace {

/// `dst` += `src`, or `dst` = a copy of `src` where `dst` is undefined; `src` may live on another device.
void accumulateInto(at::Tensor& dst, const at::Tensor& src, const at::TensorOptions& options) {
  if (!dst.defined()) {
    dst = at::empty(src.sizes(), options);
    dst.copy_(src);
  } else {
    dst.add_(src.device() == dst.device() ? src : src.to(dst.device()));
  }
}

}  // namespace

struct ZeroGradReducer::State {
  State(Comm& c, const ZeroOptions& o, const ZeroBucketLayout& l)
      : comm(c), options(o), layout(l), world(c.worldSize()) {}

  Comm& comm;
  const ZeroOptions options;
  const ZeroBucketLayout& layout;
  const int world;
  std::vector<Param> params;
  /// Kept alive on purpose: a parameter holds its accumulator only weakly, and a fresh one would not carry the hook.
  std::vector<std::shared_ptr<torch::autograd::Node>> accumulators;
  std::vector<std::uintptr_t> hookKeys;
  std::vector<at::Tensor> targets;  ///< per bucket: the tensor whose grad() is the partition gradient
  std::vector<std::string> labels;  ///< per bucket: "zero.bucket.<k>"
  at::Tensor staging;               ///< the largest padded bucket: the flat gradients being reduce-scattered
  at::Tensor scratch;               ///< the largest partition: a reduce-scatter output that is then accumulated
  std::atomic<bool> requireSync{true};
  std::atomic<bool> unreduced{false};
  std::atomic<std::int64_t> heldAtReduction{0};  ///< see gradientBytesAtLastReduction()

  // Per backward pass, under `mutex`. Invariant between passes: !active, ready all 0, pending[k] = bucket k's
  // member count, nextReduce 0, no failure.
  std::mutex mutex;
  bool active = false;
  std::vector<char> ready;           ///< per parameter: its hook fired in this pass (stage 2)
  std::vector<std::size_t> pending;  ///< per bucket: parameters whose gradient is not ready yet (stage 2)
  std::size_t nextReduce = 0;        ///< buckets [0, nextReduce) are reduced (or issued) in this pass
  std::exception_ptr failure;        ///< the first error raised in a hook, rethrown by finalize
  /// Stage 2 with overlapComm: a bucket's reduce-scatter issued from a hook, waited for by finalize.
  struct InFlight {
    std::size_t bucket = 0;
    CommWork work;
    at::Tensor input;   ///< this bucket's own flat gradients (the staging buffer is reused by the next bucket)
    at::Tensor output;  ///< this rank's reduced partition, accumulated once `work` is waited for
  };
  std::vector<InFlight> inFlight;  ///< in issue (= bucket) order

  const char* stageName() const { return options.stage == 1 ? "ZeRO-1" : "ZeRO-2"; }

  void onGradReady(std::size_t index, const std::weak_ptr<State>& self) {
    if (!requireSync.load()) {
      unreduced.store(true);  // no_sync: the full gradient accumulates in param.grad()
      return;
    }
    const std::lock_guard lock(mutex);
    // Every hook queues the callback and the first to run finalizes (as DdpReducer: a pass that autograd aborted
    // drops its callbacks, and the next pass must still finalize the leftovers).
    active = true;
    torch::autograd::Engine::get_default_engine().queue_callback([self] {
      if (auto state = self.lock()) {
        state->finalize();
      }
    });
    if (failure || options.stage == 1) {
      return;  // stage 1 reduces everything at the end of the pass
    }
    // Errors are kept for finalize: an exception out of a hook aborts backward without the callback.
    try {
      FATHOM_CHECK(!ready[index], Error, stageName(), ": parameter '", params[index].name,
                   "' received its gradient twice in one backward pass; use setRequireGradSync(false) to accumulate ",
                   "over several backward passes");
      ready[index] = 1;
      --pending[layout.bucketOf(index)];
      while (options.overlapComm && nextReduce < pending.size() && pending[nextReduce] == 0) {
        issueBucket(nextReduce++);  // strictly in bucket order, so every rank issues the same sequence
      }
    } catch (...) {
      failure = std::current_exception();
    }
  }

  /// Copies bucket k's gradients (zeros for a parameter without one, zero padding) into `flat`.
  void fillBucket(std::size_t k, at::Tensor& flat) {
    const ZeroBucketLayout::Bucket& b = layout.buckets()[k];
    for (const ZeroBucketLayout::Slot& slot : b.members) {
      const at::Tensor& param = params[slot.tensor].tensor;
      at::Tensor dst = flat.narrow(0, slot.offset, slot.elements);
      const at::Tensor& grad = param.grad();
      if (grad.defined()) {
        FATHOM_CHECK(!grad.is_sparse(), ConfigError, stageName(), ": parameter '", params[slot.tensor].name,
                     "' has a sparse gradient; sparse gradients are not supported");
        dst.view(param.sizes()).copy_(grad);
      } else {
        dst.zero_();  // unused in this pass: a zero contribution
      }
    }
    if (b.padded > b.elements) {
      flat.narrow(0, b.elements, b.padded - b.elements).zero_();  // the padding reduces to zero gradients
    }
  }

  void releaseGrads(std::size_t k) {
    for (const ZeroBucketLayout::Slot& slot : layout.buckets()[k].members) {
      params[slot.tensor].tensor.mutable_grad() = at::Tensor();  // only the partition's gradient is kept
    }
  }

  /// Stage 2 with overlapComm: issues bucket k's reduce-scatter without waiting. The bucket gets its own input
  /// buffer, because a native reduce_scatter reads it until the wait while the next bucket is being staged.
  void issueBucket(std::size_t k) {
    if (world == 1) {
      reduceBucket(k);
      return;
    }
    const at::NoGradGuard noGrad;
    const ZeroBucketLayout::Bucket& b = layout.buckets()[k];
    InFlight f{.bucket = k};
    f.input = at::empty({b.padded}, staging.options());
    fillBucket(k, f.input);
    f.output = at::empty({b.shard}, staging.options());
    f.work = comm.reduceScatterAsync(f.input, f.output, runtime::ReduceOp::Avg, labels[k]);
    inFlight.push_back(std::move(f));
    releaseGrads(k);
  }

  /// Waits for the reduce-scatters in flight, in issue order, and accumulates each into its partition gradient
  /// (the same arithmetic as reduceBucket: a first reduction becomes the gradient, later ones are added).
  void finishBuckets() {
    const at::NoGradGuard noGrad;
    for (InFlight& f : inFlight) {
      f.work.wait();
      at::Tensor& grad = targets[f.bucket].mutable_grad();
      const at::TensorOptions options = targets[f.bucket].options();
      if (!grad.defined() && options.device() == f.output.device()) {
        grad = f.output;  // this bucket's own tensor, aliasing nothing kept
      } else {
        accumulateInto(grad, f.output, options);  // offloaded: to the host as soon as it is reduced
      }
    }
    inFlight.clear();
  }

  void reduceBucket(std::size_t k) {
    const at::NoGradGuard noGrad;
    const ZeroBucketLayout::Bucket& b = layout.buckets()[k];
    at::Tensor flat = staging.narrow(0, 0, b.padded);
    fillBucket(k, flat);
    at::Tensor& grad = targets[k].mutable_grad();
    const at::TensorOptions options = targets[k].options();
    if (world == 1) {
      accumulateInto(grad, flat, options);
    } else if (!grad.defined() && options.device() == flat.device()) {
      grad = at::empty({b.shard}, flat.options());
      comm.reduceScatter(flat, grad, runtime::ReduceOp::Avg, labels[k]);
    } else {
      at::Tensor out = scratch.narrow(0, 0, b.shard);
      comm.reduceScatter(flat, out, runtime::ReduceOp::Avg, labels[k]);
      accumulateInto(grad, out, options);  // offloaded: to the host as soon as it is reduced
    }
    releaseGrads(k);
  }

  /// End of a synchronized backward pass (the engine's final callback): reduces every bucket not reduced yet
  /// (stage 1: all of them; stage 2: those with unused parameters, or all without overlapComm).
  void finalize() {
    const std::lock_guard lock(mutex);
    if (!active) {
      return;  // an earlier callback of this pass finalized it
    }
    struct Reset {
      State& s;
      ~Reset() { s.resetPass(); }
    } reset{*this};
    if (failure) {
      std::rethrow_exception(failure);
    }
    // What the parameters' gradients hold now, before any of them is released: stage 1's full gradients.
    DistinctStorageBytes held;
    for (const Param& p : params) {
      held.add(p.tensor.grad());
    }
    heldAtReduction.store(held.bytes());
    // Buckets the hooks issued are waited for first, in order: their partition gradients are then complete
    // before the rest (unused parameters, or all of them without overlapComm) are reduced synchronously.
    finishBuckets();
    for (; nextReduce < layout.buckets().size(); ++nextReduce) {
      reduceBucket(nextReduce);
    }
    unreduced.store(false);
  }

  void resetPass() noexcept {
    inFlight.clear();  // after a failure: each CommWork drains its collective as it goes
    std::fill(ready.begin(), ready.end(), 0);
    for (std::size_t k = 0; k < pending.size(); ++k) {
      pending[k] = layout.buckets()[k].members.size();
    }
    nextReduce = 0;
    failure = nullptr;
    active = false;
  }
};

ZeroGradReducer::ZeroGradReducer(Comm& comm, const ZeroOptions& options, const ZeroBucketLayout& layout,
                                 std::vector<Param> params, std::vector<at::Tensor> targets,
                                 const at::TensorOptions& device)
    : m_state(std::make_shared<State>(comm, options, layout)) {
  State& s = *m_state;
  FATHOM_ASSERT(targets.size() == layout.buckets().size(), "one gradient target per bucket");
  s.params = std::move(params);
  s.targets = std::move(targets);
  std::int64_t maxPadded = 0;
  std::int64_t maxShard = 0;
  for (std::size_t k = 0; k < layout.buckets().size(); ++k) {
    s.labels.push_back("zero.bucket." + std::to_string(k));
    maxPadded = std::max(maxPadded, layout.buckets()[k].padded);
    maxShard = std::max(maxShard, layout.buckets()[k].shard);
  }
  s.staging = at::zeros({maxPadded}, device);
  if (s.world > 1) {
    s.scratch = at::empty({maxShard}, device);
  }
  s.ready.assign(s.params.size(), 0);
  s.pending.assign(layout.buckets().size(), 0);
  s.resetPass();

  const std::weak_ptr<State> weak = m_state;
  for (std::size_t i = 0; i < s.params.size(); ++i) {
    auto accumulator = torch::autograd::impl::grad_accumulator(s.params[i].tensor);
    FATHOM_ASSERT(accumulator != nullptr, "a leaf parameter that requires grad has a gradient accumulator");
    s.hookKeys.push_back(accumulator->add_post_hook(std::make_unique<torch::autograd::utils::LambdaPostHook>(
        [weak, i](const torch::autograd::variable_list& outputs, const torch::autograd::variable_list&) {
          if (auto state = weak.lock()) {
            state->onGradReady(i, weak);
          }
          return outputs;
        })));
    s.accumulators.push_back(std::move(accumulator));
  }
}

ZeroGradReducer::~ZeroGradReducer() {
  for (std::size_t i = 0; i < m_state->accumulators.size(); ++i) {
    m_state->accumulators[i]->del_post_hook(m_state->hookKeys[i]);
  }
}

void ZeroGradReducer::setRequireSync(bool sync) {
  m_state->requireSync.store(sync);
}

bool ZeroGradReducer::requireSync() const {
  return m_state->requireSync.load();
}

bool ZeroGradReducer::hasUnreducedGradients() const {
  return m_state->unreduced.load();
}

std::int64_t ZeroGradReducer::gradientBytesAtLastReduction() const {
  return m_state->heldAtReduction.load();
}

std::int64_t ZeroGradReducer::workspaceBytes() const {
  DistinctStorageBytes bytes;
  bytes.add(m_state->staging);
  bytes.add(m_state->scratch);
  return bytes.bytes();
}

}  // namespace fathom::parallel
