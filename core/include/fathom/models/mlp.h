// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "fathom/models/mlp_options.h"
#include "fathom/models/model.h"

#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/linear.h>

#include <cstdint>

namespace fathom::models {

/// One repeated unit of the MLP: Linear(hidden, hidden) followed by ReLU. Parameters: `linear.weight`,
/// `linear.bias`.
class MlpBlock : public torch::nn::Module {
public:
  explicit MlpBlock(std::int64_t hidden);
  at::Tensor forward(const at::Tensor& input);

private:
  torch::nn::Linear m_linear{nullptr};
};

/// Regression MLP: `layers` MlpBlocks of width `hidden`, then a Linear(hidden, 1) head; loss = MSE.
/// Input float [B, hidden], output float [B, 1], target float [B, 1]. Parameter names, in order:
/// `blocks.0.linear.weight`, `blocks.0.linear.bias`, ..., `head.weight`, `head.bias`.
/// Weights use LibTorch's default Linear init (Kaiming-uniform, as torch.nn.Linear), so they are deterministic
/// given torch::manual_seed.
class Mlp : public Model {
public:
  /// Validates `options` (fathom::ConfigError on a bad value).
  explicit Mlp(MlpOptions options = {});

  at::Tensor forward(const at::Tensor& input) override;
  at::Tensor loss(const at::Tensor& output, const at::Tensor& target) const override;
  std::string repeatedBlockType() const override { return "MlpBlock"; }
  std::vector<std::shared_ptr<torch::nn::Module>> repeatedBlocks() const override;

  const MlpOptions& options() const { return m_options; }

private:
  MlpOptions m_options;
  torch::nn::ModuleList m_blocks{nullptr};
  torch::nn::Linear m_head{nullptr};
};

}  // namespace fathom::models
