// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/parallel/comm.h>

#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/optim/optimizer.h>

#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

namespace fathom::parallel {

/// Makes every rank's parameters and buffers equal to rank 0's, as DDP, FSDP (sync_module_states) and ZeRO do
/// at construction: one all_gather ("<prefix>.verify") checks that every rank has the same number of tensors and
/// elements (CommError naming both ranks' counts otherwise), then one coalesced broadcast per dtype/device
/// ("<prefix>"). Collective; nothing with one rank.
void syncModuleStates(Comm& comm, const torch::nn::Module& module, std::string_view prefix);

/// One coalesced broadcast from rank 0 per dtype/device group of `tensors` (torch's _broadcast_coalesced).
void broadcastCoalesced(Comm& comm, const std::vector<at::Tensor>& tensors, std::string_view label);

/// Bytes of `optimizer`'s state tensors (Adam/AdamW moments, SGD momentum, Adagrad sums, RMSprop squares)
/// kept for the tensors in `params`; 0 for parameters without state yet.
std::int64_t optimizerStateBytes(const torch::optim::Optimizer& optimizer, const std::vector<at::Tensor>& params);

/// Calls `visit` for every defined state tensor of one parameter's optimizer state (Adam/AdamW: exp_avg,
/// exp_avg_sq, max_exp_avg_sq; SGD: momentum_buffer; Adagrad: sum; RMSprop: square_avg, momentum_buffer,
/// grad_avg). Other optimizers' states are not visited.
void forEachStateTensor(const torch::optim::OptimizerParamState& state,
                        const std::function<void(const at::Tensor&)>& visit);

}  // namespace fathom::parallel
