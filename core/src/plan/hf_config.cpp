// SPDX-License-Identifier: Apache-2.0
// Hugging Face config.json -> TransformerDims and the keys a module tree needs. Key names and defaults are those of the
// transformers configuration classes (GPT2Config, LlamaConfig, MistralConfig, MixtralConfig, Qwen2Config, BertConfig,
// T5Config).
#include <fathom/plan/hf_config.h>

#include <fathom/common/checked_number.h>
#include <fathom/common/error.h>
#include <fathom/common/json_input.h>
#include <fathom/common/terminal_text.h>

#include <nlohmann/json.hpp>

#include <fstream>
#include <limits>
#include <optional>
#include <sstream>

namespace fathom::plan {
namespace {

using nlohmann::json;

class Reader {
public:
  Reader(const json& j, const std::string& name) : m_j(j), m_name(name) {}

  std::int64_t required(const char* key) const {
    const auto it = m_j.find(key);
    FATHOM_CHECK(it != m_j.end() && !it->is_null(), ConfigError, m_name, ": config.json has no '", key, "'");
    return number(key, *it);
  }
  std::int64_t optional(const char* key, std::int64_t fallback) const {
    const auto it = m_j.find(key);
    return it == m_j.end() || it->is_null() ? fallback : number(key, *it);
  }
  bool flag(const char* key, bool fallback) const {
    const auto it = m_j.find(key);
    if (it == m_j.end() || it->is_null()) {
      return fallback;
    }
    FATHOM_CHECK(it->is_boolean(), ConfigError, m_name, ": '", key, "' must be true or false, got ", quotedJson(*it));
    return it->get<bool>();
  }
  std::string text(const char* key, const std::string& fallback) const {
    const auto it = m_j.find(key);
    if (it == m_j.end() || it->is_null()) {
      return fallback;
    }
    FATHOM_CHECK(it->is_string(), ConfigError, m_name, ": '", key, "' must be a string, got ", quotedJson(*it));
    return it->get<std::string>();
  }

private:
  std::int64_t number(const char* key, const json& value) const {
    // An unsigned number above 2^63 - 1 must not wrap around to a negative one (nor a huge one to a small one).
    const std::optional<std::int64_t> v = !value.is_number_integer() ? std::nullopt
                                          : value.is_number_unsigned()
                                              ? narrowed<std::int64_t>(value.get<std::uint64_t>())
                                              : narrowed<std::int64_t>(value.get<std::int64_t>());
    FATHOM_CHECK(v && *v >= 0, ConfigError, m_name, ": '", key, "' must be an integer from 0 to ",
                 std::numeric_limits<std::int64_t>::max(), ", got ", quotedJson(value));
    return *v;
  }
  const json& m_j;
  const std::string& m_name;
};

/// The family's tie_word_embeddings when the key is absent: PretrainedConfig's True, except where the family's
/// configuration class says False.
bool tieDefault(const std::string& type) {
  return !(type == "llama" || type == "mistral" || type == "mixtral" || type == "qwen2" || type == "mt5");
}

TransformerDims llamaFamily(const Reader& r, const std::string& type, bool qkvBias) {
  // MistralConfig and MixtralConfig default to 8 key/value heads, MixtralConfig to 8 experts with 2 per token;
  // LlamaConfig and Qwen2Config to as many key/value heads as heads.
  const bool mistralLike = type == "mistral" || type == "mixtral";
  TransformerDims d;
  d.arch = Arch::Llama;
  d.layers = r.required("num_hidden_layers");
  d.hidden = r.required("hidden_size");
  d.heads = r.required("num_attention_heads");
  d.kvHeads = r.optional("num_key_value_heads", mistralLike ? 8 : d.heads);
  d.headDim = r.optional("head_dim", 0);
  d.ffnHidden = r.required("intermediate_size");
  d.vocab = r.required("vocab_size");
  d.maxPositions = r.optional("max_position_embeddings", 2048);
  d.tiedEmbeddings = r.flag("tie_word_embeddings", false);
  d.attentionBias = r.flag("attention_bias", qkvBias);
  d.numExperts = r.optional("num_local_experts", type == "mixtral" ? 8 : 0);
  d.expertsPerToken = r.optional("num_experts_per_tok", d.numExperts > 1 ? 2 : 0);
  return d;
}

/// The planner's dimensions for `type`, or std::nullopt for a model_type it does not read.
std::optional<TransformerDims> dimsFor(const std::string& type, const Reader& r, const std::string& where) {
  TransformerDims d;
  if (type == "gpt2") {
    d.arch = Arch::Gpt;
    d.layers = r.required("n_layer");
    d.hidden = r.required("n_embd");
    d.heads = r.required("n_head");
    d.ffnHidden = r.optional("n_inner", 0);
    d.vocab = r.required("vocab_size");
    d.maxPositions = r.optional("n_positions", 1024);
    d.tiedEmbeddings = r.flag("tie_word_embeddings", true);
  } else if (type == "llama" || type == "mistral" || type == "mixtral") {
    d = llamaFamily(r, type, false);
  } else if (type == "qwen2") {
    d = llamaFamily(r, type, true);  // Qwen2 always has q/k/v biases
  } else if (type == "bert" || type == "roberta") {
    d.arch = Arch::Bert;
    d.layers = r.required("num_hidden_layers");
    d.hidden = r.required("hidden_size");
    d.heads = r.required("num_attention_heads");
    d.ffnHidden = r.required("intermediate_size");
    d.vocab = r.required("vocab_size");
    d.maxPositions = r.optional("max_position_embeddings", 512);
    d.typeVocab = r.optional("type_vocab_size", 2);
  } else if (type == "t5" || type == "mt5") {
    d.arch = Arch::T5;
    d.layers = r.required("num_layers");
    d.decoderLayers = r.optional("num_decoder_layers", d.layers);
    d.hidden = r.required("d_model");
    d.heads = r.required("num_heads");
    d.headDim = r.required("d_kv");
    d.ffnHidden = r.required("d_ff");
    d.vocab = r.required("vocab_size");
    d.relativeBuckets = r.optional("relative_attention_num_buckets", 32);
    const std::string proj = r.text("feed_forward_proj", "relu");
    FATHOM_CHECK(proj == "relu" || proj == "gated-gelu" || proj == "gated-relu" || proj == "gelu", ConfigError, where,
                 ": unsupported feed_forward_proj '", terminalSafe(proj), "'");
    d.gatedMlp = proj.rfind("gated-", 0) == 0;
    d.tiedEmbeddings = r.flag("tie_word_embeddings", type == "t5");
  } else {
    return std::nullopt;
  }
  return d;
}

/// architectures[0], or "" when the key is absent, null or an empty list. ConfigError for anything but a list of
/// strings.
std::string firstArchitecture(const json& j, const std::string& where) {
  const auto it = j.find("architectures");
  if (it == j.end() || it->is_null()) {
    return {};
  }
  bool strings = it->is_array();
  for (const json& a : strings ? *it : json::array()) {
    strings = strings && a.is_string();
  }
  FATHOM_CHECK(strings, ConfigError, where, ": 'architectures' must be a list of class names, got ", quotedJson(*it));
  return it->empty() ? std::string() : it->front().get<std::string>();
}

}  // namespace

HfConfig readHfConfigText(std::string_view text, const std::string& name, const std::string& origin) {
  // Messages name the file (its path), the model keeps its display name; both terminal-safe.
  const std::string where = terminalSafe(origin.empty() ? name : origin);
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for a number a double cannot hold (1e400)
    throw ConfigError(detail::concat(where, ": not valid JSON: ", e.what()));
  }
  FATHOM_CHECK(j.is_object(), ConfigError, where, ": config.json must hold a JSON object");
  const Reader r(j, where);
  HfConfig c;
  c.origin = where;
  c.modelType = r.text("model_type", "");
  FATHOM_CHECK(!c.modelType.empty(), ConfigError, where, ": config.json has no 'model_type'");
  const std::string& type = c.modelType;
  c.architecture = firstArchitecture(j, where);
  c.torchDtype = r.text("torch_dtype", r.text("dtype", ""));
  c.tieWordEmbeddings = r.flag("tie_word_embeddings", tieDefault(type));
  if (type == "gpt2") {
    c.activation = r.text("activation_function", "gelu_new");
  } else if (type == "llama" || type == "mistral" || type == "mixtral" || type == "qwen2") {
    c.activation = r.text("hidden_act", "silu");
  }
  c.mlpBias = type == "llama" && r.flag("mlp_bias", false);

  const std::optional<TransformerDims> d = dimsFor(type, r, where);
  if (!d) {
    c.unsupported = detail::concat("unsupported model_type '", terminalSafe(type),
                                   "' (supported: gpt2, llama, mistral, mixtral, qwen2, bert, roberta, t5, mt5)");
    return c;
  }
  try {
    c.model = modelFromDims(*d, name);
  } catch (const ConfigError& e) {
    throw ConfigError(detail::concat(where, ": ", e.what()));
  }
  return c;
}

HfConfig readHfConfig(const std::filesystem::path& path) {
  std::ifstream in(path);
  FATHOM_CHECK(in.good(), ConfigError, "cannot read Hugging Face config '", terminalSafe(path.string()), "'");
  std::ostringstream text;
  text << in.rdbuf();
  std::string name = path.parent_path().filename().string();
  if (name.empty() || path.filename() != "config.json") {
    name = path.stem().string();
  }
  return readHfConfigText(text.str(), name, path.string());
}

ModelSpec modelFromHfConfigText(std::string_view text, const std::string& name, const std::string& origin) {
  HfConfig c = readHfConfigText(text, name, origin);
  FATHOM_CHECK(c.model.has_value(), ConfigError, c.origin, ": ", c.unsupported);
  return std::move(*c.model);
}

ModelSpec modelFromHfConfig(const std::filesystem::path& path) {
  HfConfig c = readHfConfig(path);
  FATHOM_CHECK(c.model.has_value(), ConfigError, c.origin, ": ", c.unsupported);
  return std::move(*c.model);
}

}  // namespace fathom::plan
