// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/plan/model_spec.h>

#include <cstdint>

namespace fathom::plan {

/// What `accelerate estimate-memory` counts for a model (its calculate_maximum_sizes over the module built on the
/// meta device): every parameter once, in float32, and every buffer at its own dtype, and the largest "layer".
struct LoadSize {
  std::int64_t parameters = 0;              ///< parameter elements, shared ones once (4 bytes each)
  double bufferBytes = 0;                   ///< buffers at their dtypes, as accelerate counts them (a bool: 1/8 byte)
  std::int64_t largestLayerParameters = 0;  ///< parameter elements of the largest layer
  double largestLayerBytes = 0;             ///< the largest layer's parameters · 4 + its buffers

  /// parameters · 4 + bufferBytes: accelerate's "Total Size" in float32.
  double totalBytes() const { return 4.0 * static_cast<double>(parameters) + bufferBytes; }
};

/// For a model read from a Hugging Face config.json (modelFromHfConfig): the module `AutoModel.from_config` builds,
/// that is the base model without an untied LM head (BertModel keeps its pooler), with the buffers transformers
/// registers: BERT's and RoBERTa's int64 position_ids and token_type_ids (max_position_embeddings each), GPT-2's
/// causal mask per block (bool, n_positions², which accelerate counts at 1/8 byte) and masked_bias (a float32
/// scalar), the Llama family's rotary inv_freq (float32, head_dim / 2, once per model since transformers 4.45;
/// older releases kept cos/sin caches per layer); T5 has none. The largest
/// layer is accelerate's get_max_layer_size: the top-level children, descended until a module has no children or
/// its class is one of the family's _no_split_modules (BertEmbeddings and BertLayer, GPT2Block,
/// LlamaDecoderLayer and its Mistral/Mixtral/Qwen2 siblings, T5Block).
LoadSize hfLoadSize(const ModelSpec& model);

/// For any other model (the introspected built-in models): its parameters, its buffers as float32
/// (ModelSpec::bufferElements) and its largest unit (ModelSpec::largestUnitParams).
LoadSize loadSize(const ModelSpec& model);

}  // namespace fathom::plan
