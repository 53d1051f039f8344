// SPDX-License-Identifier: Apache-2.0
// GPT-2's block (nanoGPT model.py: LayerNorm, CausalSelfAttention, MLP, Block) in LibTorch 1.13 ATen ops.
#include "fathom/models/gpt_block.h"

#include <fathom/parallel/unit_scope.h>

#include <ATen/ATen.h>

#include <cmath>
#include <limits>

namespace fathom::models {

GptLayerNorm::GptLayerNorm(std::int64_t width, bool bias) : torch::nn::Module("GptLayerNorm"), m_width(width) {
  m_weight = register_parameter("weight", at::ones({width}));
  if (bias) {
    m_bias = register_parameter("bias", at::zeros({width}));
  }
}

at::Tensor GptLayerNorm::forward(const at::Tensor& x) {
  return at::layer_norm(x, {m_width}, m_weight, m_bias, 1e-5);
}

CausalSelfAttention::CausalSelfAttention(const GptOptions& o)
    : torch::nn::Module("CausalSelfAttention"), m_nHead(o.nHead), m_nEmbd(o.nEmbd) {
  m_cAttn = register_module("c_attn", torch::nn::Linear(torch::nn::LinearOptions(o.nEmbd, 3 * o.nEmbd).bias(o.bias)));
  m_cProj = register_module("c_proj", torch::nn::Linear(torch::nn::LinearOptions(o.nEmbd, o.nEmbd).bias(o.bias)));
  m_attnDropout = register_module("attn_dropout", torch::nn::Dropout(o.dropout));
  m_residDropout = register_module("resid_dropout", torch::nn::Dropout(o.dropout));
}

at::Tensor CausalSelfAttention::forward(const at::Tensor& x) {
  const std::int64_t batch = x.size(0);
  const std::int64_t time = x.size(1);
  const std::int64_t headDim = m_nEmbd / m_nHead;
  // [B, T, 3n] → q, k, v, each [B, H, T, d].
  const auto qkv = parallel::callUnit(m_cAttn, x).split(m_nEmbd, 2);
  const auto heads = [&](const at::Tensor& t) { return t.view({batch, time, m_nHead, headDim}).transpose(1, 2); };
  const at::Tensor q = heads(qkv[0]);
  const at::Tensor k = heads(qkv[1]);
  const at::Tensor v = heads(qkv[2]);

  at::Tensor att = at::matmul(q, k.transpose(-2, -1)).mul(1.0 / std::sqrt(static_cast<double>(headDim)));
  // Position t attends to positions <= t: mask the strict upper triangle.
  const at::Tensor future = at::ones({time, time}, x.options().dtype(at::kBool)).triu(1);
  att = att.masked_fill(future, -std::numeric_limits<double>::infinity());
  att = m_attnDropout->forward(at::softmax(att, -1));
  const at::Tensor y = at::matmul(att, v).transpose(1, 2).contiguous().view({batch, time, m_nEmbd});
  return m_residDropout->forward(parallel::callUnit(m_cProj, y));
}

GptMlp::GptMlp(const GptOptions& o) : torch::nn::Module("GptMlp") {
  m_cFc = register_module("c_fc", torch::nn::Linear(torch::nn::LinearOptions(o.nEmbd, 4 * o.nEmbd).bias(o.bias)));
  m_cProj = register_module("c_proj", torch::nn::Linear(torch::nn::LinearOptions(4 * o.nEmbd, o.nEmbd).bias(o.bias)));
  m_dropout = register_module("dropout", torch::nn::Dropout(o.dropout));
}

at::Tensor GptMlp::forward(const at::Tensor& x) {
  // Each Linear is a unit (Gpt::unitClasses): a dispatched model loads one layer's offloaded weights at a time.
  return m_dropout->forward(parallel::callUnit(m_cProj, at::gelu(parallel::callUnit(m_cFc, x), "tanh")));
}

GptBlock::GptBlock(const GptOptions& o) : torch::nn::Module("GptBlock") {
  m_ln1 = register_module("ln_1", std::make_shared<GptLayerNorm>(o.nEmbd, o.bias));
  m_attn = register_module("attn", std::make_shared<CausalSelfAttention>(o));
  m_ln2 = register_module("ln_2", std::make_shared<GptLayerNorm>(o.nEmbd, o.bias));
  m_mlp = register_module("mlp", std::make_shared<GptMlp>(o));
}

at::Tensor GptBlock::forward(const at::Tensor& x) {
  // The attention and the MLP are units of their own (callUnit): a dispatched model loads their offloaded weights
  // for their own forward only, and the profiler shows them in the module hierarchy.
  at::Tensor h = x + parallel::callUnit(m_attn, m_ln1->forward(x));
  return h + parallel::callUnit(m_mlp, m_ln2->forward(h));
}

}  // namespace fathom::models
