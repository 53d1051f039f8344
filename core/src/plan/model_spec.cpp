// SPDX-License-Identifier: Apache-2.0
// Parameter counts from transformer dimensions, module by module as the Hugging Face implementations allocate them
// (GPT2Model, LlamaForCausalLM/MistralForCausalLM/MixtralForCausalLM, BertModel, T5ForConditionalGeneration).
#include <fathom/plan/model_spec.h>

#include <fathom/common/error.h>

#include <algorithm>
#include <array>

namespace fathom::plan {

Arch parseArch(std::string_view text) {
  if (text == "gpt" || text == "gpt2" || text == "gpt-like") {
    return Arch::Gpt;
  }
  if (text == "llama" || text == "mistral" || text == "mixtral" || text == "llama-like") {
    return Arch::Llama;
  }
  if (text == "bert" || text == "bert-like") {
    return Arch::Bert;
  }
  if (text == "t5") {
    return Arch::T5;
  }
  if (text == "params") {
    return Arch::Params;
  }
  throw ConfigError(detail::concat("unknown arch '", text, "' (expected gpt, llama, bert, t5 or params)"));
}

std::string_view archName(Arch arch) {
  switch (arch) {
  case Arch::Params: return "params";
  case Arch::Gpt: return "gpt";
  case Arch::Llama: return "llama";
  case Arch::Bert: return "bert";
  case Arch::T5: return "t5";
  }
  return "params";
}

ModelSpec modelFromParams(std::int64_t params, std::string name) {
  FATHOM_CHECK(params > 0, ConfigError, "params must be > 0, got ", params);
  ModelSpec m;
  m.name = name.empty() ? detail::concat(params, " params") : std::move(name);
  m.arch = Arch::Params;
  m.totalParams = params;
  m.matmulParamsPerToken = params;
  return m;
}

namespace {

void validateDims(const TransformerDims& d) {
  FATHOM_CHECK(d.arch != Arch::Params, ConfigError, "transformer dimensions need an arch (gpt, llama, bert, t5)");
  FATHOM_CHECK(d.layers >= 1, ConfigError, "layers must be >= 1, got ", d.layers);
  FATHOM_CHECK(d.hidden >= 1, ConfigError, "hidden must be >= 1, got ", d.hidden);
  FATHOM_CHECK(d.heads >= 1, ConfigError, "heads must be >= 1, got ", d.heads);
  FATHOM_CHECK(d.vocab >= 1, ConfigError, "vocab must be >= 1, got ", d.vocab);
  FATHOM_CHECK(d.kvHeads >= 0 && d.kvHeads <= d.heads, ConfigError, "kv_heads must be between 1 and heads (", d.heads,
               "), got ", d.kvHeads);
  FATHOM_CHECK(d.kvHeads == 0 || d.heads % d.kvHeads == 0, ConfigError, "heads (", d.heads,
               ") must be a multiple of kv_heads (", d.kvHeads, ")");
  FATHOM_CHECK(d.headDim > 0 || d.hidden % d.heads == 0, ConfigError, "hidden (", d.hidden,
               ") must be a multiple of heads (", d.heads, ") unless head_dim is given");
  FATHOM_CHECK(d.ffnHidden >= 0, ConfigError, "ffn_hidden must be >= 0, got ", d.ffnHidden);
  FATHOM_CHECK(d.decoderLayers >= 0, ConfigError, "decoder_layers must be >= 0, got ", d.decoderLayers);
  FATHOM_CHECK(d.numExperts >= 0, ConfigError, "num_experts must be >= 0, got ", d.numExperts);
  FATHOM_CHECK(d.numExperts <= 1 || (d.expertsPerToken >= 1 && d.expertsPerToken <= d.numExperts), ConfigError,
               "experts_per_token must be between 1 and num_experts (", d.numExperts, "), got ", d.expertsPerToken);
  FATHOM_CHECK(d.numExperts <= 1 || d.arch == Arch::Llama, ConfigError,
               "mixture-of-experts layers are modelled for the llama family (Mixtral) only");
}

// Llama's default MLP width: 2/3 of 4h rounded up to a multiple of 256 (Meta's reference model.py).
std::int64_t llamaFfn(std::int64_t hidden) {
  const std::int64_t raw = (8 * hidden) / 3;
  return (raw + 255) / 256 * 256;
}

}  // namespace

ModelSpec modelFromDims(const TransformerDims& input, std::string name) {
  validateDims(input);
  TransformerDims d = input;
  if (d.kvHeads == 0) {
    d.kvHeads = d.heads;
  }
  if (d.headDim == 0) {
    d.headDim = d.hidden / d.heads;
  }
  if (d.ffnHidden == 0) {
    d.ffnHidden = d.arch == Arch::Llama ? llamaFfn(d.hidden) : 4 * d.hidden;
  }
  if (d.maxPositions == 0) {
    d.maxPositions = d.arch == Arch::Bert ? 512 : 2048;
  }
  if (d.arch == Arch::T5 && d.decoderLayers == 0) {
    d.decoderLayers = d.layers;
  }
  if (d.arch != Arch::T5) {
    d.decoderLayers = 0;
  }
  if (d.numExperts <= 1) {
    d.numExperts = 0;
    d.expertsPerToken = 0;
  }

  const std::int64_t h = d.hidden;
  const std::int64_t f = d.ffnHidden;
  const std::int64_t v = d.vocab;
  const std::int64_t q = d.heads * d.headDim;     // query / output width
  const std::int64_t kv = d.kvHeads * d.headDim;  // key and value width
  const std::int64_t wordEmbedding = v * h;

  ModelSpec m;
  m.arch = d.arch;
  m.name = name.empty() ? detail::concat(archName(d.arch), " L", d.layers, " h", h) : std::move(name);
  std::int64_t matmulPerLayer = 0;
  std::int64_t decoderMatmulPerLayer = 0;
  std::int64_t largestModule = wordEmbedding;

  switch (d.arch) {
  case Arch::Gpt: {
    // ln_1, c_attn (h x 3h + bias), c_proj (h x h + bias), ln_2, mlp.c_fc (h x f + bias), mlp.c_proj (f x h + bias)
    const std::int64_t attn = (h * 3 * h + 3 * h) + (h * h + h);
    const std::int64_t mlp = (h * f + f) + (f * h + h);
    m.blockParams = 2 * h + attn + 2 * h + mlp;
    m.embeddingParams = wordEmbedding + d.maxPositions * h;  // wte + wpe
    m.otherParams = 2 * h;                                   // ln_f
    matmulPerLayer = 4 * h * h + 2 * h * f;
    largestModule = std::max({wordEmbedding, d.maxPositions * h, h * 3 * h + 3 * h, h * f + f});
    break;
  }
  case Arch::Llama: {
    const std::int64_t bias = d.attentionBias ? (q + 2 * kv) : 0;
    const std::int64_t attn = h * q + 2 * h * kv + q * h + bias;
    const std::int64_t expertMlp = 3 * h * f;  // gate_proj, up_proj, down_proj
    const std::int64_t experts = d.numExperts > 1 ? d.numExperts : 1;
    const std::int64_t router = d.numExperts > 1 ? h * d.numExperts : 0;
    m.blockParams = attn + experts * expertMlp + router + 2 * h;  // + input_layernorm, post_attention_layernorm
    m.embeddingParams = wordEmbedding;
    m.otherParams = h;  // final RMSNorm
    const std::int64_t active = d.numExperts > 1 ? d.expertsPerToken : 1;
    matmulPerLayer = h * q + 2 * h * kv + q * h + active * expertMlp + router;
    largestModule = std::max({wordEmbedding, h * q + (d.attentionBias ? q : 0), h * f});
    break;
  }
  case Arch::Bert: {
    const std::int64_t attn = 4 * (h * h + h);
    const std::int64_t mlp = (h * f + f) + (f * h + h);
    m.blockParams = attn + 2 * h + mlp + 2 * h;
    m.embeddingParams = wordEmbedding + d.maxPositions * h + d.typeVocab * h + 2 * h;  // + embeddings.LayerNorm
    m.headParams = d.pooler ? h * h + h : 0;
    matmulPerLayer = 4 * h * h + 2 * h * f;
    largestModule = std::max({wordEmbedding, d.maxPositions * h, h * f + f});
    break;
  }
  case Arch::T5: {
    const std::int64_t attn = 4 * h * q;  // q, k, v, o without biases
    const std::int64_t ff = (d.gatedMlp ? 3 : 2) * h * f;
    m.blockParams = attn + h + ff + h;
    m.decoderBlockParams = 2 * (attn + h) + ff + h;
    m.embeddingParams = wordEmbedding;  // shared by encoder and decoder
    // Relative-attention bias tables (first block of each stack) and the two final layer norms.
    m.otherParams = 2 * d.relativeBuckets * d.heads + 2 * h;
    matmulPerLayer = attn + ff;
    decoderMatmulPerLayer = 2 * attn + ff;
    largestModule = std::max({wordEmbedding, h * f, h * q});
    break;
  }
  case Arch::Params: break;
  }
  if (!d.tiedEmbeddings && d.arch != Arch::Bert) {
    m.headParams += wordEmbedding;  // lm_head without bias
  }
  m.totalParams = m.embeddingParams + m.headParams + m.otherParams + d.layers * m.blockParams +
                  d.decoderLayers * m.decoderBlockParams;
  m.largestUnitParams = std::max({m.blockParams, m.decoderBlockParams, wordEmbedding});
  m.largestModuleParams = largestModule;
  // The output projection (h x v) is a matmul for every token whether or not it is tied (Korthikanti Eq. 7).
  m.matmulParamsPerToken = d.layers * matmulPerLayer + d.decoderLayers * decoderMatmulPerLayer + h * v;
  m.dims = d;
  return m;
}

}  // namespace fathom::plan
