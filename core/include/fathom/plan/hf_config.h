// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/plan/model_spec.h>

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace fathom::plan {

/// A Hugging Face `config.json`, read once: the planner's model of it and the keys beyond the dimensions that a
/// module tree needs (bigmodel/hf_module_tree.h). Key names and defaults are those of the transformers configuration
/// classes. The one reader of config.json: the planner, estimate-memory and the module trees all go through it.
struct HfConfig {
  std::string origin;        ///< the file's path (the name when read from text), terminal-safe; starts every message
  std::string modelType;     ///< model_type; never empty
  std::string architecture;  ///< architectures[0]; "" when the key is absent, null or an empty list
  std::string torchDtype;    ///< torch_dtype, else dtype (its name since transformers 4.56); "" when neither is set
  /// tie_word_embeddings; when absent the family's default: false for llama, mistral, mixtral, qwen2 and mt5, true
  /// for every other family (PretrainedConfig's default, which GPT2Config, BertConfig and T5Config keep).
  bool tieWordEmbeddings = true;
  /// The MLP's activation: gpt2's activation_function (default "gelu_new"), the llama family's hidden_act (default
  /// "silu"); "" for the other families.
  std::string activation;
  bool mlpBias = false;  ///< llama: mlp_bias (default false); false for every other family
  /// The planner's model; std::nullopt when the planner does not read this model_type (then `unsupported` says so).
  std::optional<ModelSpec> model;
  std::string unsupported;  ///< why there is no model: "unsupported model_type '...' (supported: ...)"; "" otherwise
};

/// Reads `path` (see HfConfig). ConfigError naming the file and the key for a file that cannot be read, JSON that
/// does not parse, a missing model_type, a mistyped key, and dimensions the planner refuses for a model_type it
/// reads. A model_type the planner does not read is no error here (HfConfig::model is empty).
HfConfig readHfConfig(const std::filesystem::path& path);

/// Same, from the JSON text; `name` labels the model in output, `origin` (the file's path; `name` when empty) starts
/// every error message.
HfConfig readHfConfigText(std::string_view json, const std::string& name, const std::string& origin = {});

/// Builds a ModelSpec from a Hugging Face `config.json`. Understood `model_type`s: gpt2; llama, mistral, mixtral,
/// qwen2 (llama family, Mixtral-style MoE through num_local_experts / num_experts_per_tok); bert, roberta; t5,
/// mt5. Defaults follow the transformers configuration classes (e.g. GPT-2 ties embeddings, Llama does not; Mistral
/// and Mixtral have 8 key/value heads, Mixtral 8 experts, 2 per token).
/// Throws ConfigError naming the file and the missing or bad key, or the unsupported model_type.
ModelSpec modelFromHfConfig(const std::filesystem::path& path);

/// Same, from the JSON text; `name` labels the model in output, `origin` (the file's path; `name` when empty) starts
/// every error message.
ModelSpec modelFromHfConfigText(std::string_view json, const std::string& name, const std::string& origin = {});

}  // namespace fathom::plan
