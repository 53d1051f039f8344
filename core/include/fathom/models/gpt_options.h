// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "fathom/plan/model_spec.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fathom::models {

/// Shape of the built-in GPT-2 style model (nanoGPT's GPTConfig). Defaults are the `gpt-tiny` preset.
struct GptOptions {
  std::int64_t nLayer = 2;       ///< transformer blocks; must be >= 1
  std::int64_t nHead = 2;        ///< attention heads; must be >= 1 and divide nEmbd
  std::int64_t nEmbd = 64;       ///< model width; must be >= 1
  std::int64_t blockSize = 64;   ///< longest sequence (rows of the learned position table); must be >= 1
  std::int64_t vocabSize = 128;  ///< token ids are 0..vocabSize-1; must be >= 1
  double dropout = 0.0;          ///< embedding, attention and residual dropout; must be in [0, 1)
  bool bias = true;              ///< biases in Linear and LayerNorm (GPT-2: true)
  bool operator==(const GptOptions&) const = default;
};

/// Throws fathom::ConfigError naming the offending value.
void validate(const GptOptions& options);

/// Names accepted by gptPreset(), sorted: "gpt-small", "gpt-tiny".
std::vector<std::string> gptPresetNames();

/// The named preset:
/// - `gpt-tiny`:  n_layer 2, n_head 2, n_embd 64,  block_size 64,  vocab 128 (112,384 parameters)
/// - `gpt-small`: n_layer 6, n_head 6, n_embd 384, block_size 256, vocab 128 (10,795,008 parameters)
/// Throws fathom::ConfigError for any other name, listing the known ones.
GptOptions gptPreset(std::string_view name);

/// The planner's dimensions of Gpt(options): arch Gpt, layers, hidden, heads, vocab, maxPositions = blockSize,
/// tied embeddings. plan::modelFromDims(toPlanDims(o)).totalParams equals the model's parameter count when
/// o.bias is true; the planner always counts GPT-2's biases, so for bias == false use builtinModelSpec()
/// (model_factory.h), which subtracts them.
plan::TransformerDims toPlanDims(const GptOptions& options);

/// Exact parameter count of Gpt(options) (shared wte/lm_head weight counted once), biases included or not.
std::int64_t gptParameterCount(const GptOptions& options);

}  // namespace fathom::models
