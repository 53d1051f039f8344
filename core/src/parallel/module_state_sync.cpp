// SPDX-License-Identifier: Apache-2.0
#include <fathom/parallel/module_state_sync.h>

#include "runtime/torch_compat.h"

#include <fathom/common/error.h>

#include <ATen/ATen.h>
#include <torch/optim/adagrad.h>
#include <torch/optim/adam.h>
#include <torch/optim/adamw.h>
#include <torch/optim/rmsprop.h>
#include <torch/optim/sgd.h>

#include <algorithm>
#include <string>
#include <unordered_set>

namespace fathom::parallel {

void broadcastCoalesced(Comm& comm, const std::vector<at::Tensor>& tensors, std::string_view label) {
  const at::NoGradGuard noGrad;
  std::vector<std::vector<at::Tensor>> groups;
  for (const at::Tensor& t : tensors) {
    auto same = [&](const std::vector<at::Tensor>& g) {
      return g.front().scalar_type() == t.scalar_type() && g.front().device() == t.device();
    };
    auto it = std::find_if(groups.begin(), groups.end(), same);
    if (it == groups.end()) {
      groups.push_back({t});
    } else {
      it->push_back(t);
    }
  }
  for (const auto& group : groups) {
    std::vector<at::Tensor> flat;
    flat.reserve(group.size());
    for (const at::Tensor& t : group) {
      flat.push_back(t.detach().reshape({-1}));
    }
    at::Tensor buffer = at::cat(flat, 0);
    comm.broadcast(buffer, 0, label);
    std::int64_t offset = 0;
    for (const at::Tensor& t : group) {
      t.detach().copy_(buffer.narrow(0, offset, t.numel()).view(t.sizes()));
      offset += t.numel();
    }
  }
}

void syncModuleStates(Comm& comm, const torch::nn::Module& module, std::string_view prefix) {
  if (comm.worldSize() <= 1)
    return;
  // Each tensor once (tied weights are registered under several names), parameters then buffers.
  std::vector<at::Tensor> states;
  std::unordered_set<const c10::TensorImpl*> seen;
  std::int64_t elements = 0;
  auto add = [&](const at::Tensor& t) {
    if (t.defined() && seen.insert(t.unsafeGetTensorImpl()).second) {
      states.push_back(t);
      elements += t.numel();
    }
  };
  for (const auto& item : module.named_parameters(/*recurse=*/true))
    add(item.value());
  for (const auto& item : module.named_buffers(/*recurse=*/true))
    add(item.value());
  const at::Tensor mine = at::tensor(std::vector<std::int64_t>{static_cast<std::int64_t>(states.size()), elements});
  const auto all = comm.allGather(mine, std::string(prefix) + ".verify");
  for (std::size_t r = 0; r < all.size(); ++r) {
    FATHOM_CHECK(at::equal(all[r], all[0]), CommError, prefix, ": rank ", r, "'s module has ",
                 all[r][0].item<std::int64_t>(), " parameters and buffers with ", all[r][1].item<std::int64_t>(),
                 " elements, rank 0's has ", all[0][0].item<std::int64_t>(), " with ", all[0][1].item<std::int64_t>(),
                 "; every rank must build the same model");
  }
  broadcastCoalesced(comm, states, prefix);
}

namespace {

std::int64_t bytesOf(const at::Tensor& t) {
  return t.defined() ? t.numel() * static_cast<std::int64_t>(t.element_size()) : 0;
}

std::int64_t stateBytes(const torch::optim::OptimizerParamState& state) {
  std::int64_t bytes = 0;
  forEachStateTensor(state, [&](const at::Tensor& t) { bytes += bytesOf(t); });
  return bytes;
}

}  // namespace

void forEachStateTensor(const torch::optim::OptimizerParamState& state,
                        const std::function<void(const at::Tensor&)>& visit) {
  using namespace torch::optim;
  auto each = [&](std::initializer_list<const at::Tensor*> tensors) {
    for (const at::Tensor* t : tensors) {
      if (t->defined())
        visit(*t);
    }
  };
  if (const auto* s = dynamic_cast<const AdamWParamState*>(&state))
    each({&s->exp_avg(), &s->exp_avg_sq(), &s->max_exp_avg_sq()});
  else if (const auto* s = dynamic_cast<const AdamParamState*>(&state))
    each({&s->exp_avg(), &s->exp_avg_sq(), &s->max_exp_avg_sq()});
  else if (const auto* s = dynamic_cast<const SGDParamState*>(&state))
    each({&s->momentum_buffer()});
  else if (const auto* s = dynamic_cast<const AdagradParamState*>(&state))
    each({&s->sum()});
  else if (const auto* s = dynamic_cast<const RMSpropParamState*>(&state))
    each({&s->square_avg(), &s->momentum_buffer(), &s->grad_avg()});
}

std::int64_t optimizerStateBytes(const torch::optim::Optimizer& optimizer, const std::vector<at::Tensor>& params) {
  std::int64_t bytes = 0;
  const auto& states = optimizer.state();
  for (const at::Tensor& p : params) {
    // LibTorch keys optimizer state by the parameter's TensorImpl address, as a string.
    const auto it = states.find(compat::optimizerStateKey(p));
    if (it != states.end() && it->second)
      bytes += stateBytes(*it->second);
  }
  return bytes;
}

}  // namespace fathom::parallel
