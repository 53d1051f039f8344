// SPDX-License-Identifier: Apache-2.0
#include "fathom/models/gpt_options.h"

#include "fathom/common/error.h"

#include <cmath>

namespace fathom::models {

void validate(const GptOptions& o) {
  FATHOM_CHECK(o.nLayer >= 1, ConfigError, "gpt n_layer must be >= 1, got ", o.nLayer);
  FATHOM_CHECK(o.nHead >= 1, ConfigError, "gpt n_head must be >= 1, got ", o.nHead);
  FATHOM_CHECK(o.nEmbd >= 1, ConfigError, "gpt n_embd must be >= 1, got ", o.nEmbd);
  FATHOM_CHECK(o.nEmbd % o.nHead == 0, ConfigError, "gpt n_embd (", o.nEmbd, ") must be a multiple of n_head (",
               o.nHead, ")");
  FATHOM_CHECK(o.blockSize >= 1, ConfigError, "gpt block_size must be >= 1, got ", o.blockSize);
  FATHOM_CHECK(o.vocabSize >= 1, ConfigError, "gpt vocab_size must be >= 1, got ", o.vocabSize);
  FATHOM_CHECK(std::isfinite(o.dropout) && o.dropout >= 0.0 && o.dropout < 1.0, ConfigError,
               "gpt dropout must be in [0, 1), got ", o.dropout);
}

std::vector<std::string> gptPresetNames() {
  return {"gpt-small", "gpt-tiny"};
}

GptOptions gptPreset(std::string_view name) {
  if (name == "gpt-tiny") {
    return GptOptions{.nLayer = 2, .nHead = 2, .nEmbd = 64, .blockSize = 64, .vocabSize = 128};
  }
  if (name == "gpt-small") {
    return GptOptions{.nLayer = 6, .nHead = 6, .nEmbd = 384, .blockSize = 256, .vocabSize = 128};
  }
  std::string known;
  for (const auto& preset : gptPresetNames()) {
    known += known.empty() ? preset : ", " + preset;
  }
  throw ConfigError(detail::concat("unknown gpt preset '", name, "' (known: ", known, ")"));
}

plan::TransformerDims toPlanDims(const GptOptions& o) {
  validate(o);
  plan::TransformerDims d;
  d.arch = plan::Arch::Gpt;
  d.layers = o.nLayer;
  d.hidden = o.nEmbd;
  d.heads = o.nHead;
  d.vocab = o.vocabSize;
  d.maxPositions = o.blockSize;  // wpe has blockSize rows (the planner's default would be 2048)
  d.ffnHidden = 4 * o.nEmbd;
  d.tiedEmbeddings = true;
  return d;
}

std::int64_t gptParameterCount(const GptOptions& o) {
  validate(o);
  const std::int64_t n = o.nEmbd;
  const std::int64_t b = o.bias ? 1 : 0;
  // ln_1, c_attn, c_proj, ln_2, c_fc, mlp.c_proj
  const std::int64_t block = (n + b * n) + (3 * n * n + b * 3 * n) + (n * n + b * n) + (n + b * n) +
                             (4 * n * n + b * 4 * n) + (4 * n * n + b * n);
  const std::int64_t embeddings = o.vocabSize * n + o.blockSize * n;  // wte (shared with lm_head) + wpe
  return embeddings + o.nLayer * block + (n + b * n);                 // + ln_f
}

}  // namespace fathom::models
