// SPDX-License-Identifier: Apache-2.0
// Accelerator's collective helpers (gather, reduce, pad, broadcast, triggers): Accelerate's utils/operations.py
// on top of the recorded parallel::Comm.
#include <fathom/common/error.h>
#include <fathom/parallel/comm.h>
#include <fathom/train/accelerator.h>

#include <ATen/ATen.h>

#include <algorithm>

namespace fathom::train {

at::Tensor Accelerator::gather(const at::Tensor& tensor) {
  FATHOM_CHECK(tensor.defined(), ConfigError, "gather: the tensor is undefined");
  if (!m_comm)
    return tensor;
  at::Tensor input = tensor.dim() == 0 ? tensor.reshape({1}) : tensor;
  std::vector<at::Tensor> parts = m_comm->allGather(input.contiguous(), "accelerator.gather");
  return at::cat(parts, 0);
}

at::Tensor Accelerator::gatherForMetrics(const at::Tensor& tensor) {
  FATHOM_CHECK(tensor.defined(), ConfigError, "gather_for_metrics: the tensor is undefined");
  at::Tensor gathered = tensor;
  if (m_comm) {
    at::Tensor input = tensor.dim() == 0 ? tensor.reshape({1}) : tensor;
    gathered = at::cat(m_comm->allGatherUneven(input.contiguous(), "accelerator.gather_for_metrics"), 0);
  }
  if (m_gradientState.endOfDataloader()) {
    const std::int64_t remainder = m_gradientState.remainder();
    if (remainder > 0 && gathered.dim() > 0 && gathered.size(0) > remainder) {
      gathered = gathered.slice(0, 0, remainder);
    }
  }
  return gathered;
}

at::Tensor Accelerator::reduce(const at::Tensor& tensor, Reduction reduction, double scale) {
  FATHOM_CHECK(tensor.defined(), ConfigError, "reduce: the tensor is undefined");
  at::Tensor result = tensor.clone();
  if (m_comm) {
    m_comm->allReduce(result, reduction == Reduction::Max ? runtime::ReduceOp::Max : runtime::ReduceOp::Sum,
                      "accelerator.reduce");
    if (reduction == Reduction::Mean)
      result.div_(numProcesses());
  }
  if (scale != 1.0)
    result.mul_(scale);
  return result;
}

at::Tensor Accelerator::padAcrossProcesses(const at::Tensor& tensor, std::int64_t dim, double padIndex, bool padFirst) {
  FATHOM_CHECK(tensor.defined(), ConfigError, "pad_across_processes: the tensor is undefined");
  if (!m_comm || tensor.dim() == 0)
    return tensor;
  FATHOM_CHECK(dim >= -tensor.dim() && dim < tensor.dim(), ConfigError, "pad_across_processes: dim ", dim,
               " is out of range for a tensor with ", tensor.dim(), " dimensions");
  if (dim < 0)
    dim += tensor.dim();
  at::Tensor size = at::tensor(tensor.sizes().vec(), at::kLong).to(tensor.device());
  const std::vector<at::Tensor> sizes = m_comm->allGather(size, "accelerator.pad.sizes");
  std::int64_t largest = 0;
  for (const at::Tensor& s : sizes)
    largest = std::max(largest, s.cpu()[dim].item<std::int64_t>());
  if (largest == tensor.size(dim))
    return tensor;
  std::vector<std::int64_t> shape = tensor.sizes().vec();
  shape[static_cast<std::size_t>(dim)] = largest;
  at::Tensor padded = at::full(shape, padIndex, tensor.options());
  const std::int64_t start = padFirst ? largest - tensor.size(dim) : 0;
  padded.narrow(dim, start, tensor.size(dim)).copy_(tensor);
  return padded;
}

at::Tensor Accelerator::broadcast(const at::Tensor& tensor, int fromProcess) {
  FATHOM_CHECK(tensor.defined(), ConfigError, "broadcast: the tensor is undefined");
  FATHOM_CHECK(fromProcess >= 0 && fromProcess < numProcesses(), ConfigError, "broadcast: from_process ", fromProcess,
               " is not a process of ", numProcesses());
  if (!m_comm)
    return tensor;
  at::Tensor result = tensor.contiguous().clone();
  m_comm->broadcast(result, fromProcess, "accelerator.broadcast");
  return result;
}

void Accelerator::waitForEveryone() {
  if (m_comm)
    m_comm->barrier("accelerator.wait_for_everyone");
}

bool Accelerator::checkTrigger() {
  at::Tensor flag = at::full({1}, m_trigger ? 1 : 0, at::TensorOptions().dtype(at::kLong).device(m_device));
  if (m_comm)
    m_comm->allReduce(flag, runtime::ReduceOp::Sum, "accelerator.check_trigger");
  if (flag.item<std::int64_t>() >= 1) {
    m_trigger = false;
    return true;
  }
  return false;
}

Accelerator::SplitRange Accelerator::splitRange(std::int64_t n) const {
  const std::int64_t p = numProcesses();
  const std::int64_t q = n / p;
  const std::int64_t r = n % p;
  const std::int64_t index = processIndex();
  const std::int64_t start = index * q + std::min(index, r);
  const std::int64_t end = start + q + (index < r ? 1 : 0);
  return {start, end, q + (r > 0 ? 1 : 0)};
}

at::Tensor Accelerator::splitBetweenProcesses(const at::Tensor& inputs, bool applyPadding) const {
  FATHOM_CHECK(inputs.defined() && inputs.dim() >= 1, ConfigError,
               "split_between_processes: expected a tensor with at least one dimension");
  const auto [start, end, padTo] = splitRange(inputs.size(0));
  at::Tensor mine = inputs.slice(0, start, end);
  if (applyPadding && inputs.size(0) > 0 && mine.size(0) < padTo) {
    at::Tensor last = inputs.slice(0, inputs.size(0) - 1, inputs.size(0));
    std::vector<at::Tensor> parts{mine};
    for (std::int64_t i = mine.size(0); i < padTo; ++i)
      parts.push_back(last);
    mine = at::cat(parts, 0);
  }
  return mine;
}

}  // namespace fathom::train
