// SPDX-License-Identifier: Apache-2.0
// All-gather of tensors whose first dimension differs by rank, over any equal-size all-gather: gather the
// lengths, pad to the longest, gather, trim. Shared by ProcessGroup (unrecorded) and parallel::Comm (which
// records the two all-gathers it runs).
#pragma once

#include <ATen/ATen.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace fathom::detail {

/// `gatherSizes(t)` and `gatherPadded(t)` each all-gather one equal-shaped tensor and return one tensor per
/// rank. The caller has checked that `tensor` is defined and has at least one dimension.
template <typename GatherSizes, typename GatherPadded>
std::vector<at::Tensor> allGatherUneven(const at::Tensor& tensor, GatherSizes&& gatherSizes,
                                        GatherPadded&& gatherPadded) {
  // On the tensor's device: NCCL gathers only CUDA tensors (found on the first GPU run, docs/gpu.md).
  const auto sizes = gatherSizes(at::full({1}, tensor.size(0), tensor.options().dtype(at::kLong)));
  std::int64_t largest = 0;
  for (const auto& size : sizes) {
    largest = std::max(largest, size.template item<std::int64_t>());
  }
  at::Tensor padded = tensor.contiguous();
  if (tensor.size(0) < largest) {
    auto shape = tensor.sizes().vec();
    shape[0] = largest - tensor.size(0);
    padded = at::cat({padded, at::zeros(shape, tensor.options())}, 0);
  }
  auto gathered = gatherPadded(padded);
  for (std::size_t r = 0; r < gathered.size(); ++r) {
    gathered[r] = gathered[r].narrow(0, 0, sizes[r].template item<std::int64_t>());
  }
  return gathered;
}

}  // namespace fathom::detail
