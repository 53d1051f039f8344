// SPDX-License-Identifier: Apache-2.0
#include <fathom/parallel/fully_sharded_engine.h>

#include "comm_work.h"
#include "fully_sharded_units.h"
#include "runtime/torch_compat.h"

#include <fathom/common/error.h>
#include <fathom/parallel/module_state_sync.h>
#include <fathom/parallel/unit_scope.h>

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>
#include <torch/csrc/autograd/engine.h>
#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/utils/lambda_post_hook.h>
#include <torch/csrc/autograd/variable.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <mutex>
#include <unordered_map>

namespace fathom::parallel {

FullyShardedConfig FullyShardedConfig::fromFsdp(const FsdpOptions& options) {
  validate(options);
  FATHOM_CHECK(!options.mixedPrecision.paramDtype, ConfigError,
               "FSDP mixed_precision_policy.param_dtype is not supported: Fathom's FSDP keeps float32 parameters; "
               "use mixed_precision bf16/fp16 (autocast) for low-precision compute");
  FATHOM_CHECK(!options.mixedPrecision.bufferDtype, ConfigError,
               "FSDP mixed_precision_policy.buffer_dtype is not supported: buffers keep their dtype");
  FATHOM_CHECK(!options.offloadParams || options.shardingStrategy != FsdpShardingStrategy::NoShard, ConfigError,
               "fsdp_offload_params needs a sharded strategy (FULL_SHARD, SHARD_GRAD_OP, HYBRID_SHARD or "
               "HYBRID_SHARD_ZERO2), not NO_SHARD");
  FullyShardedConfig c;
  c.sharding = options.shardingStrategy;
  c.wrapPolicy = options.autoWrapPolicy;
  c.unitClassNames = options.transformerLayerClsToWrap;
  c.minNumParams = options.minNumParams;
  c.backwardPrefetch = options.backwardPrefetch;
  c.forwardPrefetch = options.forwardPrefetch;
  c.limitAllGathers = options.limitAllGathers;
  c.reduceDtype = options.mixedPrecision.reduceDtype;
  c.offloadParams = options.offloadParams;
  c.syncModuleStates = options.syncModuleStates;
  return c;
}

FullyShardedConfig FullyShardedConfig::fromZero3(const ZeroOptions& options) {
  validate(options);
  FATHOM_CHECK(options.stage == 3, ConfigError, "the fully sharded engine runs ZeRO stage 3, not stage ",
               options.stage);
  FATHOM_CHECK(options.offloadOptimizer != OffloadDevice::Nvme && options.offloadParams != OffloadDevice::Nvme,
               ConfigError, "ZeRO-Infinity NVMe offload is not supported; offload to 'cpu'");
  FullyShardedConfig c;
  c.zero3 = true;
  c.sharding = FsdpShardingStrategy::FullShard;
  c.offloadParams = options.offloadParams == OffloadDevice::Cpu;
  // With the parameters offloaded the optimizer already steps the host shard; a master copy would duplicate it.
  c.offloadOptimizer = options.offloadOptimizer == OffloadDevice::Cpu && !c.offloadParams;
  c.backwardPrefetch = FsdpBackwardPrefetch::BackwardPre;
  c.syncModuleStates = true;
  c.overlapComm = options.overlapComm;  // DeepSpeed's overlap_comm covers stage 3's fetches and reductions too
  return c;
}

namespace {

using detail::ShardedUnit;

class Hooks final : public UnitHooks {
public:
  Hooks(std::weak_ptr<FullyShardedEngine::State> state, std::size_t unit) : m_state(std::move(state)), m_unit(unit) {}
  void preForward() override;
  void postForward(const std::vector<at::Tensor>& outputs) override;

private:
  std::weak_ptr<FullyShardedEngine::State> m_state;
  std::size_t m_unit;
};

}  // namespace

struct FullyShardedEngine::State {
  State(Comm* s, Comm* r, FullyShardedConfig c)
      : shardComm(s), replicaComm(r), config(std::move(c)), prefix(config.zero3 ? "zero3" : "fsdp") {}

  Comm* shardComm;
  Comm* replicaComm;
  const FullyShardedConfig config;
  const std::string prefix;
  std::vector<ShardedUnit> units;  ///< root first when it has parameters, then the wrapped modules
  std::atomic<bool> requireSync{true};

  // Under `mutex` (forward runs on the caller's thread, hooks on autograd's).
  std::recursive_mutex mutex;
  bool passActive = false;
  bool rootScoped = false;             ///< the root module opened a UnitScope (then it may be freed)
  std::vector<std::size_t> execOrder;  ///< units in the order their forward ran in the first iteration
  bool orderKnown = false;
  std::int64_t gatheredBytes = 0;
  std::int64_t peakGatheredBytes = 0;

  /// A post-backward reduction in flight (overlapComm): completed by finishReductions in issue order.
  struct PendingReduction {
    std::size_t unit = 0;
    CommWork work;
    at::Tensor reduced;  ///< the shard gradient (the whole flat gradient for NO_SHARD), once `work` is waited for
  };
  std::vector<PendingReduction> reductions;

  bool hasRoot() const { return !units.empty() && units.front().root; }

  /// Allocates unit i and issues its all-gather; with overlapComm it stays in flight until someone needs the unit
  /// (gather) or it is released. Counted as gathered from the issue on: memory and the rate limiter both see it.
  void issueGather(std::size_t i, const char* phase) {
    ShardedUnit& u = units[i];
    if (u.flat->gathered())
      return;
    const std::string label = prefix + "." + phase + "." + u.flat->label();
    if (config.overlapComm)
      u.flat->gatherAsync(shardComm, label);
    else
      u.flat->gather(shardComm, label);
    if (u.flat->sharded()) {
      gatheredBytes += u.flat->fullBytes();
      peakGatheredBytes = std::max(peakGatheredBytes, gatheredBytes);
    }
  }

  /// Unit i gathered and readable: issues its all-gather if nobody prefetched it, and waits for it.
  void gather(std::size_t i, const char* phase) {
    issueGather(i, phase);
    units[i].flat->waitGathered();
  }

  /// Waits for every collective in flight: reductions first (they complete the shard gradients), then prefetches
  /// nobody used (the backend still reads their shards, which the optimizer is about to step).
  void drain() {
    finishReductions();
    for (ShardedUnit& u : units)
      u.flat->waitGathered();
  }

  void release(std::size_t i) {
    ShardedUnit& u = units[i];
    if (!u.flat->gathered() || !u.flat->sharded())
      return;
    u.flat->free();
    gatheredBytes -= u.flat->fullBytes();
  }

  /// FSDP keeps the root gathered from forward to backward; SHARD_GRAD_OP and HYBRID_SHARD_ZERO2 every unit.
  bool freeAfterForward(std::size_t i) const {
    if (units[i].root)
      return config.zero3 && rootScoped;
    return config.zero3 || config::reshardsAfterForward(config.sharding);
  }

  bool freeAfterBackward(std::size_t i) const { return !units[i].root || rootScoped; }

  /// Sharded units gathered now or being gathered, the root excepted (the rate limiter's count).
  int unitsInFlight() const {
    int n = 0;
    for (const ShardedUnit& u : units)
      n += (!u.root && u.flat->sharded() && u.flat->gathered()) ? 1 : 0;
    return n;
  }

  /// The unit after `i` in forward order (step +1) or backward order (step -1), if the order is known.
  std::optional<std::size_t> neighbour(std::size_t i, int step) const {
    if (!orderKnown)
      return std::nullopt;
    const auto it = std::find(execOrder.begin(), execOrder.end(), i);
    if (it == execOrder.end())
      return std::nullopt;
    const auto pos = static_cast<std::ptrdiff_t>(it - execOrder.begin()) + step;
    if (pos < 0 || pos >= static_cast<std::ptrdiff_t>(execOrder.size()))
      return std::nullopt;
    return execOrder[static_cast<std::size_t>(pos)];
  }

  void prefetch(std::optional<std::size_t> next, const char* phase) {
    if (next && !units[*next].flat->gathered() && unitsInFlight() <= config.limitAllGathers)
      issueGather(*next, phase);
  }

  void preForward(std::size_t i) {
    const std::lock_guard lock(mutex);
    if (passActive)
      resetPass();  // a backward pass that threw left its state behind
    ShardedUnit& u = units[i];
    if (u.root) {
      rootScoped = true;
    } else if (hasRoot() && !units.front().flat->gathered()) {
      gather(0, "forward");  // a block run outside the root's forward
    }
    if (!orderKnown && std::find(execOrder.begin(), execOrder.end(), i) == execOrder.end())
      execOrder.push_back(i);
    gather(i, "forward");
    if (config.forwardPrefetch)
      prefetch(neighbour(i, +1), "forward");
  }

  void postForward(std::size_t i, const std::vector<at::Tensor>& outputs, const std::weak_ptr<State>& self) {
    const std::lock_guard lock(mutex);
    if (at::GradMode::is_enabled()) {
      for (const at::Tensor& out : outputs) {
        if (out.defined() && out.requires_grad()) {
          out.register_hook([self, i](const at::Tensor&) {
            if (auto state = self.lock())
              state->preBackward(i, self);
          });
        }
      }
    }
    if (freeAfterForward(i))
      release(i);
  }

  void beginPass(const std::weak_ptr<State>& self) {
    // Queued by every hook (the first to run finalizes): a pass that autograd aborted drops its callbacks, and
    // queuing once per pass would then never finalize again.
    passActive = true;
    torch::autograd::Engine::get_default_engine().queue_callback([self] {
      if (auto state = self.lock())
        state->finalize();
    });
  }

  void preBackward(std::size_t i, const std::weak_ptr<State>& self) {
    const std::lock_guard lock(mutex);
    beginPass(self);
    gather(i, "backward");
    if (config.backwardPrefetch == FsdpBackwardPrefetch::BackwardPre)
      prefetch(neighbour(i, -1), "backward");
  }

  void onGradReady(std::size_t i, const std::weak_ptr<State>& self) {
    const std::lock_guard lock(mutex);
    beginPass(self);
    ShardedUnit& u = units[i];
    FATHOM_CHECK(u.pending > 0, Error, prefix, ": unit '", u.flat->label(),
                 "' received more gradients than it has parameters in one backward pass");
    if (--u.pending == 0)
      postBackward(i);
  }

  void postBackward(std::size_t i) {
    ShardedUnit& u = units[i];
    u.done = true;
    if (!u.accumulators.empty() && (requireSync.load() || config.zero3))
      reduce(i);
    if (freeAfterBackward(i))
      release(i);
    if (config.backwardPrefetch == FsdpBackwardPrefetch::BackwardPost)
      prefetch(neighbour(i, -1), "backward");
  }

  /// The tensor the optimizer steps for `u`: the host master (ZeRO-3 offload_optimizer) or the shard.
  at::Tensor& stepTensor(ShardedUnit& u) { return u.master.defined() ? u.master : u.flat->shard(); }

  /// Issues unit i's gradient reduction. `flat` is a fresh copy of the parameters' gradients, so they are
  /// released at once; with overlapComm the collective stays in flight until finishReductions.
  void reduce(std::size_t i) {
    ShardedUnit& u = units[i];
    const at::NoGradGuard noGrad;
    const c10::ScalarType wire = config.reduceDtype.value_or(c10::ScalarType::Float);
    at::Tensor flat = u.flat->flatParamGrads(wire);
    u.flat->releaseParamGrads();
    PendingReduction r{.unit = i};
    const std::string label = u.flat->label();
    if (!u.flat->sharded()) {
      if (shardComm != nullptr && shardComm->worldSize() > 1) {
        flat.div_(shardComm->worldSize());
        r.work = shardComm->allReduceAsync(flat, runtime::ReduceOp::Sum, prefix + ".all_reduce." + label);
      }
      r.reduced = flat;
    } else {
      r.reduced = at::empty({u.flat->shardNumel()}, flat.options());
      r.work =
          shardComm->reduceScatterAsync(flat, r.reduced, runtime::ReduceOp::Avg, prefix + ".reduce_scatter." + label);
    }
    reductions.push_back(std::move(r));
    if (!config.overlapComm)
      finishReductions();
  }

  /// Waits for the reductions in flight, in the order they were issued (the same on every rank, which the
  /// replica all-reduces issued here rely on), and accumulates each into its shard gradient.
  void finishReductions() {
    const at::NoGradGuard noGrad;
    for (PendingReduction& r : reductions) {
      r.work.wait();
      ShardedUnit& u = units[r.unit];
      at::Tensor mine = r.reduced;
      // Across the replicas whether or not the node shards: with one rank per node (a shard group of 1) the flat
      // gradient is unsharded and the replica all-reduce is its only synchronization.
      if (replicaComm != nullptr && replicaComm->worldSize() > 1)
        replicaComm->allReduce(mine, runtime::ReduceOp::Avg, prefix + ".replicas." + u.flat->label());
      at::Tensor& target = stepTensor(u);
      mine = mine.to(target.device(), c10::ScalarType::Float, /*non_blocking=*/false, /*copy=*/false);
      at::Tensor& grad = target.mutable_grad();
      if (grad.defined()) {
        grad.add_(mine);
      } else {
        grad = mine;  // a fresh tensor of this reduction (the flat gradient or its shard), aliasing nothing kept
      }
    }
    reductions.clear();
  }

  void finalize() {
    const std::lock_guard lock(mutex);
    if (!passActive)
      return;
    // Units none of whose parameters got a gradient are reduced too (zeros), as torch FSDP does, so every rank
    // issues the same collectives whatever the graph used.
    for (std::size_t i = units.size(); i-- > 0;) {
      if (!units[i].done)
        postBackward(i);
    }
    // The shard gradients are final when backward() returns, and no prefetch outlives the pass: the optimizer
    // steps the shards next, which an all-gather in flight still reads.
    drain();
    resetPass();
    orderKnown = true;
  }

  void resetPass() {
    passActive = false;
    // A pass that threw: its reductions are abandoned (each CommWork waits for its collective as it goes).
    reductions.clear();
    for (ShardedUnit& u : units) {
      u.pending = u.accumulators.size();
      u.done = false;
    }
  }
};

namespace {

void Hooks::preForward() {
  if (auto state = m_state.lock())
    state->preForward(m_unit);
}

void Hooks::postForward(const std::vector<at::Tensor>& outputs) {
  if (auto state = m_state.lock())
    state->postForward(m_unit, outputs, m_state);
}

}  // namespace

FullyShardedEngine::FullyShardedEngine(std::shared_ptr<torch::nn::Module> module, Comm* shardComm, Comm* replicaComm,
                                       FullyShardedConfig config)
    : m_module(std::move(module)), m_config(std::move(config)) {
  FATHOM_CHECK(m_module != nullptr, ConfigError, "FSDP: the module is null");
  FATHOM_CHECK(m_config.limitAllGathers >= 1, ConfigError, "FSDP: limit_all_gathers must be >= 1, got ",
               m_config.limitAllGathers);
  m_state = std::make_shared<State>(shardComm, replicaComm, m_config);
  State& s = *m_state;
  const std::string& prefix = s.prefix;

  if (s.config.syncModuleStates && shardComm != nullptr) {
    syncModuleStates(*shardComm, *m_module, prefix + ".init");
    if (replicaComm != nullptr)
      syncModuleStates(*replicaComm, *m_module, prefix + ".init.replicas");
  }

  s.rootScoped = s.config.rootOpensScope;
  const bool unsharded =
      s.config.sharding == FsdpShardingStrategy::NoShard || shardComm == nullptr || shardComm->worldSize() == 1;
  FlatParam::Options base;
  base.rank = unsharded ? 0 : shardComm->rank();
  base.world = unsharded ? 1 : shardComm->worldSize();
  base.offloadShard = s.config.offloadParams;
  s.units = detail::buildUnits(*m_module, s.config, base, prefix);

  const std::weak_ptr<State> weak = m_state;
  for (std::size_t i = 0; i < s.units.size(); ++i) {
    ShardedUnit& u = s.units[i];
    const torch::nn::Module& owner = u.root ? *m_module : *u.module;
    registerUnitHooks(owner, std::make_shared<Hooks>(weak, i));
    for (const FlatParam::Entry& e : u.flat->entries()) {
      if (!e.param.requires_grad())
        break;  // a frozen unit (all or none of its parameters require grad): nothing to reduce
      auto accumulator = torch::autograd::impl::grad_accumulator(e.param);
      FATHOM_ASSERT(accumulator != nullptr, "a leaf parameter that requires grad has a gradient accumulator");
      const auto key = accumulator->add_post_hook(std::make_unique<torch::autograd::utils::LambdaPostHook>(
          [weak, i](const torch::autograd::variable_list& outputs, const torch::autograd::variable_list&) {
            if (auto state = weak.lock())
              state->onGradReady(i, weak);
            return outputs;
          }));
      u.accumulators.emplace_back(std::move(accumulator), key);
    }
    // Sharded from here on, as torch FSDP after wrapping: the first forward gathers every unit it runs.
    if (u.flat->sharded())
      s.gatheredBytes += u.flat->fullBytes();  // built gathered
    if (!u.root || s.rootScoped)
      s.release(i);
    u.pending = u.accumulators.size();
    // With the shards themselves offloaded the optimizer steps them in host memory: no master copy.
    if (s.config.offloadOptimizer && !s.config.offloadParams)
      u.master = u.flat->shard().to(at::kCPU, /*non_blocking=*/false, /*copy=*/true);
  }
}

FullyShardedEngine::~FullyShardedEngine() {
  for (ShardedUnit& u : m_state->units) {
    unregisterUnitHooks(u.root ? *m_module : *u.module);
    for (auto& [accumulator, key] : u.accumulators)
      accumulator->del_post_hook(key);
  }
}

std::string_view FullyShardedEngine::strategy() const {
  return m_config.zero3 ? "zero3" : "fsdp";
}

void FullyShardedEngine::setRequireGradSync(bool sync) {
  m_state->requireSync.store(sync);
}

bool FullyShardedEngine::requireGradSync() const {
  return m_state->requireSync.load();
}

void FullyShardedEngine::bindOptimizer(torch::optim::Optimizer& optimizer) {
  State& s = *m_state;
  std::unordered_map<const c10::TensorImpl*, bool> mine;
  for (const ShardedUnit& u : s.units) {
    for (const FlatParam::Entry& e : u.flat->entries())
      mine[e.param.unsafeGetTensorImpl()] = true;
  }
  std::size_t groupsWithMine = 0;
  torch::optim::OptimizerParamGroup* target = nullptr;
  std::size_t found = 0;
  for (auto& group : optimizer.param_groups()) {
    std::size_t here = 0;
    for (const at::Tensor& p : group.params())
      here += mine.count(p.unsafeGetTensorImpl());
    if (here > 0) {
      ++groupsWithMine;
      target = &group;
      found += here;
    }
  }
  if (groupsWithMine == 0)
    return;  // an optimizer for another model
  FATHOM_CHECK(groupsWithMine == 1, ConfigError, s.prefix, ": the model's parameters are spread over ", groupsWithMine,
               " optimizer parameter groups; a flat parameter is stepped with one group's options, "
               "so put all of the model's parameters in one group");
  FATHOM_CHECK(found == mine.size(), ConfigError, s.prefix, ": the optimizer holds ", found, " of the model's ",
               mine.size(), " parameters; it must hold all of them (or none)");
  for (const at::Tensor& p : target->params()) {
    FATHOM_CHECK(!mine.count(p.unsafeGetTensorImpl()) || !optimizer.state().count(compat::optimizerStateKey(p)),
                 ConfigError, s.prefix, ": the optimizer has already stepped; prepare it before the first step");
  }
  std::vector<at::Tensor> params;
  for (const at::Tensor& p : target->params()) {
    if (!mine.count(p.unsafeGetTensorImpl()))
      params.push_back(p);
  }
  for (ShardedUnit& u : s.units)
    params.push_back(s.stepTensor(u));
  target->params() = std::move(params);
}

void FullyShardedEngine::beforeOptimizerStep() {
  // Backward's end already waited for everything; a forward without backward may have left a prefetch in flight.
  const std::lock_guard lock(m_state->mutex);
  m_state->drain();
}

void FullyShardedEngine::afterOptimizerStep() {
  State& s = *m_state;
  const std::lock_guard lock(s.mutex);
  const at::NoGradGuard noGrad;
  s.drain();
  for (std::size_t i = 0; i < s.units.size(); ++i) {
    ShardedUnit& u = s.units[i];
    if (u.master.defined())
      u.flat->shard().copy_(u.master);
    // Whatever is still gathered holds the old values: free it, and gather the root again at once when the
    // model never opens a scope on it (it must then be readable at any time).
    const bool wasGathered = u.flat->gathered();
    s.release(i);
    if (u.root && !s.rootScoped && wasGathered && u.flat->sharded())
      s.gather(i, "forward");
    else if (!u.flat->sharded() && u.flat->shard().data_ptr() != u.flat->full().data_ptr())
      u.flat->full().copy_(u.flat->shard());  // unsharded but offloaded: the host copy was stepped
  }
}

double FullyShardedEngine::clipGradNorm(double maxNorm, double normType) {
  FATHOM_CHECK(maxNorm >= 0 && std::isfinite(maxNorm), ConfigError,
               "clip_grad_norm: max_norm must be a finite number >= 0, got ", maxNorm);
  FATHOM_CHECK(normType > 0, ConfigError, "clip_grad_norm: norm_type must be > 0, got ", normType);
  State& s = *m_state;
  {
    const std::lock_guard lock(s.mutex);
    s.drain();  // the shard gradients are complete (normally already at the end of backward)
  }
  const at::NoGradGuard noGrad;
  const bool inf = std::isinf(normType);
  double local = 0;
  std::vector<at::Tensor> grads;
  for (ShardedUnit& u : s.units) {
    const at::Tensor& g = s.stepTensor(u).grad();
    if (!g.defined())
      continue;
    grads.push_back(g);
    local = inf ? std::max(local, g.abs().max().item<double>()) : local + g.abs().pow(normType).sum().item<double>();
  }
  const bool sharded = !s.units.empty() && s.units.front().flat->sharded();
  double total = local;
  if (sharded && s.shardComm != nullptr && s.shardComm->worldSize() > 1) {
    at::Tensor t = at::tensor({local}, at::TensorOptions().dtype(at::kDouble));
    s.shardComm->allReduce(t, inf ? runtime::ReduceOp::Max : runtime::ReduceOp::Sum, s.prefix + ".clip");
    total = t.item<double>();
  }
  const double norm = inf ? total : std::pow(total, 1.0 / normType);
  const double coef = maxNorm / (norm + 1e-6);
  if (coef < 1.0) {
    for (at::Tensor& g : grads)
      g.mul_(coef);
  }
  return norm;
}

ModelStateBytes FullyShardedEngine::stateBytes(const std::vector<const torch::optim::Optimizer*>& optimizers) const {
  const State& s = *m_state;
  ModelStateBytes b;
  const bool hostShards = s.config.offloadParams;
  const bool hostStep = s.config.offloadParams || s.config.offloadOptimizer;
  for (const ShardedUnit& u : s.units) {
    const at::Tensor& shard = u.flat->shard();
    const std::int64_t shardBytes = shard.numel() * 4;
    (hostShards ? b.host : b.device).parameters += shardBytes;
    const at::Tensor& stepped = u.master.defined() ? u.master : shard;
    if (stepped.grad().defined())
      (hostStep ? b.host : b.device).gradients += stepped.grad().numel() * 4;
    b.device.gradients += u.flat->paramGradBytes();  // unsharded gradients kept under no_sync
    if (u.master.defined())
      b.host.masterWeights += u.master.numel() * 4;
    for (const torch::optim::Optimizer* optimizer : optimizers) {
      if (optimizer != nullptr)
        (hostStep ? b.host : b.device).optimizerStates += optimizerStateBytes(*optimizer, {stepped});
    }
  }
  b.peakGatheredParameters = s.peakGatheredBytes;
  return b;
}

NamedTensors FullyShardedEngine::fullStateDict(bool rank0Only) {
  State& s = *m_state;
  const std::lock_guard lock(s.mutex);
  const at::NoGradGuard noGrad;
  std::vector<bool> wasGathered;
  for (std::size_t i = 0; i < s.units.size(); ++i) {
    wasGathered.push_back(s.units[i].flat->gathered());
    s.gather(i, "state_dict");
  }
  const bool keep = !rank0Only || s.shardComm == nullptr || s.shardComm->rank() == 0;
  NamedTensors out;
  if (keep) {
    for (const auto& item : m_module->named_parameters(/*recurse=*/true))
      out.emplace_back(item.key(), item.value().detach().clone());
    for (const auto& item : m_module->named_buffers(/*recurse=*/true))
      out.emplace_back(item.key(), item.value().detach().clone());
  }
  for (std::size_t i = 0; i < s.units.size(); ++i) {
    if (!wasGathered[i])
      s.release(i);
  }
  return out;
}

namespace {

std::string layoutOf(const FlatParam& flat) {
  nlohmann::json entries = nlohmann::json::array();
  for (const FlatParam::Entry& e : flat.entries())
    entries.push_back({{"name", e.name}, {"offset", e.offset}, {"shape", e.sizes}});
  return nlohmann::json{{"numel", flat.numel()}, {"padded", flat.paddedNumel()}, {"parameters", entries}}.dump();
}

}  // namespace

NamedTensors FullyShardedEngine::shardedStateDict(std::map<std::string, std::string>& metadata) const {
  const State& s = *m_state;
  const at::NoGradGuard noGrad;
  NamedTensors out;
  metadata["format"] = "fathom.sharded_state_dict.v1";
  metadata["strategy"] = std::string(strategy());
  metadata["world"] = std::to_string(s.units.front().flat->sharded() ? s.shardComm->worldSize() : 1);
  metadata["rank"] = std::to_string(s.units.front().flat->sharded() ? s.shardComm->rank() : 0);
  for (const ShardedUnit& u : s.units) {
    const at::Tensor& stepped = u.master.defined() ? u.master : u.flat->shard();
    out.emplace_back(u.flat->label(), stepped.detach().to(at::kCPU, /*non_blocking=*/false, /*copy=*/true));
    metadata["unit." + u.flat->label()] = layoutOf(*u.flat);
  }
  return out;
}

void FullyShardedEngine::loadShardedStateDict(const NamedTensors& tensors,
                                              const std::map<std::string, std::string>& metadata) {
  State& s = *m_state;
  std::map<std::string, std::string> mine;
  shardedStateDict(mine);
  for (const auto& [key, value] : mine) {
    const auto it = metadata.find(key);
    FATHOM_CHECK(it != metadata.end() && it->second == value, ConfigError, s.prefix,
                 ": the sharded state dict was saved with a different layout: '", key, "' is ",
                 it == metadata.end() ? std::string("missing") : it->second, ", this run has ", value,
                 " (load a FULL_STATE_DICT to change world size or wrapping)");
  }
  const std::lock_guard lock(s.mutex);
  const at::NoGradGuard noGrad;
  s.drain();  // no all-gather may still read the shards about to be overwritten
  for (std::size_t i = 0; i < s.units.size(); ++i) {
    ShardedUnit& u = s.units[i];
    const auto it =
        std::find_if(tensors.begin(), tensors.end(), [&](const auto& t) { return t.first == u.flat->label(); });
    FATHOM_CHECK(it != tensors.end(), ConfigError, s.prefix, ": the sharded state dict has no unit '", u.flat->label(),
                 "'");
    FATHOM_CHECK(it->second.numel() == u.flat->shard().numel(), ConfigError, s.prefix, ": unit '", u.flat->label(),
                 "' has ", it->second.numel(), " elements in the file, ", u.flat->shard().numel(), " here");
    u.flat->shard().copy_(it->second.reshape({-1}));
    if (u.master.defined())
      u.master.copy_(u.flat->shard());
  }
  afterOptimizerStep();  // drops what was gathered from the old values
}

void FullyShardedEngine::loadFullStateDict(const NamedTensors& tensors) {
  State& s = *m_state;
  std::map<std::string, const at::Tensor*> byName;
  for (const auto& [name, t] : tensors)
    byName[name] = &t;
  const std::lock_guard lock(s.mutex);
  const at::NoGradGuard noGrad;
  s.drain();  // no all-gather may still read the shards about to be overwritten
  for (ShardedUnit& u : s.units) {
    at::Tensor full = at::zeros({u.flat->paddedNumel()}, at::TensorOptions().dtype(at::kFloat));
    for (const FlatParam::Entry& e : u.flat->entries()) {
      const auto it = byName.find(e.name);
      FATHOM_CHECK(it != byName.end(), ConfigError, s.prefix, ": the state dict has no parameter '", e.name, "'");
      FATHOM_CHECK(it->second->sizes().vec() == e.sizes, ConfigError, s.prefix, ": parameter '", e.name, "' has shape ",
                   it->second->sizes(), " in the state dict, ", at::IntArrayRef(e.sizes), " in the model");
      full.narrow(0, e.offset, e.numel).copy_(it->second->reshape({-1}));
    }
    const std::int64_t n = u.flat->shardNumel();
    const int rank = u.flat->sharded() ? s.shardComm->rank() : 0;
    const at::Tensor mine = u.flat->sharded() ? full.narrow(0, rank * n, n) : full.narrow(0, 0, u.flat->numel());
    u.flat->shard().copy_(mine);
    if (u.master.defined())
      u.master.copy_(mine);
  }
  for (const auto& item : m_module->named_buffers(/*recurse=*/true)) {
    const auto it = byName.find(item.key());
    if (it != byName.end())
      item.value().copy_(*it->second);
  }
  afterOptimizerStep();
}

std::vector<SteppedShard> FullyShardedEngine::steppedShards() const {
  const State& s = *m_state;
  std::vector<SteppedShard> out;
  for (const ShardedUnit& u : s.units) {
    const bool sharded = u.flat->sharded();
    const int rank = sharded ? s.shardComm->rank() : 0;
    out.push_back({u.flat->label(), u.master.defined() ? u.master : u.flat->shard(),
                   sharded ? u.flat->paddedNumel() : u.flat->numel(), rank * u.flat->shardNumel(), layoutOf(*u.flat)});
  }
  return out;
}

std::vector<std::pair<std::string, std::int64_t>> FullyShardedEngine::unitSizes() const {
  std::vector<std::pair<std::string, std::int64_t>> sizes;
  for (const ShardedUnit& u : m_state->units)
    sizes.emplace_back(u.flat->label(), u.flat->numel());
  return sizes;
}

}  // namespace fathom::parallel
