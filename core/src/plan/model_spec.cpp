// SPDX-License-Identifier: Apache-2.0
// Parameter counts from transformer dimensions, module by module as the Hugging Face implementations allocate them
// (GPT2Model, LlamaForCausalLM/MistralForCausalLM/MixtralForCausalLM, BertModel, T5ForConditionalGeneration).
#include <fathom/plan/model_spec.h>

#include <fathom/common/checked_number.h>
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

/// `value` within [low, high], or ConfigError naming the input, its value and the allowed range.
void checkRange(const char* name, std::int64_t value, std::int64_t low, std::int64_t high) {
  FATHOM_CHECK(value >= low && value <= high, ConfigError, name, " must be between ", low, " and ", high, ", got ",
               value);
}

void validateDims(const TransformerDims& d) {
  FATHOM_CHECK(d.arch != Arch::Params, ConfigError, "transformer dimensions need an arch (gpt, llama, bert, t5)");
  checkRange("layers", d.layers, 1, kMaxLayers);
  checkRange("hidden", d.hidden, 1, kMaxWidth);
  checkRange("heads", d.heads, 1, kMaxHeads);
  checkRange("vocab", d.vocab, 1, kMaxWidth);
  FATHOM_CHECK(d.kvHeads >= 0 && d.kvHeads <= d.heads, ConfigError, "kv_heads must be between 1 and heads (", d.heads,
               "), got ", d.kvHeads);
  FATHOM_CHECK(d.kvHeads == 0 || d.heads % d.kvHeads == 0, ConfigError, "heads (", d.heads,
               ") must be a multiple of kv_heads (", d.kvHeads, ")");
  checkRange("head_dim", d.headDim, 0, kMaxWidth);
  FATHOM_CHECK(d.headDim > 0 || d.hidden % d.heads == 0, ConfigError, "hidden (", d.hidden,
               ") must be a multiple of heads (", d.heads, ") unless head_dim is given");
  checkRange("ffn_hidden", d.ffnHidden, 0, kMaxWidth);
  checkRange("decoder_layers", d.decoderLayers, 0, kMaxLayers);
  checkRange("max_positions", d.maxPositions, 0, kMaxWidth);
  checkRange("type_vocab", d.typeVocab, 0, kMaxWidth);
  checkRange("relative_attention_num_buckets", d.relativeBuckets, 0, kMaxWidth);
  checkRange("num_experts", d.numExperts, 0, kMaxExperts);
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

  // Every count below is computed with overflow checks (CheckedInt64) and narrowed once at the end: dimensions in
  // range can still multiply past 2^63 (2^24 layers of width 2^31), and that must be an error naming the inputs, not
  // a count that wrapped around (4.6e18 parameters, or none).
  using N = CheckedInt64;
  const N h = d.hidden;
  const N f = d.ffnHidden;
  const N v = d.vocab;
  const N q = N(d.heads) * d.headDim;     // query / output width
  const N kv = N(d.kvHeads) * d.headDim;  // key and value width
  const N wordEmbedding = v * h;
  const N positions = N(d.maxPositions) * h;

  N block = 0, decoderBlock = 0, embedding = 0, head = 0, other = 0;
  N matmulPerLayer = 0;
  N decoderMatmulPerLayer = 0;
  N largestModule = wordEmbedding;

  switch (d.arch) {
  case Arch::Gpt: {
    // ln_1, c_attn (h x 3h + bias), c_proj (h x h + bias), ln_2, mlp.c_fc (h x f + bias), mlp.c_proj (f x h + bias)
    const N attn = (h * 3 * h + 3 * h) + (h * h + h);
    const N mlp = (h * f + f) + (f * h + h);
    block = 2 * h + attn + 2 * h + mlp;
    embedding = wordEmbedding + positions;  // wte + wpe
    other = 2 * h;                          // ln_f
    matmulPerLayer = 4 * h * h + 2 * h * f;
    largestModule = max(max(wordEmbedding, positions), max(h * 3 * h + 3 * h, h * f + f));
    break;
  }
  case Arch::Llama: {
    const N bias = d.attentionBias ? (q + 2 * kv) : N(0);
    const N attn = h * q + 2 * h * kv + q * h + bias;
    const N expertMlp = 3 * h * f;  // gate_proj, up_proj, down_proj
    const N experts = d.numExperts > 1 ? d.numExperts : 1;
    const N router = d.numExperts > 1 ? h * d.numExperts : N(0);
    block = attn + experts * expertMlp + router + 2 * h;  // + input_layernorm, post_attention_layernorm
    embedding = wordEmbedding;
    other = h;  // final RMSNorm
    const N active = d.numExperts > 1 ? d.expertsPerToken : 1;
    matmulPerLayer = h * q + 2 * h * kv + q * h + active * expertMlp + router;
    largestModule = max(max(wordEmbedding, h * q + (d.attentionBias ? q : N(0))), h * f);
    break;
  }
  case Arch::Bert: {
    const N attn = 4 * (h * h + h);
    const N mlp = (h * f + f) + (f * h + h);
    block = attn + 2 * h + mlp + 2 * h;
    embedding = wordEmbedding + positions + N(d.typeVocab) * h + 2 * h;  // + embeddings.LayerNorm
    head = d.pooler ? h * h + h : N(0);
    matmulPerLayer = 4 * h * h + 2 * h * f;
    largestModule = max(max(wordEmbedding, positions), h * f + f);
    break;
  }
  case Arch::T5: {
    const N attn = 4 * h * q;  // q, k, v, o without biases
    const N ff = (d.gatedMlp ? 3 : 2) * h * f;
    block = attn + h + ff + h;
    decoderBlock = 2 * (attn + h) + ff + h;
    embedding = wordEmbedding;  // shared by encoder and decoder
    // Relative-attention bias tables (first block of each stack) and the two final layer norms.
    other = 2 * N(d.relativeBuckets) * d.heads + 2 * h;
    matmulPerLayer = attn + ff;
    decoderMatmulPerLayer = 2 * attn + ff;
    largestModule = max(max(wordEmbedding, h * f), h * q);
    break;
  }
  case Arch::Params: break;
  }
  if (!d.tiedEmbeddings && d.arch != Arch::Bert) {
    head += wordEmbedding;  // lm_head without bias
  }
  const N total = embedding + head + other + N(d.layers) * block + N(d.decoderLayers) * decoderBlock;
  // The output projection (h x v) is a matmul for every token whether or not it is tied (Korthikanti Eq. 7).
  const N matmul = N(d.layers) * matmulPerLayer + N(d.decoderLayers) * decoderMatmulPerLayer + h * v;
  const auto count = [&d](N value) {
    FATHOM_CHECK(!value.overflowed(), ConfigError, "the model's parameter count does not fit in 64 bits (layers ",
                 d.layers, ", decoder_layers ", d.decoderLayers, ", hidden ", d.hidden, ", heads ", d.heads,
                 ", head_dim ", d.headDim, ", ffn_hidden ", d.ffnHidden, ", vocab ", d.vocab, ", max_positions ",
                 d.maxPositions, ", num_experts ", d.numExperts, "): make the dimensions smaller");
    return *value.value();
  };

  ModelSpec m;
  m.arch = d.arch;
  m.name = name.empty() ? detail::concat(archName(d.arch), " L", d.layers, " h", d.hidden) : std::move(name);
  m.blockParams = count(block);
  m.decoderBlockParams = count(decoderBlock);
  m.embeddingParams = count(embedding);
  m.headParams = count(head);
  m.otherParams = count(other);
  m.totalParams = count(total);
  m.largestUnitParams = count(max(max(block, decoderBlock), wordEmbedding));
  m.largestModuleParams = count(largestModule);
  m.matmulParamsPerToken = count(matmul);
  m.dims = d;
  return m;
}

}  // namespace fathom::plan
