// SPDX-License-Identifier: Apache-2.0
#include <fathom/parallel/ddp_reducer.h>

#include "comm_work.h"

#include <fathom/common/error.h>
#include <fathom/parallel/module_state_sync.h>

#include <ATen/ATen.h>
#include <torch/csrc/autograd/engine.h>
#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/utils/lambda_post_hook.h>
#include <torch/csrc/autograd/variable.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <optional>
#include <unordered_set>
#include <utility>

namespace fathom::parallel {

namespace {

/// A parameter that requires grad, with its place in a bucket.
struct ParamSlot {
  std::string name;
  at::Tensor param;
  std::size_t bucket = 0;
  std::int64_t offset = 0;  ///< element offset in the bucket's buffer
  /// Kept alive on purpose: a parameter holds its accumulator only weakly, and a fresh one (without our hook)
  /// would be created for the next graph if this one died.
  std::shared_ptr<torch::autograd::Node> accumulator;
  std::uintptr_t hookKey = 0;
};

struct BucketRuntime {
  at::Tensor buffer;                       ///< flat, contiguous, dtype/device of its parameters
  std::vector<std::size_t> params;         ///< indices into State::params, in buffer order
  std::string label;                       ///< "ddp.bucket.<i>"
  std::size_t pending = 0;                 ///< parameters not yet ready in this backward pass
  at::Tensor wire;                         ///< what is all-reduced: the buffer, or its compressed copy
  std::optional<c10::ScalarType> roundTo;  ///< round `wire` to this type before copying it back (bf16 on Gloo)
  CommWork work;                           ///< in flight from launch to finalize
};

/// Whether `grad` is the bucket slot itself (same memory, same extent): set up by finalize after the first
/// synchronized step, kept until the optimizer replaces the gradient (set_to_none) or the model is unprepared.
bool aliasesSlot(const at::Tensor& grad, const at::Tensor& slot) {
  return grad.defined() && grad.data_ptr() == slot.data_ptr() && grad.numel() == slot.numel() && grad.is_contiguous();
}

std::int64_t capBytes(double mb) {
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(mb * 1024.0 * 1024.0));  // torch: int(mb * 1024 * 1024)
}

c10::ScalarType wireType(GradCompression hook) {
  return hook == GradCompression::Fp16 ? c10::ScalarType::Half : c10::ScalarType::BFloat16;
}

}  // namespace

struct DdpReducer::State {
  State(Comm& c, DdpOptions o) : comm(c), options(o), world(c.worldSize()) {}

  Comm& comm;
  const DdpOptions options;
  const int world;
  std::vector<ParamSlot> params;
  std::vector<BucketRuntime> runtime;
  std::vector<DdpBucket> buckets;
  std::vector<at::Tensor> buffers;
  std::atomic<bool> requireSync{true};
  std::atomic<std::int64_t> syncCount{0};

  // Per backward pass, under `mutex`. Invariant between passes: !active, every flag 0, every bucket's pending
  // equal to its size, nextLaunch 0, no work held.
  std::mutex mutex;
  bool active = false;         ///< a hook fired since the last finalize
  std::vector<char> ready;     ///< per parameter: marked ready (hook fired, or zero-filled at finalize)
  std::vector<char> used;      ///< per parameter: its hook fired in this pass
  std::size_t nextLaunch = 0;  ///< buckets [0, nextLaunch) have been launched
  std::exception_ptr failure;  ///< the first error raised in a hook, rethrown by finalize

  bool communicate() const { return world > 1; }
  void onGradReady(std::size_t index, const std::weak_ptr<State>& self) {
    if (!requireSync.load()) {
      return;  // no_sync: gradients accumulate locally
    }
    const std::lock_guard lock(mutex);
    // The callback runs once the engine has finished this backward pass, before backward() returns. Every hook
    // queues one and the first to run finalizes (the rest find !active): queuing only on the first hook of a pass
    // would never finalize again after a backward pass that autograd aborted (its callbacks are dropped with its
    // graph task while `active` stays set); this way the next pass finalizes, and reports, the leftovers.
    active = true;
    torch::autograd::Engine::get_default_engine().queue_callback([self] {
      if (auto state = self.lock()) {
        state->finalize();
      }
    });
    // Errors are kept for finalize rather than thrown here: an exception out of a hook aborts the backward pass
    // without running the final callback, which would leave this pass's state (and issued collectives) behind.
    if (failure) {
      return;
    }
    try {
      FATHOM_CHECK(!ready[index], Error, "DDP: parameter '", params[index].name,
                   "' received its gradient twice in one backward pass; a parameter may take part in the autograd ",
                   "graph of one synchronized backward only once (use setRequireGradSync(false) for gradient ",
                   "accumulation over several backward passes)");
      used[index] = 1;
      markReady(index);
    } catch (...) {
      failure = std::current_exception();
    }
  }

  /// Copies the parameter's gradient (zeros when it has none) into its bucket slot and launches every bucket
  /// that is now complete and whose predecessors have all been launched.
  void markReady(std::size_t index) {
    ParamSlot& p = params[index];
    BucketRuntime& b = runtime[p.bucket];
    if (communicate()) {
      const at::NoGradGuard noGrad;
      at::Tensor slot = b.buffer.narrow(0, p.offset, p.param.numel());
      const at::Tensor& grad = p.param.grad();
      if (grad.defined()) {
        FATHOM_CHECK(!grad.is_sparse(), ConfigError, "DDP: parameter '", p.name,
                     "' has a sparse gradient; sparse gradients are not supported");
        if (!aliasesSlot(grad, slot)) {
          slot.view(p.param.sizes()).copy_(grad);
        }
      } else {
        slot.zero_();
      }
    }
    ready[index] = 1;
    --b.pending;
    while (nextLaunch < runtime.size() && runtime[nextLaunch].pending == 0) {
      launch(runtime[nextLaunch]);
      ++nextLaunch;
    }
  }

  void launch(BucketRuntime& b) {
    if (!communicate()) {
      return;
    }
    const at::NoGradGuard noGrad;
    // Divide before summing, as torch's default hook and its fp16/bf16 compress hooks do.
    if (options.commHook == GradCompression::None) {
      b.buffer.div_(world);
      b.wire = b.buffer;
    } else {
      b.wire = b.buffer.to(wireType(options.commHook)).div_(world);
    }
    // Gloo has no bfloat16 reduction ("Invalid scalar type" in LibTorch 1.13 and later): sum in float32 and round
    // the result back to bfloat16 in finalize, so the values are those of a bfloat16 all-reduce up to the
    // rounding of partial sums; the record shows the float32 that was sent.
    b.roundTo.reset();
    if (b.wire.scalar_type() == c10::ScalarType::BFloat16 && comm.backend() == runtime::CommBackend::Gloo) {
      b.wire = b.wire.to(c10::ScalarType::Float);
      b.roundTo = c10::ScalarType::BFloat16;
    }
    b.work = comm.allReduceAsync(b.wire, runtime::ReduceOp::Sum, b.label);
  }

  /// End of a synchronized backward pass (the engine's final callback).
  void finalize() {
    const std::lock_guard lock(mutex);
    if (!active) {
      return;  // an earlier callback of this pass finalized it
    }
    struct Reset {
      State& s;
      ~Reset() { s.resetPass(); }  // also when a wait or the unused-parameter check throws
    } reset{*this};

    if (failure) {
      drainWorks();
      std::rethrow_exception(failure);
    }
    std::vector<std::size_t> unused;
    for (std::size_t i = 0; i < params.size(); ++i) {
      if (!ready[i]) {
        unused.push_back(i);
      }
    }
    if (!unused.empty() && !options.findUnusedParameters) {
      std::string names;
      for (std::size_t i : unused) {
        names += (names.empty() ? "" : ", ") + params[i].name;
      }
      drainWorks();
      throw Error(detail::concat(
          "DDP: rank ", comm.rank(), ": ", unused.size(), " parameter(s) received no gradient in this backward pass: ",
          names, ". Every parameter that requires grad must take part in producing the loss; if some do not (on ",
          "some steps or ranks), enable unused-parameter detection: find_unused_parameters=true ",
          "(DdpOptions::findUnusedParameters)"));
    }
    for (std::size_t i : unused) {
      markReady(i);  // zero contribution, or the gradient accumulated earlier (torch does the same)
    }
    FATHOM_ASSERT(nextLaunch == runtime.size(), "every bucket must be launched at finalize");

    if (communicate()) {
      // Which parameters got a gradient on any rank (torch's local_used_map): a parameter no rank used keeps
      // its gradient untouched.
      at::Tensor usedMap;
      CommWork usedWork;
      if (options.findUnusedParameters) {
        usedMap = at::empty({static_cast<std::int64_t>(params.size())}, at::kInt);
        std::copy(used.begin(), used.end(), usedMap.data_ptr<int>());
        usedWork = comm.allReduceAsync(usedMap, runtime::ReduceOp::Sum, "ddp.used_map");
      }
      const at::NoGradGuard noGrad;
      for (BucketRuntime& b : runtime) {
        b.work.wait();
        if (!b.wire.is_same(b.buffer)) {
          b.buffer.copy_(b.roundTo ? b.wire.to(*b.roundTo) : b.wire);  // decompress
        }
      }
      usedWork.wait();
      const int* usedAnywhere = usedMap.defined() ? usedMap.data_ptr<int>() : nullptr;
      for (std::size_t i = 0; i < params.size(); ++i) {
        ParamSlot& p = params[i];
        if (usedAnywhere != nullptr && usedAnywhere[i] == 0) {
          continue;  // no rank produced a gradient: leave param.grad() as it is (undefined, or accumulated)
        }
        const at::Tensor& buffer = runtime[p.bucket].buffer;
        at::Tensor& grad = p.param.mutable_grad();
        if (aliasesSlot(grad, buffer.narrow(0, p.offset, p.param.numel()))) {
          continue;  // the average is already in place
        }
        if (p.param.is_contiguous()) {
          // torch's gradient_as_bucket_view: param.grad() becomes the bucket slot itself, so the next backward
          // accumulates into the bucket (autograd adds in place) and neither copy happens again. The alias is
          // made with set_() rather than a view, so in-place calls on it (LibTorch's zero_grad() detach_()s
          // the gradient) stay legal; zeroing or replacing the gradient keeps everything correct.
          at::Tensor alias = at::empty({0}, buffer.options());
          alias.set_(buffer.storage(), buffer.storage_offset() + p.offset, p.param.sizes(), p.param.strides());
          grad = alias;
        } else {
          const at::Tensor averaged = buffer.narrow(0, p.offset, p.param.numel()).view(p.param.sizes());
          if (grad.defined()) {
            grad.copy_(averaged);
          } else {
            grad = averaged.clone();  // used on other ranks only: this rank gets the average too
          }
        }
      }
      if (options.broadcastBuffers && !buffers.empty()) {
        broadcastCoalesced(comm, buffers, "ddp.buffers");
      }
    }
    ++syncCount;
  }

  /// Waits for launched buckets, ignoring errors: before an error leaves finalize, collectives that every rank
  /// issued must drain so the group stays usable.
  void drainWorks() noexcept {
    for (BucketRuntime& b : runtime) {
      b.work = CommWork();  // move-assignment waits quietly for the one held
    }
  }

  void resetPass() noexcept {
    drainWorks();
    for (BucketRuntime& b : runtime) {
      b.pending = b.params.size();
      b.wire = at::Tensor();
      b.roundTo.reset();
    }
    std::fill(ready.begin(), ready.end(), 0);
    std::fill(used.begin(), used.end(), 0);
    nextLaunch = 0;
    failure = nullptr;
    active = false;
  }
};

DdpReducer::DdpReducer(std::shared_ptr<torch::nn::Module> module, Comm& comm, DdpOptions options)
    : m_module(std::move(module)) {
  validate(options);
  FATHOM_CHECK(m_module != nullptr, ConfigError, "DDP needs a module, got null");
  m_state = std::make_shared<State>(comm, options);
  State& s = *m_state;

  // Parameters in registration order, each tensor once (tied weights are registered under several names).
  std::vector<std::pair<std::string, at::Tensor>> named;
  std::unordered_set<const void*> seen;
  for (const auto& item : m_module->named_parameters(/*recurse=*/true)) {
    if (seen.insert(item.value().unsafeGetTensorImpl()).second) {
      named.emplace_back(item.key(), item.value());
    }
  }
  for (const auto& item : m_module->named_buffers(/*recurse=*/true)) {
    if (item.value().defined() && seen.insert(item.value().unsafeGetTensorImpl()).second) {
      s.buffers.push_back(item.value());
    }
  }

  if (s.communicate()) {
    syncModuleStates(comm, *m_module, "ddp.init");
  }

  // Bucket assignment (torch's compute_bucket_assignment_by_size over the gradient-ready order).
  std::vector<std::size_t> order;  // indices into `named`, reverse registration order, requiring grad
  for (std::size_t i = named.size(); i-- > 0;) {
    if (named[i].second.requires_grad()) {
      order.push_back(i);
    }
  }
  FATHOM_CHECK(!order.empty(), ConfigError, "DDP: the module has no parameter that requires grad");
  const std::int64_t limits[2] = {capBytes(options.firstBucketCapMb), capBytes(options.bucketCapMb)};
  struct Open {
    c10::ScalarType dtype;
    c10::Device device;
    std::vector<std::size_t> members;
    std::int64_t bytes = 0;
    int limit = 0;
  };
  std::vector<Open> open;
  std::vector<std::vector<std::size_t>> closed;
  for (std::size_t i : order) {
    const at::Tensor& t = named[i].second;
    auto it = std::find_if(open.begin(), open.end(),
                           [&](const Open& o) { return o.dtype == t.scalar_type() && o.device == t.device(); });
    if (it == open.end()) {
      open.push_back(Open{t.scalar_type(), t.device(), {}, 0, 0});
      it = std::prev(open.end());
    }
    it->members.push_back(i);
    it->bytes += t.numel() * static_cast<std::int64_t>(t.element_size());
    if (it->bytes >= limits[it->limit]) {
      closed.push_back(std::move(it->members));
      it->members.clear();
      it->bytes = 0;
      it->limit = 1;
    }
  }
  for (Open& o : open) {
    if (!o.members.empty()) {
      closed.push_back(std::move(o.members));
    }
  }
  // Buckets in the order they complete: by the position of their first gradient in the ready order.
  std::vector<std::size_t> position(named.size());
  for (std::size_t k = 0; k < order.size(); ++k) {
    position[order[k]] = k;
  }
  std::stable_sort(closed.begin(), closed.end(),
                   [&](const auto& a, const auto& b) { return position[a.front()] < position[b.front()]; });

  for (std::size_t bi = 0; bi < closed.size(); ++bi) {
    DdpBucket info;
    BucketRuntime rt;
    rt.label = "ddp.bucket." + std::to_string(bi);
    for (std::size_t i : closed[bi]) {
      const auto& [name, t] = named[i];
      ParamSlot slot;
      slot.name = name;
      slot.param = t;
      slot.bucket = bi;
      slot.offset = info.elements;
      info.parameterNames.push_back(name);
      info.elements += t.numel();
      info.dtype = t.scalar_type();
      rt.params.push_back(s.params.size());
      s.params.push_back(std::move(slot));
    }
    info.bytes = info.elements * static_cast<std::int64_t>(c10::elementSize(info.dtype));
    const at::Tensor& first = named[closed[bi].front()].second;
    rt.buffer = at::zeros({info.elements}, at::TensorOptions().dtype(info.dtype).device(first.device()));
    rt.pending = rt.params.size();
    s.buckets.push_back(std::move(info));
    s.runtime.push_back(std::move(rt));
  }
  s.ready.assign(s.params.size(), 0);
  s.used.assign(s.params.size(), 0);

  const std::weak_ptr<State> weak = m_state;
  for (std::size_t i = 0; i < s.params.size(); ++i) {
    ParamSlot& p = s.params[i];
    p.accumulator = torch::autograd::impl::grad_accumulator(p.param);
    FATHOM_ASSERT(p.accumulator != nullptr, "a leaf parameter that requires grad has a gradient accumulator");
    p.hookKey = p.accumulator->add_post_hook(std::make_unique<torch::autograd::utils::LambdaPostHook>(
        [weak, i](const torch::autograd::variable_list& outputs, const torch::autograd::variable_list&) {
          if (auto state = weak.lock()) {
            state->onGradReady(i, weak);
          }
          return outputs;
        }));
  }
}

DdpReducer::~DdpReducer() {
  for (ParamSlot& p : m_state->params) {
    if (p.accumulator) {
      p.accumulator->del_post_hook(p.hookKey);
    }
  }
}

void DdpReducer::setRequireGradSync(bool sync) {
  m_state->requireSync.store(sync);
}

bool DdpReducer::requireGradSync() const {
  return m_state->requireSync.load();
}

const std::vector<DdpBucket>& DdpReducer::buckets() const {
  return m_state->buckets;
}

std::vector<at::Tensor> DdpReducer::bucketBuffers() const {
  std::vector<at::Tensor> out;
  for (const BucketRuntime& b : m_state->runtime) {
    out.push_back(b.buffer);
  }
  return out;
}

std::int64_t DdpReducer::syncCount() const {
  return m_state->syncCount.load();
}

const DdpOptions& DdpReducer::options() const {
  return m_state->options;
}

std::shared_ptr<torch::nn::Module> DdpReducer::module() const {
  return m_module;
}

}  // namespace fathom::parallel
