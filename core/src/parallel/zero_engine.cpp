// SPDX-License-Identifier: Apache-2.0
#include <fathom/parallel/zero_engine.h>

#include "runtime/torch_compat.h"
#include "storage_bytes.h"
#include "zero_grad_reducer.h"

#include <fathom/common/error.h>
#include <fathom/parallel/module_state_sync.h>

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace fathom::parallel {

namespace {

std::vector<std::int64_t> contiguousStrides(at::IntArrayRef sizes) {
  std::vector<std::int64_t> strides(sizes.size(), 1);
  for (std::size_t d = sizes.size(); d-- > 1;) {
    strides[d - 1] = strides[d] * std::max<std::int64_t>(sizes[d], 1);
  }
  return strides;
}

}  // namespace

struct ZeroEngine::State {
  State(Comm& c, ZeroOptions o) : comm(c), options(o), world(c.worldSize()), rank(c.rank()) {}

  Comm& comm;
  const ZeroOptions options;
  const int world;
  const int rank;
  std::vector<ZeroGradReducer::Param> params;  ///< trainable parameters, registration order (layout indices)
  std::unique_ptr<ZeroBucketLayout> layout;
  std::vector<at::Tensor> buffers;     ///< per bucket: the flat parameters (padded), which the module computes on
  std::vector<at::Tensor> partitions;  ///< per bucket: this rank's slice of its buffer (a view)
  std::vector<at::Tensor> stepped;     ///< per bucket: what the optimizer steps (partitions, or their host copies)
  std::vector<std::string> gatherLabels;
  std::unique_ptr<ZeroGradReducer> reducer;
  bool offload = false;
  bool bound = false;

  const char* stageName() const { return options.stage == 1 ? "ZeRO-1" : "ZeRO-2"; }
};

ZeroEngine::ZeroEngine(std::shared_ptr<torch::nn::Module> module, Comm& comm, ZeroOptions options)
    : m_module(std::move(module)) {
  validate(options);
  FATHOM_CHECK(m_module != nullptr, ConfigError, "ZeRO needs a module, got null");
  FATHOM_CHECK(options.stage == 1 || options.stage == 2, ConfigError, "ZeroEngine runs ZeRO stages 1 and 2, got stage ",
               options.stage, " (stage 3 partitions parameters: the fully sharded engine runs it)");
  FATHOM_CHECK(options.offloadOptimizer != OffloadDevice::Nvme, ConfigError,
               "offload_optimizer_device nvme is not supported: Fathom offloads to host memory only (use cpu)");
  FATHOM_CHECK(options.offloadParams == OffloadDevice::None, ConfigError, "offload_param_device ",
               toString(options.offloadParams), " needs ZeRO stage 3, got stage ", options.stage);
  m_state = std::make_unique<State>(comm, options);
  State& s = *m_state;
  s.offload = options.offloadOptimizer == OffloadDevice::Cpu;

  // Trainable parameters in registration order, each tensor once.
  std::unordered_set<const void*> seen;
  std::vector<std::int64_t> elements;
  for (const auto& item : m_module->named_parameters(/*recurse=*/true)) {
    const at::Tensor& p = item.value();
    if (!p.requires_grad() || !seen.insert(p.unsafeGetTensorImpl()).second) {
      continue;
    }
    FATHOM_CHECK(p.scalar_type() == at::kFloat, ConfigError, "ZeRO stages 1-2 need float32 parameters; '", item.key(),
                 "' is ", p.scalar_type(), " (use autocast for mixed precision)");
    FATHOM_CHECK(s.params.empty() || p.device() == s.params.front().tensor.device(), ConfigError,
                 "ZeRO needs every parameter on one device; '", item.key(), "' is on ", p.device(), ", '",
                 s.params.front().name, "' on ", s.params.front().tensor.device());
    s.params.push_back(ZeroGradReducer::Param{item.key(), p});
    elements.push_back(p.numel());
  }
  FATHOM_CHECK(!s.params.empty(), ConfigError, "ZeRO: the module has no parameter that requires grad");
  // After the checks, so that a bad module fails on every rank before any collective.
  syncModuleStates(comm, *m_module, "zero.init");
  s.layout = std::make_unique<ZeroBucketLayout>(elements, s.world, options.reduceBucketSize);

  // Flat buffers; every parameter's data is re-pointed into its bucket (before any graph exists, so no saved
  // tensor refers to the old storage).
  const at::TensorOptions device = s.params.front().tensor.options().requires_grad(false);
  {
    const at::NoGradGuard noGrad;
    for (std::size_t k = 0; k < s.layout->buckets().size(); ++k) {
      const ZeroBucketLayout::Bucket& b = s.layout->buckets()[k];
      at::Tensor buffer = at::zeros({b.padded}, device);
      for (const ZeroBucketLayout::Slot& slot : b.members) {
        at::Tensor& p = s.params[slot.tensor].tensor;
        buffer.narrow(0, slot.offset, slot.elements).copy_(p.detach().reshape({-1}));
        p.set_(buffer.storage(), buffer.storage_offset() + slot.offset, p.sizes(), contiguousStrides(p.sizes()));
      }
      at::Tensor partition = buffer.narrow(0, s.rank * b.shard, b.shard);
      at::Tensor steppedTensor = partition;
      if (s.offload) {
        // The fp32 master on the host; pinned so the copies to and from a CUDA device can be asynchronous.
        steppedTensor = at::empty({b.shard}, at::TensorOptions(at::kFloat).pinned_memory(partition.is_cuda()));
        steppedTensor.copy_(partition);
      }
      s.buffers.push_back(buffer);
      s.partitions.push_back(partition);
      s.stepped.push_back(steppedTensor);
      s.gatherLabels.push_back("zero.allgather." + std::to_string(k));
    }
  }
  s.reducer = std::make_unique<ZeroGradReducer>(comm, options, *s.layout, s.params, s.stepped, device);
}

ZeroEngine::~ZeroEngine() = default;

std::string_view ZeroEngine::strategy() const {
  return m_state->options.stage == 1 ? "zero1" : "zero2";
}

void ZeroEngine::setRequireGradSync(bool sync) {
  m_state->reducer->setRequireSync(sync);
}

bool ZeroEngine::requireGradSync() const {
  return m_state->reducer->requireSync();
}

bool ZeroEngine::reducesEveryMicroStep() const {
  return m_state->options.stage == 2;
}

void ZeroEngine::bindOptimizer(torch::optim::Optimizer& optimizer) {
  State& s = *m_state;
  FATHOM_CHECK(!s.bound, ConfigError, s.stageName(), ": an optimizer is already bound to this model");
  std::unordered_map<const void*, std::size_t> mine;
  for (std::size_t i = 0; i < s.params.size(); ++i) {
    mine.emplace(s.params[i].tensor.unsafeGetTensorImpl(), i);
  }
  auto& groups = optimizer.param_groups();
  std::vector<std::size_t> holding;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const auto& ps = groups[g].params();
    if (std::any_of(ps.begin(), ps.end(),
                    [&](const at::Tensor& t) { return mine.count(t.unsafeGetTensorImpl()) > 0; })) {
      holding.push_back(g);
    }
  }
  FATHOM_CHECK(
      holding.size() == 1, ConfigError, s.stageName(),
      ": the optimizer must hold all of the model's trainable parameters in one parameter group; found them in ",
      holding.size(), " of its ", groups.size(), " groups");
  std::vector<at::Tensor>& ps = groups[holding.front()].params();
  std::vector<char> present(s.params.size(), 0);
  for (const at::Tensor& t : ps) {
    if (auto it = mine.find(t.unsafeGetTensorImpl()); it != mine.end()) {
      present[it->second] = 1;
      FATHOM_CHECK(optimizer.state().count(compat::optimizerStateKey(t)) == 0, ConfigError, s.stageName(),
                   ": the optimizer already holds state for '", s.params[it->second].name,
                   "'; bind it before its first step");
    }
  }
  for (std::size_t i = 0; i < s.params.size(); ++i) {
    FATHOM_CHECK(present[i], ConfigError, s.stageName(), ": trainable parameter '", s.params[i].name,
                 "' is not in the optimizer's parameter group (ZeRO steps every trainable parameter)");
  }
  // The partitions take the place of the first of the module's parameters; other tensors keep their order.
  std::vector<at::Tensor> replaced;
  bool inserted = false;
  for (const at::Tensor& t : ps) {
    if (mine.count(t.unsafeGetTensorImpl()) == 0) {
      replaced.push_back(t);
    } else if (!inserted) {
      replaced.insert(replaced.end(), s.stepped.begin(), s.stepped.end());
      inserted = true;
    }
  }
  ps = std::move(replaced);
  if (s.offload) {
    const at::NoGradGuard noGrad;
    for (std::size_t k = 0; k < s.stepped.size(); ++k) {
      s.stepped[k].copy_(s.partitions[k]);  // the parameters may have been loaded since construction
    }
  }
  s.bound = true;
}

void ZeroEngine::beforeOptimizerStep() {
  State& s = *m_state;
  FATHOM_CHECK(s.bound, ConfigError, s.stageName(), ": bindOptimizer() must run before the first optimizer step");
  FATHOM_CHECK(!s.reducer->hasUnreducedGradients(), Error, s.stageName(),
               ": gradients accumulated under setRequireGradSync(false) were never reduced; the last backward pass ",
               "before an optimizer step must run with gradient sync on");
}

void ZeroEngine::afterOptimizerStep() {
  State& s = *m_state;
  const at::NoGradGuard noGrad;
  for (std::size_t k = 0; k < s.buffers.size(); ++k) {
    if (s.offload) {
      s.partitions[k].copy_(s.stepped[k]);
    }
    if (s.world > 1) {
      // In place: the input is this rank's slice of the output (DeepSpeed and NCCL's all_gather_into_tensor allow
      // it; Comm::allGatherInto reads the input before it writes the output).
      s.comm.allGatherInto(s.partitions[k], s.buffers[k], s.gatherLabels[k]);
    }
    at::Tensor& grad = s.stepped[k].mutable_grad();
    if (grad.defined()) {
      grad.zero_();  // DeepSpeed's engine.step() zeroes the gradients it stepped on
    }
  }
}

double ZeroEngine::clipGradNorm(double maxNorm, double normType) {
  State& s = *m_state;
  FATHOM_CHECK(normType > 0, ConfigError, "clip_grad_norm: norm_type must be > 0 or inf, got ", normType);
  const bool inf = std::isinf(normType);
  const at::NoGradGuard noGrad;
  at::Tensor local = at::zeros({1}, s.buffers.front().options());
  for (const at::Tensor& t : s.stepped) {
    const at::Tensor& g = t.grad();
    if (!g.defined()) {
      continue;
    }
    const at::Tensor term = inf ? g.abs().max() : at::linalg_vector_norm(g, normType).pow(normType);
    local = inf ? at::maximum(local, term.to(local.device())) : local + term.to(local.device());
  }
  if (s.world > 1) {
    s.comm.allReduce(local, inf ? runtime::ReduceOp::Max : runtime::ReduceOp::Sum, "zero.clip");
  }
  const double total = inf ? local.item<double>() : std::pow(local.item<double>(), 1.0 / normType);
  const double coef = maxNorm / (total + 1e-6);  // torch's clip_grad_norm_
  if (coef < 1.0) {
    for (const at::Tensor& t : s.stepped) {
      if (t.grad().defined()) {
        t.grad().mul_(coef);
      }
    }
  }
  return total;
}

ModelStateBytes ZeroEngine::stateBytes(const std::vector<const torch::optim::Optimizer*>& optimizers) const {
  // Measured from the tensors the engine holds (their storages, each once), never from the bucket layout.
  const State& s = *m_state;
  ModelStateBytes out;
  DistinctStorageBytes parameters;
  DistinctStorageBytes partitionGradients;
  DistinctStorageBytes stepped;
  for (std::size_t k = 0; k < s.buffers.size(); ++k) {
    parameters.add(s.buffers[k]);
    partitionGradients.add(s.stepped[k].grad());
    stepped.add(s.stepped[k]);
  }
  DistinctStorageBytes unreduced;  // gradients not reduced yet (no_sync accumulation)
  for (const ZeroGradReducer::Param& p : s.params) {
    unreduced.add(p.tensor.grad());
  }
  out.device.parameters = parameters.bytes();
  out.communicationBuffers = s.reducer->workspaceBytes();
  std::int64_t states = 0;
  for (const torch::optim::Optimizer* o : optimizers) {
    if (o != nullptr) {
      states += optimizerStateBytes(*o, s.stepped);
    }
  }
  // Stage 1 holds every parameter's full gradient on the device from the first backward of a step to its reduction
  // (the planner's unsharded gradients): the reducer measured what they held then. Stage 2 keeps only the
  // partition's gradients, which offloading keeps on the host.
  const std::int64_t full = std::max(s.reducer->gradientBytesAtLastReduction(), unreduced.bytes());
  if (s.offload) {
    out.device.gradients = s.options.stage == 1 ? full : unreduced.bytes();
    out.host.gradients = partitionGradients.bytes();
    out.host.masterWeights = stepped.bytes();  // the fp32 partition the optimizer steps on the host
    out.host.optimizerStates = states;
  } else {
    out.device.gradients = s.options.stage == 1 ? full : partitionGradients.bytes() + unreduced.bytes();
    out.device.optimizerStates = states;
  }
  return out;
}

NamedTensors ZeroEngine::fullStateDict(bool rank0Only) {
  NamedTensors out;
  if (rank0Only && m_state->rank != 0) {
    return out;
  }
  const at::NoGradGuard noGrad;
  for (const auto& item : m_module->named_parameters(/*recurse=*/true)) {
    out.emplace_back(item.key(), item.value().detach().clone());
  }
  for (const auto& item : m_module->named_buffers(/*recurse=*/true)) {
    out.emplace_back(item.key(), item.value().detach().clone());
  }
  return out;
}

const ZeroOptions& ZeroEngine::options() const {
  return m_state->options;
}

const ZeroBucketLayout& ZeroEngine::layout() const {
  return *m_state->layout;
}

std::vector<std::string> ZeroEngine::bucketParameterNames(std::size_t bucket) const {
  std::vector<std::string> names;
  for (const ZeroBucketLayout::Slot& slot : m_state->layout->buckets().at(bucket).members) {
    names.push_back(m_state->params[slot.tensor].name);
  }
  return names;
}

const std::vector<at::Tensor>& ZeroEngine::stepped() const {
  return m_state->stepped;
}

std::vector<SteppedShard> ZeroEngine::steppedShards() const {
  const State& s = *m_state;
  std::vector<SteppedShard> out;
  for (std::size_t k = 0; k < s.stepped.size(); ++k) {
    const ZeroBucketLayout::Bucket& bucket = s.layout->buckets()[k];
    nlohmann::json parameters = nlohmann::json::array();
    for (const ZeroBucketLayout::Slot& slot : bucket.members) {
      parameters.push_back({{"name", s.params[slot.tensor].name},
                            {"offset", slot.offset},
                            {"shape", s.params[slot.tensor].tensor.sizes().vec()}});
    }
    const nlohmann::json layout{{"numel", bucket.elements}, {"padded", bucket.padded}, {"parameters", parameters}};
    out.push_back({"bucket." + std::to_string(k), s.stepped[k], bucket.padded, s.rank * bucket.shard, layout.dump()});
  }
  return out;
}

void ZeroEngine::loadFullStateDict(const NamedTensors& tensors) {
  DataParallelEngine::loadFullStateDict(tensors);
  const at::NoGradGuard noGrad;
  State& s = *m_state;
  for (std::size_t k = 0; k < s.stepped.size(); ++k) {
    if (s.stepped[k].data_ptr() != s.partitions[k].data_ptr())
      s.stepped[k].copy_(s.partitions[k]);  // the host master steps from the loaded values
  }
}

}  // namespace fathom::parallel
