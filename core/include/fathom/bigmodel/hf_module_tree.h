// SPDX-License-Identifier: Apache-2.0
// A model's module tree from its Hugging Face config.json alone: the modules, classes, parameter and buffer names,
// shapes and dtypes that transformers builds for gpt2, llama, mistral and mixtral, so that a device map can be planned
// for a model that was never downloaded. The layouts are those of transformers 4.48 to 4.57 (one attention class per
// family; the rotary embedding once per model); docs/bigmodel.md, "Model sources".
#pragma once

#include <fathom/bigmodel/module_tree.h>
#include <fathom/plan/hf_config.h>

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace fathom::bigmodel {

/// What transformers says of a model family beyond its modules: the class attributes of its PreTrainedModel.
struct HfFamily {
  std::string_view modelType;        ///< model_type: "gpt2", "llama", "mistral", "mixtral"
  std::string_view basePrefix;       ///< base_model_prefix: the base model's name inside the head model
  std::string_view baseClass;        ///< the base model (GPT2Model, LlamaModel, ...)
  std::string_view headClass;        ///< the causal LM (GPT2LMHeadModel, LlamaForCausalLM, ...)
  std::string_view noSplit;          ///< _no_split_modules: the decoder block's class
  std::string_view inputEmbedding;   ///< the input embedding's weight inside the base model ("wte.weight")
  std::string_view outputEmbedding;  ///< the head's weight inside the head model, tied to the input embedding
};

/// The family of `modelType`, or nullptr for a model_type whose modules Fathom does not build.
const HfFamily* hfFamily(std::string_view modelType);

/// The model types hfFamily knows, comma-separated, for messages.
std::string hfFamilyNames();

/// The module tree transformers builds for `config`: the class architectures[0] names (the family's causal LM when
/// absent; its base model when that is named), every parameter in torch_dtype (float32 when absent), buffers in
/// their own dtypes (the rotary inv_freq float32, GPT-2's causal mask bool), tied parameters sharing one tensor id
/// as tie_word_embeddings says. ConfigError naming the file for a model_type or architecture it does not build, a
/// torch_dtype that is not a floating-point dtype, an activation transformers does not name.
ModuleTree moduleTreeFromHfConfig(const plan::HfConfig& config);

/// Reads `path` (plan::readHfConfig) and builds its tree, as above.
ModuleTree moduleTreeFromHfConfig(const std::filesystem::path& path);

}  // namespace fathom::bigmodel
