// SPDX-License-Identifier: Apache-2.0
#include "flat_param.h"

#include "runtime/storage_memory.h"

#include <fathom/common/error.h>
#include <fathom/plan/shard_layout.h>

#include <ATen/ATen.h>
#include <ATen/TensorUtils.h>
#include <c10/core/StorageImpl.h>

namespace fathom::parallel {

using runtime::allocateStorage;
using runtime::releaseStorage;
// The full buffer's storage keeps its identity for the module's lifetime (every parameter points into it); only its
// memory comes and goes (runtime/storage_memory.h).

FlatParam::FlatParam(const std::vector<std::pair<std::string, at::Tensor>>& params, Options options)
    : m_options(std::move(options)) {
  FATHOM_CHECK(m_options.world >= 1 && m_options.rank >= 0 && m_options.rank < m_options.world, ConfigError,
               "flat parameter '", m_options.label, "': rank ", m_options.rank, " is not in a group of ",
               m_options.world);
  FATHOM_CHECK(!params.empty(), ConfigError, "flat parameter '", m_options.label, "' has no parameters");
  for (const auto& [name, param] : params) {
    FATHOM_CHECK(param.scalar_type() == c10::ScalarType::Float, ConfigError, "sharding: parameter '", name, "' is ",
                 param.scalar_type(),
                 "; FSDP and ZeRO shard float32 parameters (use mixed precision "
                 "through autocast for bf16/fp16 compute)");
    FATHOM_CHECK(param.device() == m_options.device, ConfigError, "sharding: parameter '", name, "' is on ",
                 param.device(), ", the unit's other parameters on ", m_options.device);
    Entry e;
    e.name = name;
    e.param = param;
    e.sizes = param.sizes().vec();
    e.offset = m_numel;
    e.numel = param.numel();
    m_numel += e.numel;
    m_entries.push_back(std::move(e));
  }
  m_padded = plan::paddedElements(m_numel, m_options.world);
  m_shardNumel = plan::shardElements(m_numel, m_options.world);

  const at::NoGradGuard noGrad;
  m_full = at::zeros({m_padded}, at::TensorOptions().dtype(at::kFloat).device(m_options.device));
  for (Entry& e : m_entries) {
    at::Tensor slot = m_full.narrow(0, e.offset, e.numel);
    slot.copy_(e.param.detach().reshape({-1}));
    // Once, before any graph references the parameter: later frees and gathers only swap the memory under
    // this storage, so nothing autograd saved is invalidated.
    e.param.set_(m_full.storage(), e.offset, e.sizes, at::detail::defaultStrides(e.sizes));
  }
  if (sharded()) {
    at::Tensor mine = m_full.narrow(0, static_cast<std::int64_t>(m_options.rank) * m_shardNumel, m_shardNumel);
    m_shard = m_options.offloadShard ? mine.to(at::kCPU, /*non_blocking=*/false, /*copy=*/true) : mine.clone();
  } else if (m_options.offloadShard) {
    m_shard = m_full.to(at::kCPU, /*non_blocking=*/false, /*copy=*/true);
  } else {
    m_shard = m_full.view({-1});
  }
}

void FlatParam::gather(Comm* comm, std::string_view label) {
  gatherAsync(comm, label);
  waitGathered();
}

void FlatParam::gatherAsync(Comm* comm, std::string_view label) {
  if (m_gathered)
    return;
  const at::NoGradGuard noGrad;
  allocateStorage(m_full, static_cast<std::size_t>(m_padded) * sizeof(float));
  m_gathered = true;
  // An offloaded shard travels as a device copy; the work holds that copy until it completes.
  const at::Tensor input =
      m_options.offloadShard ? m_shard.to(m_options.device, /*non_blocking=*/false, /*copy=*/true) : m_shard;
  if (!sharded()) {
    m_full.copy_(input);
    return;
  }
  FATHOM_ASSERT(comm != nullptr, "a sharded flat parameter gathers through a Comm");
  m_pendingGather = comm->allGatherIntoAsync(input, m_full, label);
}

void FlatParam::waitGathered() {
  m_pendingGather.wait();
}

void FlatParam::free() {
  if (!m_gathered || !sharded())
    return;
  waitGathered();  // the backend may still be writing into the memory about to be released
  releaseStorage(m_full);
  m_gathered = false;
}

bool FlatParam::hasParamGrads() const {
  for (const Entry& e : m_entries) {
    if (e.param.grad().defined())
      return true;
  }
  return false;
}

at::Tensor FlatParam::flatParamGrads(c10::ScalarType dtype) const {
  const at::NoGradGuard noGrad;
  at::Tensor flat = at::zeros({m_padded}, at::TensorOptions().dtype(dtype).device(m_options.device));
  for (const Entry& e : m_entries) {
    const at::Tensor& grad = e.param.grad();
    if (grad.defined())
      flat.narrow(0, e.offset, e.numel).copy_(grad.reshape({-1}));
  }
  return flat;
}

void FlatParam::releaseParamGrads() {
  for (Entry& e : m_entries)
    e.param.mutable_grad() = at::Tensor();
}

std::int64_t FlatParam::paramGradBytes() const {
  std::int64_t bytes = 0;
  for (const Entry& e : m_entries) {
    const at::Tensor& grad = e.param.grad();
    if (grad.defined())
      bytes += grad.numel() * static_cast<std::int64_t>(grad.element_size());
  }
  return bytes;
}

}  // namespace fathom::parallel
