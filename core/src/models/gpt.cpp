// SPDX-License-Identifier: Apache-2.0
// nanoGPT's GPT (model.py) with GPT-2 parameter names and init, on LibTorch 1.13.
#include "fathom/models/gpt.h"

#include "fathom/common/error.h"

#include <fathom/parallel/unit_scope.h>

#include <ATen/ATen.h>
#include <torch/csrc/autograd/grad_mode.h>

#include <cmath>
#include <string_view>

namespace fathom::models {
namespace {

bool endsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

}  // namespace

Gpt::Gpt(GptOptions options) : Model("Gpt"), m_options(options) {
  validate(m_options);
  const GptOptions& o = m_options;
  // A plain Module as the `transformer` container gives the GPT-2 names without a class of its own.
  auto transformer = register_module("transformer", std::make_shared<torch::nn::Module>("GptTransformer"));
  m_wte = transformer->register_module("wte", torch::nn::Embedding(o.vocabSize, o.nEmbd));
  m_wpe = transformer->register_module("wpe", torch::nn::Embedding(o.blockSize, o.nEmbd));
  m_drop = transformer->register_module("drop", torch::nn::Dropout(o.dropout));
  m_h = transformer->register_module("h", torch::nn::ModuleList());
  for (std::int64_t i = 0; i < o.nLayer; ++i) {
    m_h->push_back(std::make_shared<GptBlock>(o));
  }
  m_lnF = transformer->register_module("ln_f", std::make_shared<GptLayerNorm>(o.nEmbd, o.bias));

  // GPT-2 init (nanoGPT _init_weights plus the scaled residual projections), in named_parameters() order.
  torch::NoGradGuard noGrad;
  const double residualStd = 0.02 / std::sqrt(2.0 * static_cast<double>(o.nLayer));
  for (auto& item : named_parameters()) {
    const std::string& name = item.key();
    at::Tensor& p = item.value();
    if (endsWith(name, ".bias")) {
      p.zero_();
    } else if (name.find(".ln_") != std::string::npos) {
      p.fill_(1.0);  // LayerNorm weight
    } else if (endsWith(name, "c_proj.weight")) {
      p.normal_(0.0, residualStd);
    } else {
      p.normal_(0.0, 0.02);
    }
  }
}

at::Tensor Gpt::forward(const at::Tensor& input) {
  FATHOM_CHECK(input.defined() && input.dim() == 2, ConfigError, "gpt input must have shape [batch, time], got ",
               input.defined() ? input.sizes() : at::IntArrayRef{});
  FATHOM_CHECK(input.scalar_type() == at::kLong, ConfigError, "gpt input must be int64 token ids, got ",
               input.scalar_type());
  const std::int64_t time = input.size(1);
  FATHOM_CHECK(time <= m_options.blockSize, ConfigError, "gpt input has ", time,
               " tokens per sequence but block_size is ", m_options.blockSize);
  // Sharding units (FSDP / ZeRO-3): the model itself is the root unit, each block a unit of its own.
  // A dispatched model (bigmodel::DispatchedModel) computes the root's own modules on its execution device: the ids
  // go there, and so does what the last block returns.
  parallel::UnitScope root(*this);
  const at::Tensor ids = root.align(input);
  const at::Tensor positions = at::arange(time, ids.options());
  at::Tensor x = m_drop->forward(m_wte->forward(ids) + m_wpe->forward(positions));
  for (const auto& block : *m_h) {
    auto* gptBlock = block->as<GptBlock>();
    x = parallel::callUnit(gptBlock, x);
  }
  x = m_lnF->forward(root.align(x));
  // lm_head tied to wte: logits = x·wteᵀ, no bias.
  return root.finish(at::linear(x, m_wte->weight));
}

at::Tensor Gpt::loss(const at::Tensor& output, const at::Tensor& target) const {
  FATHOM_CHECK(output.defined() && output.dim() == 3, ConfigError, "gpt logits must have shape [batch, time, vocab]");
  FATHOM_CHECK(target.defined() && target.dim() == 2 && target.size(0) == output.size(0) &&
                   target.size(1) == output.size(1),
               ConfigError, "gpt target must have shape [", output.size(0), ", ", output.size(1), "], got ",
               target.defined() ? target.sizes() : at::IntArrayRef{});
  FATHOM_CHECK(target.scalar_type() == at::kLong, ConfigError, "gpt target must be int64 token ids, got ",
               target.scalar_type());
  return at::cross_entropy_loss(output.reshape({-1, output.size(-1)}), target.reshape({-1}));
}

std::vector<std::shared_ptr<torch::nn::Module>> Gpt::repeatedBlocks() const {
  std::vector<std::shared_ptr<torch::nn::Module>> blocks;
  for (const auto& block : *m_h) {
    blocks.push_back(block);
  }
  return blocks;
}

}  // namespace fathom::models
