// SPDX-License-Identifier: Apache-2.0
// A model's module tree from its safetensors checkpoint: its structure without its weights, from the headers alone.
// With a config.json beside the checkpoint whose model Fathom builds (hf_module_tree.h) the tree is that model, as
// transformers would load the checkpoint into it; otherwise every dotted prefix of a tensor name is a module.
// docs/bigmodel.md, "Model sources".
#pragma once

#include <fathom/bigmodel/checkpoint_tensors.h>
#include <fathom/bigmodel/module_tree.h>
#include <fathom/plan/hf_config.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace fathom::bigmodel {

/// A tensor name of more dotted parts than this is refused (real ones have about ten): it bounds the memory the
/// module names of untrusted names take.
inline constexpr std::size_t kMaxNameParts = 64;

/// A checkpoint's model, and what matching it to its config found.
struct CheckpointModel {
  ModuleTree tree;
  std::filesystem::path file;            ///< what readCheckpointModel read: the .safetensors file or the index
  std::optional<plan::HfConfig> config;  ///< the config.json beside it, when readCheckpointModel found one
  /// Checkpoint tensors the config's model has no place for, as transformers would load them (it ignores them with
  /// a warning): left out of the tree. Empty without a config.
  std::vector<std::string> unusedTensors;
  /// Parameters of the config's model the checkpoint does not hold and no tied tensor provides (transformers
  /// initializes them, with a warning): in the tree at torch_dtype. Empty without a config.
  std::vector<std::string> missingTensors;
};

/// The model of `tensors`. With `config` (nullptr: none) whose model moduleTreeFromHfConfig builds (gpt2, llama,
/// mistral, mixtral; architectures[0] their causal LM or base model): that model's tree, each tensor the checkpoint
/// holds in the checkpoint's dtype. Names are matched as transformers matches them: when the model expects its
/// base_model_prefix ("transformer.", "model.") and no name has it, the model's names lose it (GPT-2's own checkpoints
/// are saved without it; lm_head keeps its name); when the model is the base model and names have it, the model's
/// names get it (lm_head.weight is then unused). A tied
/// tensor the checkpoint stores once (lm_head.weight under tie_word_embeddings) is the embedding's; the model's
/// non-persistent buffers (the rotary inv_freq, GPT-2's causal mask) are added, as the model has them; a stored copy
/// of one is ignored, as transformers ignores it.
/// Otherwise: every dotted prefix of a name is a module, named by the config's family where it is a module of the
/// family's base model (model.layers.0 is a LlamaDecoderLayer), else "ModuleList" when every child is a number and
/// "Module" when not; the root is architectures[0], or "Model" without a config; children in order of first
/// appearance, numbered ones in numeric order; every tensor a parameter, none tied.
/// ConfigError naming the tensor (and the config's file) when a name has an empty part or more than kMaxNameParts
/// parts, when a name is both a tensor and a module, when a tensor's shape is not the one the config's model has
/// for it, and when no tensor of the checkpoint is one of the config's model.
CheckpointModel checkpointModel(const std::vector<CheckpointTensor>& tensors, const plan::HfConfig* config);

/// Reads the checkpoint at `path` (readCheckpointTensors: a file, an index or a folder) and the config.json in its
/// folder when there is one (plan::readHfConfig), and makes its model, as above.
CheckpointModel readCheckpointModel(const std::filesystem::path& path);

/// readCheckpointModel(path).tree.
ModuleTree moduleTreeFromSafetensors(const std::filesystem::path& path);

}  // namespace fathom::bigmodel
