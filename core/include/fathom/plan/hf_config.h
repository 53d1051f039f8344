// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/plan/model_spec.h>

#include <filesystem>
#include <string>
#include <string_view>

namespace fathom::plan {

/// Builds a ModelSpec from a Hugging Face `config.json`. Understood `model_type`s: gpt2; llama, mistral, mixtral,
/// qwen2 (llama family, Mixtral-style MoE through num_local_experts / num_experts_per_tok); bert, roberta; t5,
/// mt5. Defaults follow the transformers configuration classes (e.g. GPT-2 ties embeddings, Llama does not).
/// Throws ConfigError naming the file and the missing or bad key.
ModelSpec modelFromHfConfig(const std::filesystem::path& path);

/// Same, from the JSON text; `name` labels the model in output, `origin` (the file's path; `name` when empty) starts
/// every error message.
ModelSpec modelFromHfConfigText(std::string_view json, const std::string& name, const std::string& origin = {});

}  // namespace fathom::plan
