// SPDX-License-Identifier: Apache-2.0
#include "fathom/models/mlp.h"

#include "fathom/common/error.h"

#include <fathom/parallel/unit_scope.h>

#include <ATen/ATen.h>

namespace fathom::models {

void validate(const MlpOptions& o) {
  FATHOM_CHECK(o.hidden >= 1, ConfigError, "mlp hidden must be >= 1, got ", o.hidden);
  FATHOM_CHECK(o.layers >= 1, ConfigError, "mlp layers must be >= 1, got ", o.layers);
}

std::int64_t mlpParameterCount(const MlpOptions& o) {
  validate(o);
  return o.layers * (o.hidden * o.hidden + o.hidden) + (o.hidden + 1);
}

MlpBlock::MlpBlock(std::int64_t hidden) : torch::nn::Module("MlpBlock") {
  m_linear = register_module("linear", torch::nn::Linear(hidden, hidden));
}

at::Tensor MlpBlock::forward(const at::Tensor& input) {
  return at::relu(m_linear->forward(input));
}

Mlp::Mlp(MlpOptions options) : Model("Mlp"), m_options(options) {
  validate(m_options);
  m_blocks = register_module("blocks", torch::nn::ModuleList());
  for (std::int64_t i = 0; i < m_options.layers; ++i) {
    m_blocks->push_back(std::make_shared<MlpBlock>(m_options.hidden));
  }
  m_head = register_module("head", torch::nn::Linear(m_options.hidden, 1));
}

at::Tensor Mlp::forward(const at::Tensor& input) {
  FATHOM_CHECK(input.defined() && input.dim() == 2 && input.size(1) == m_options.hidden, ConfigError,
               "mlp input must have shape [batch, ", m_options.hidden, "], got ",
               input.defined() ? input.sizes() : at::IntArrayRef{});
  FATHOM_CHECK(at::isFloatingType(input.scalar_type()), ConfigError, "mlp input must be floating point, got ",
               input.scalar_type());
  // Sharding units (FSDP / ZeRO-3): the model itself is the root unit, each block a unit of its own.
  // A dispatched model (bigmodel::DispatchedModel) moves the input to the root's device and the last block's output
  // back there for the head.
  parallel::UnitScope root(*this);
  at::Tensor x = root.align(input);
  for (const auto& block : *m_blocks) {
    auto* mlpBlock = block->as<MlpBlock>();
    x = parallel::callUnit(mlpBlock, x);
  }
  return root.finish(m_head->forward(root.align(x)));
}

at::Tensor Mlp::loss(const at::Tensor& output, const at::Tensor& target) const {
  FATHOM_CHECK(target.defined() && target.sizes() == output.sizes(), ConfigError, "mlp target must have shape ",
               output.sizes(), ", got ", target.defined() ? target.sizes() : at::IntArrayRef{});
  return at::mse_loss(output, target.to(output.scalar_type()));
}

std::vector<std::shared_ptr<torch::nn::Module>> Mlp::repeatedBlocks() const {
  std::vector<std::shared_ptr<torch::nn::Module>> blocks;
  for (const auto& block : *m_blocks) {
    blocks.push_back(block);
  }
  return blocks;
}

}  // namespace fathom::models
