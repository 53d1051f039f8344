// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "fathom/models/gpt_options.h"

#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/dropout.h>
#include <torch/nn/modules/linear.h>

#include <cstdint>

namespace fathom::models {

/// LayerNorm over the last dimension (eps 1e-5) with a `weight` and, when GptOptions::bias, a `bias`.
/// LibTorch 1.13's torch::nn::LayerNorm cannot drop the bias alone (nanoGPT's bias=False), hence this module.
class GptLayerNorm : public torch::nn::Module {
public:
  GptLayerNorm(std::int64_t width, bool bias);
  at::Tensor forward(const at::Tensor& x);

private:
  std::int64_t m_width;
  at::Tensor m_weight;
  at::Tensor m_bias;  ///< undefined when bias is off
};

/// Causal multi-head self-attention with a fused qkv projection (GPT-2's `attn`): parameters `c_attn.weight`
/// [3n, n], `c_attn.bias`, `c_proj.weight` [n, n], `c_proj.bias`. Written with plain ATen ops (LibTorch 1.13 has
/// no scaled_dot_product_attention): softmax(q·kᵀ/√d + causal mask)·v. The mask is built per call on the
/// input's device rather than kept as a buffer, so the state dict holds parameters only.
class CausalSelfAttention : public torch::nn::Module {
public:
  explicit CausalSelfAttention(const GptOptions& options);
  /// x: [B, T, n] → [B, T, n].
  at::Tensor forward(const at::Tensor& x);

private:
  std::int64_t m_nHead;
  std::int64_t m_nEmbd;
  torch::nn::Linear m_cAttn{nullptr};
  torch::nn::Linear m_cProj{nullptr};
  torch::nn::Dropout m_attnDropout{nullptr};
  torch::nn::Dropout m_residDropout{nullptr};
};

/// GPT-2's position-wise MLP: `c_fc` Linear(n, 4n), GeLU (tanh approximation, GPT-2's gelu_new), `c_proj`
/// Linear(4n, n), dropout.
class GptMlp : public torch::nn::Module {
public:
  explicit GptMlp(const GptOptions& options);
  at::Tensor forward(const at::Tensor& x);

private:
  torch::nn::Linear m_cFc{nullptr};
  torch::nn::Linear m_cProj{nullptr};
  torch::nn::Dropout m_dropout{nullptr};
};

/// One pre-LN transformer block: x + attn(ln_1(x)), then x + mlp(ln_2(x)). Parameter names follow GPT-2
/// (`ln_1.*`, `attn.c_attn.*`, `attn.c_proj.*`, `ln_2.*`, `mlp.c_fc.*`, `mlp.c_proj.*`). This is the unit FSDP
/// auto-wrap wraps ("GptBlock").
class GptBlock : public torch::nn::Module {
public:
  explicit GptBlock(const GptOptions& options);
  at::Tensor forward(const at::Tensor& x);

private:
  std::shared_ptr<GptLayerNorm> m_ln1;
  std::shared_ptr<CausalSelfAttention> m_attn;
  std::shared_ptr<GptLayerNorm> m_ln2;
  std::shared_ptr<GptMlp> m_mlp;
};

}  // namespace fathom::models
