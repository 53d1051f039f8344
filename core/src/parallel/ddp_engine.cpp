// SPDX-License-Identifier: Apache-2.0
#include <fathom/parallel/ddp_engine.h>

#include "storage_bytes.h"

#include <fathom/common/error.h>
#include <fathom/parallel/module_state_sync.h>

#include <ATen/ATen.h>
#include <torch/nn/utils/clip_grad.h>

namespace fathom::parallel {

DdpEngine::DdpEngine(std::shared_ptr<torch::nn::Module> module, Comm* comm, const DdpOptions& options)
    : m_module(std::move(module)) {
  FATHOM_CHECK(m_module != nullptr, ConfigError, "DDP: the module is null");
  if (comm != nullptr) {
    m_reducer = std::make_unique<DdpReducer>(m_module, *comm, options);
    m_rank = comm->rank();
  }
}

void DdpEngine::setRequireGradSync(bool sync) {
  if (m_reducer)
    m_reducer->setRequireGradSync(sync);
}

bool DdpEngine::requireGradSync() const {
  return m_reducer ? m_reducer->requireGradSync() : true;
}

double DdpEngine::clipGradNorm(double maxNorm, double normType) {
  return torch::nn::utils::clip_grad_norm_(m_module->parameters(), maxNorm, normType);
}

ModelStateBytes DdpEngine::stateBytes(const std::vector<const torch::optim::Optimizer*>& optimizers) const {
  // Measured from the tensors held (their storages, each once): a tied parameter counts once, and gradients that
  // are views of a bucket count as that bucket.
  ModelStateBytes b;
  const std::vector<at::Tensor> params = m_module->parameters(/*recurse=*/true);
  DistinctStorageBytes parameters;
  DistinctStorageBytes gradients;
  for (const at::Tensor& p : params) {
    parameters.add(p);
    gradients.add(p.grad());
  }
  b.device.parameters = parameters.bytes();
  b.device.gradients = gradients.bytes();
  // A bucket no gradient aliases (before the first synchronized backward, or behind non-contiguous parameters'
  // gradient copies) is memory the reducer keeps for the all-reduce alone.
  DistinctStorageBytes buckets;
  if (m_reducer) {
    for (const at::Tensor& buffer : m_reducer->bucketBuffers()) {
      if (!gradients.contains(buffer))
        buckets.add(buffer);
    }
  }
  b.communicationBuffers = buckets.bytes();
  for (const torch::optim::Optimizer* optimizer : optimizers) {
    if (optimizer != nullptr)
      b.device.optimizerStates += optimizerStateBytes(*optimizer, params);
  }
  return b;
}

NamedTensors DdpEngine::fullStateDict(bool rank0Only) {
  NamedTensors out;
  if (rank0Only && m_rank != 0)
    return out;
  const at::NoGradGuard noGrad;
  for (const auto& item : m_module->named_parameters(/*recurse=*/true))
    out.emplace_back(item.key(), item.value().detach().clone());
  for (const auto& item : m_module->named_buffers(/*recurse=*/true))
    out.emplace_back(item.key(), item.value().detach().clone());
  return out;
}

}  // namespace fathom::parallel
