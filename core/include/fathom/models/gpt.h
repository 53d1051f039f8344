// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "fathom/models/gpt_block.h"
#include "fathom/models/gpt_options.h"
#include "fathom/models/model.h"

#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/embedding.h>

namespace fathom::models {

/// GPT-2 style decoder-only transformer (nanoGPT's GPT), exactly what plan::Arch::Gpt counts: token and learned
/// position embeddings, nLayer pre-LN GptBlocks, a final LayerNorm and an lm_head tied to the token embedding.
///
/// Parameter names are GPT-2's / nanoGPT's, in this order: `transformer.wte.weight`, `transformer.wpe.weight`,
/// `transformer.h.<i>.ln_1.weight`, ..., `transformer.h.<i>.mlp.c_proj.bias`, `transformer.ln_f.weight`,
/// `transformer.ln_f.bias`. The lm_head has no parameter of its own: logits = x·wteᵀ, so the shared weight is
/// listed (and counted, and all-reduced) once.
///
/// Init (nanoGPT / GPT-2): Linear and Embedding weights ~ N(0, 0.02), the two residual projections
/// (`attn.c_proj`, `mlp.c_proj`) ~ N(0, 0.02/√(2·nLayer)), biases 0, LayerNorm weight 1 and bias 0; drawn from
/// LibTorch's default generator in registration order, so deterministic given torch::manual_seed.
///
/// Input int64 [B, T] with T <= blockSize and ids in [0, vocabSize); output float logits [B, T, vocabSize];
/// target int64 [B, T]; loss = mean cross entropy over the B·T tokens.
class Gpt : public Model {
public:
  /// Validates `options` (fathom::ConfigError on a bad value).
  explicit Gpt(GptOptions options = {});

  at::Tensor forward(const at::Tensor& input) override;
  at::Tensor loss(const at::Tensor& output, const at::Tensor& target) const override;
  std::string repeatedBlockType() const override { return "GptBlock"; }
  /// The block, its attention and MLP, and their Linear layers, each called as a unit: a dispatched model loads one
  /// layer's offloaded weights at a time, as Accelerate's hooks on every module do.
  std::vector<std::string> unitClasses() const override {
    return {"GptBlock", "CausalSelfAttention", "GptMlp", "torch::nn::LinearImpl"};
  }
  std::vector<std::shared_ptr<torch::nn::Module>> repeatedBlocks() const override;

  const GptOptions& options() const { return m_options; }

private:
  GptOptions m_options;
  torch::nn::Embedding m_wte{nullptr};
  torch::nn::Embedding m_wpe{nullptr};
  torch::nn::Dropout m_drop{nullptr};
  torch::nn::ModuleList m_h{nullptr};
  std::shared_ptr<GptLayerNorm> m_lnF;
};

}  // namespace fathom::models
