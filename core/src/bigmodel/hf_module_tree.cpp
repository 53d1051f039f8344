// SPDX-License-Identifier: Apache-2.0
// The modules transformers builds, checked against its source (huggingface/transformers, src/transformers/models/):
// - gpt2/modeling_gpt2.py @ c44b2d99: GPT2LMHeadModel(transformer: GPT2Model(wte, wpe, drop, h: ModuleList of
//   GPT2Block(ln_1, attn: GPT2Attention(c_attn, c_proj, attn_dropout, resid_dropout; buffers bias and masked_bias,
//   non-persistent), ln_2, mlp: GPT2MLP(c_fc, c_proj, act, dropout)), ln_f), lm_head); Conv1D(nf, nx) holds weight
//   [nx, nf] and bias [nf]; _no_split_modules ["GPT2Block"], base_model_prefix "transformer".
// - llama/modeling_llama.py (4.48 and later): LlamaForCausalLM(model: LlamaModel(embed_tokens, layers: ModuleList of
//   LlamaDecoderLayer(self_attn: LlamaAttention(q_proj, k_proj, v_proj, o_proj, all with bias=attention_bias),
//   mlp: LlamaMLP(gate_proj, up_proj, down_proj with bias=mlp_bias, act_fn), input_layernorm,
//   post_attention_layernorm), norm, rotary_emb: LlamaRotaryEmbedding(inv_freq, non-persistent, float32)), lm_head);
//   head_dim = config.head_dim or hidden_size / num_attention_heads; k_proj and v_proj have num_key_value_heads heads.
// - mistral/modular_mistral.py @ 0096ba4f: Llama's layout with Mistral names; no bias in attention or MLP.
// - mixtral/modular_mixtral.py @ 008f5c8c: MixtralDecoderLayer(self_attn, block_sparse_moe: MixtralSparseMoeBlock(
//   gate: Linear(hidden, num_local_experts), experts: ModuleList of MixtralBlockSparseTop2MLP(w1, w2, w3, act_fn)),
//   input_layernorm, post_attention_layernorm); attention as Mistral's.
#include <fathom/bigmodel/hf_module_tree.h>

#include <fathom/common/error.h>
#include <fathom/common/terminal_text.h>

#include <algorithm>
#include <array>
#include <map>

namespace fathom::bigmodel {
namespace {

using Shape = std::vector<std::int64_t>;

constexpr std::int64_t kMaxModules = 4'000'000;

constexpr std::array<HfFamily, 4> kFamilies{{
    {"gpt2", "transformer", "GPT2Model", "GPT2LMHeadModel", "GPT2Block", "wte.weight", "lm_head.weight"},
    {"llama", "model", "LlamaModel", "LlamaForCausalLM", "LlamaDecoderLayer", "embed_tokens.weight", "lm_head.weight"},
    {"mistral", "model", "MistralModel", "MistralForCausalLM", "MistralDecoderLayer", "embed_tokens.weight",
     "lm_head.weight"},
    {"mixtral", "model", "MixtralModel", "MixtralForCausalLM", "MixtralDecoderLayer", "embed_tokens.weight",
     "lm_head.weight"},
}};

/// transformers' ACT2CLS (activations.py): the module class each activation name makes.
std::string activationClass(const plan::HfConfig& c, const char* key) {
  static const std::map<std::string, std::string> kClasses{{"gelu", "GELUActivation"},
                                                           {"gelu_new", "NewGELUActivation"},
                                                           {"gelu_fast", "FastGELUActivation"},
                                                           {"quick_gelu", "QuickGELUActivation"},
                                                           {"relu", "ReLU"},
                                                           {"relu6", "ReLU6"},
                                                           {"silu", "SiLU"},
                                                           {"swish", "SiLU"},
                                                           {"tanh", "Tanh"},
                                                           {"sigmoid", "Sigmoid"},
                                                           {"mish", "MishActivation"},
                                                           {"linear", "LinearActivation"}};
  const auto it = kClasses.find(c.activation);
  if (it != kClasses.end()) {
    return it->second;
  }
  std::string known;
  for (const auto& [name, cls] : kClasses) {
    known += (known.empty() ? "" : ", ") + name;
  }
  throw ConfigError(detail::concat(c.origin, ": ", key, " '", terminalSafe(c.activation),
                                   "' is not an activation Fathom knows (", known, ")"));
}

/// Modules appended in pre-order: a module is added before its children, with the children's local names known.
/// Tensors get fresh ids (-1) unless tied; the tied pair shares kTiedId.
class Emitter {
public:
  static constexpr std::int64_t kTiedId = 0;

  explicit Emitter(Dtype dtype) : m_dtype(dtype) {}

  ModuleInfo& module(const std::string& name, std::string cls, std::vector<std::string> children = {}) {
    m_modules.push_back({name, std::move(cls), std::move(children), {}, {}});
    return m_modules.back();
  }
  void parameter(ModuleInfo& m, std::string local, Shape shape, std::int64_t id = -1) {
    m.parameters.push_back({std::move(local), std::move(shape), m_dtype, true, id});
  }
  void buffer(ModuleInfo& m, std::string local, Shape shape, Dtype dtype) {
    m.buffers.push_back({std::move(local), std::move(shape), dtype, /*persistent=*/false, -1});
  }
  /// nn.Linear(in, out): weight [out, in], bias [out].
  void linear(const std::string& name, std::int64_t in, std::int64_t out, bool bias, std::int64_t id = -1) {
    ModuleInfo& m = module(name, "Linear");
    parameter(m, "weight", {out, in}, id);
    if (bias) {
      parameter(m, "bias", {out});
    }
  }
  /// transformers' Conv1D(nf, nx): weight [nx, nf], bias [nf] (a Linear stored transposed).
  void conv1d(const std::string& name, std::int64_t nf, std::int64_t nx) {
    ModuleInfo& m = module(name, "Conv1D");
    parameter(m, "weight", {nx, nf});
    parameter(m, "bias", {nf});
  }
  void embedding(const std::string& name, std::int64_t rows, std::int64_t dim, std::int64_t id = -1) {
    parameter(module(name, "Embedding"), "weight", {rows, dim}, id);
  }
  void layerNorm(const std::string& name, std::int64_t dim) {
    ModuleInfo& m = module(name, "LayerNorm");
    parameter(m, "weight", {dim});
    parameter(m, "bias", {dim});
  }
  void rmsNorm(const std::string& name, const std::string& cls, std::int64_t dim) {
    parameter(module(name, cls), "weight", {dim});
  }
  /// nn.ModuleList of n entries "0" .. "n-1".
  void moduleList(const std::string& name, std::int64_t n) {
    std::vector<std::string> children;
    for (std::int64_t i = 0; i < n; ++i) {
      children.push_back(std::to_string(i));
    }
    module(name, "ModuleList", std::move(children));
  }
  Dtype dtype() const { return m_dtype; }
  std::vector<ModuleInfo> take() { return std::move(m_modules); }

private:
  Dtype m_dtype;
  // A deque would keep references valid; a vector does not, so callers finish one module before adding the next.
  std::vector<ModuleInfo> m_modules;
};

std::string at(const std::string& prefix, const std::string& local) {
  return ModuleTree::qualified(prefix, local);
}

/// GPT2Model's modules under `base` ("transformer", or "" when the base model is the root).
void gpt2Base(Emitter& e, const plan::HfConfig& c, const std::string& base, bool rootIsBase) {
  const plan::TransformerDims& d = c.model->dims;
  const std::int64_t n = d.hidden;
  const std::string act = activationClass(c, "activation_function");
  if (!rootIsBase) {
    e.module(base, "GPT2Model", {"wte", "wpe", "drop", "h", "ln_f"});
  }
  e.embedding(at(base, "wte"), d.vocab, n, Emitter::kTiedId);
  e.embedding(at(base, "wpe"), d.maxPositions, n);
  e.module(at(base, "drop"), "Dropout");
  e.moduleList(at(base, "h"), d.layers);
  for (std::int64_t i = 0; i < d.layers; ++i) {
    const std::string block = at(base, "h." + std::to_string(i));
    e.module(block, "GPT2Block", {"ln_1", "attn", "ln_2", "mlp"});
    e.layerNorm(at(block, "ln_1"), n);
    ModuleInfo& attn =
        e.module(at(block, "attn"), "GPT2Attention", {"c_attn", "c_proj", "attn_dropout", "resid_dropout"});
    e.buffer(attn, "bias", {1, 1, d.maxPositions, d.maxPositions}, Dtype::Bool);
    e.buffer(attn, "masked_bias", {}, e.dtype());  // torch.tensor(-1e4): the default dtype, torch_dtype when loading
    e.conv1d(at(block, "attn.c_attn"), 3 * n, n);
    e.conv1d(at(block, "attn.c_proj"), n, n);
    e.module(at(block, "attn.attn_dropout"), "Dropout");
    e.module(at(block, "attn.resid_dropout"), "Dropout");
    e.layerNorm(at(block, "ln_2"), n);
    e.module(at(block, "mlp"), "GPT2MLP", {"c_fc", "c_proj", "act", "dropout"});
    e.conv1d(at(block, "mlp.c_fc"), d.ffnHidden, n);
    e.conv1d(at(block, "mlp.c_proj"), n, d.ffnHidden);
    e.module(at(block, "mlp.act"), act);
    e.module(at(block, "mlp.dropout"), "Dropout");
  }
  e.layerNorm(at(base, "ln_f"), n);
}

/// LlamaModel's (MistralModel's, MixtralModel's) modules under `base`.
void llamaBase(Emitter& e, const plan::HfConfig& c, const std::string& family, const std::string& base,
               bool rootIsBase) {
  const plan::TransformerDims& d = c.model->dims;
  const std::int64_t h = d.hidden;
  const std::int64_t q = d.heads * d.headDim;
  const std::int64_t kv = d.kvHeads * d.headDim;
  const bool llama = c.modelType == "llama";
  const bool moe = c.modelType == "mixtral";
  const bool attnBias = llama && d.attentionBias;  // MistralAttention (and Mixtral's) never has biases
  const bool mlpBias = llama && c.mlpBias;
  const std::string act = activationClass(c, "hidden_act");
  FATHOM_CHECK(!moe || d.numExperts > 1, ConfigError, c.origin,
               ": a mixtral model needs num_local_experts >= 2 (MixtralSparseMoeBlock), got ", d.numExperts);
  if (!rootIsBase) {
    e.module(base, family + "Model", {"embed_tokens", "layers", "norm", "rotary_emb"});
  }
  e.embedding(at(base, "embed_tokens"), d.vocab, h, Emitter::kTiedId);
  e.moduleList(at(base, "layers"), d.layers);
  for (std::int64_t i = 0; i < d.layers; ++i) {
    const std::string layer = at(base, "layers." + std::to_string(i));
    const std::string ffn = moe ? "block_sparse_moe" : "mlp";
    e.module(layer, family + "DecoderLayer", {"self_attn", ffn, "input_layernorm", "post_attention_layernorm"});
    e.module(at(layer, "self_attn"), family + "Attention", {"q_proj", "k_proj", "v_proj", "o_proj"});
    e.linear(at(layer, "self_attn.q_proj"), h, q, attnBias);
    e.linear(at(layer, "self_attn.k_proj"), h, kv, attnBias);
    e.linear(at(layer, "self_attn.v_proj"), h, kv, attnBias);
    e.linear(at(layer, "self_attn.o_proj"), q, h, attnBias);
    if (moe) {
      const std::string block = at(layer, ffn);
      e.module(block, "MixtralSparseMoeBlock", {"gate", "experts"});
      e.linear(at(block, "gate"), h, d.numExperts, false);
      e.moduleList(at(block, "experts"), d.numExperts);
      for (std::int64_t x = 0; x < d.numExperts; ++x) {
        const std::string expert = at(block, "experts." + std::to_string(x));
        e.module(expert, "MixtralBlockSparseTop2MLP", {"w1", "w2", "w3", "act_fn"});
        e.linear(at(expert, "w1"), h, d.ffnHidden, false);
        e.linear(at(expert, "w2"), d.ffnHidden, h, false);
        e.linear(at(expert, "w3"), h, d.ffnHidden, false);
        e.module(at(expert, "act_fn"), act);
      }
    } else {
      const std::string mlp = at(layer, ffn);
      e.module(mlp, family + "MLP", {"gate_proj", "up_proj", "down_proj", "act_fn"});
      e.linear(at(mlp, "gate_proj"), h, d.ffnHidden, mlpBias);
      e.linear(at(mlp, "up_proj"), h, d.ffnHidden, mlpBias);
      e.linear(at(mlp, "down_proj"), d.ffnHidden, h, mlpBias);
      e.module(at(mlp, "act_fn"), act);
    }
    e.rmsNorm(at(layer, "input_layernorm"), family + "RMSNorm", h);
    e.rmsNorm(at(layer, "post_attention_layernorm"), family + "RMSNorm", h);
  }
  e.rmsNorm(at(base, "norm"), family + "RMSNorm", h);
  // The default RoPE (modeling_rope_utils.py): inv_freq = 1 / base^(arange(0, head_dim, 2) / head_dim), float32.
  ModuleInfo& rotary = e.module(at(base, "rotary_emb"), family + "RotaryEmbedding");
  e.buffer(rotary, "inv_freq", {(d.headDim + 1) / 2}, Dtype::Float32);
}

Dtype weightDtype(const plan::HfConfig& c) {
  if (c.torchDtype.empty()) {
    return Dtype::Float32;  // what transformers builds without torch_dtype
  }
  const auto dtype = dtypeFromName(c.torchDtype);
  FATHOM_CHECK(dtype && (*dtype == Dtype::Float64 || *dtype == Dtype::Float32 || *dtype == Dtype::Float16 ||
                         *dtype == Dtype::BFloat16),
               ConfigError, c.origin, ": torch_dtype '", terminalSafe(c.torchDtype),
               "' is not a floating-point dtype (float32, float16, bfloat16, float64)");
  return *dtype;
}

}  // namespace

const HfFamily* hfFamily(std::string_view modelType) {
  for (const HfFamily& f : kFamilies) {
    if (f.modelType == modelType) {
      return &f;
    }
  }
  return nullptr;
}

std::string hfFamilyNames() {
  std::string out;
  for (const HfFamily& f : kFamilies) {
    out += (out.empty() ? "" : ", ") + std::string(f.modelType);
  }
  return out;
}

ModuleTree moduleTreeFromHfConfig(const plan::HfConfig& c) {
  const HfFamily* family = hfFamily(c.modelType);
  FATHOM_CHECK(family != nullptr, ConfigError, c.origin, ": Fathom builds the modules of ", hfFamilyNames(),
               " models, not of model_type '", terminalSafe(c.modelType), "'");
  FATHOM_CHECK(c.model.has_value(), InternalError, "every family hfFamily knows is one the planner reads");
  const std::string arch = c.architecture.empty() ? std::string(family->headClass) : c.architecture;
  FATHOM_CHECK(arch == family->headClass || arch == family->baseClass, ConfigError, c.origin, ": architecture '",
               terminalSafe(arch), "' is not one Fathom builds for model_type '", c.modelType, "' (", family->headClass,
               " or ", family->baseClass, ")");
  const bool rootIsBase = arch == family->baseClass;
  const std::string base = rootIsBase ? std::string() : std::string(family->basePrefix);
  const plan::TransformerDims& d = c.model->dims;
  // The planner admits 2^24 layers and 2^16 experts; a tree of that many modules would not fit in memory. Real models
  // have a few hundred thousand modules at most (128 layers of 256 experts).
  const std::int64_t perLayer = 20 + 6 * std::max<std::int64_t>(d.numExperts, 1);
  FATHOM_CHECK(d.layers <= kMaxModules / perLayer, ConfigError, c.origin, ": ", d.layers, " layers of ", perLayer,
               " modules each are more than the ", kMaxModules, " modules Fathom builds a tree of");

  Emitter e(weightDtype(c));
  if (rootIsBase) {
    e.module("", arch,
             c.modelType == "gpt2" ? std::vector<std::string>{"wte", "wpe", "drop", "h", "ln_f"}
                                   : std::vector<std::string>{"embed_tokens", "layers", "norm", "rotary_emb"});
  } else {
    e.module("", arch, {base, "lm_head"});
  }
  if (c.modelType == "gpt2") {
    gpt2Base(e, c, base, rootIsBase);
  } else {
    // "LlamaForCausalLM" -> "Llama": the family's class prefix.
    const std::string prefix(family->baseClass.substr(0, family->baseClass.size() - std::string_view("Model").size()));
    llamaBase(e, c, prefix, base, rootIsBase);
  }
  if (!rootIsBase) {
    // lm_head: Linear(hidden, vocab, bias=False), the input embedding's tensor when tied (_tied_weights_keys).
    e.linear("lm_head", d.hidden, d.vocab, false, c.tieWordEmbeddings ? Emitter::kTiedId : -1);
  }
  try {
    return ModuleTree(e.take());
  } catch (const ConfigError& err) {
    throw ConfigError(detail::concat(c.origin, ": ", err.what()));
  }
}

ModuleTree moduleTreeFromHfConfig(const std::filesystem::path& path) {
  return moduleTreeFromHfConfig(plan::readHfConfig(path));
}

}  // namespace fathom::bigmodel
