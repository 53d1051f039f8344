// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fathom::plan {

/// Transformer family; decides how parameters, activations and FLOPs are counted from the dimensions.
enum class Arch {
  Params,  ///< only a parameter count is known (no activations, FLOPs from 6·P·tokens)
  Gpt,     ///< GPT-2 style: learned positions, LayerNorm with bias, GeLU MLP (4h), biases, dropout
  Llama,   ///< Llama/Mistral/Mixtral style: RoPE, RMSNorm, SwiGLU MLP, no biases, GQA, optional MoE
  Bert,    ///< BERT encoder: word+position+type embeddings, post-LN, GeLU MLP, pooler, dropout
  T5,      ///< T5 encoder-decoder: relative attention bias, RMS-style LayerNorm, ReLU or gated-GeLU MLP
};

/// Parses "gpt", "llama", "bert", "t5", "params" (also "gpt2", "mistral", "mixtral"); throws ConfigError.
Arch parseArch(std::string_view text);
/// The canonical name ("gpt", "llama", ...).
std::string_view archName(Arch arch);

/// The largest transformer dimensions the planner accepts (validated with the input's name before any arithmetic;
/// the parameter counts are computed with overflow checks as well, so no combination wraps around).
inline constexpr std::int64_t kMaxLayers = std::int64_t{1} << 24;   ///< layers, decoder_layers
inline constexpr std::int64_t kMaxHeads = std::int64_t{1} << 24;    ///< heads, kv_heads
inline constexpr std::int64_t kMaxExperts = std::int64_t{1} << 16;  ///< num_experts, experts_per_token
/// hidden, ffn_hidden, head_dim, vocab, max_positions, seq: int32's range, as Hugging Face configurations hold them.
inline constexpr std::int64_t kMaxWidth = std::int64_t{2147483647};

/// Transformer dimensions as a user types them (`fathom plan --arch llama --layers 32 ...`). Zero means
/// "derive": kvHeads = heads, ffnHidden = 4·hidden (gpt/bert/t5) or the Llama rule, headDim = hidden/heads.
struct TransformerDims {
  Arch arch = Arch::Gpt;              ///< family
  std::int64_t layers = 0;            ///< transformer blocks (T5: encoder blocks)
  std::int64_t decoderLayers = 0;     ///< T5 only: decoder blocks (0 = same as layers)
  std::int64_t hidden = 0;            ///< model width h
  std::int64_t heads = 0;             ///< attention heads a
  std::int64_t kvHeads = 0;           ///< key/value heads (GQA/MQA); 0 = heads
  std::int64_t headDim = 0;           ///< per-head width; 0 = hidden / heads
  std::int64_t ffnHidden = 0;         ///< MLP inner width; 0 = derived
  std::int64_t vocab = 0;             ///< vocabulary size v
  std::int64_t maxPositions = 0;      ///< learned position table rows (gpt/bert); 0 = 2048 for gpt, 512 for bert
  std::int64_t typeVocab = 2;         ///< BERT token-type rows
  std::int64_t relativeBuckets = 32;  ///< T5 relative-attention buckets
  bool tiedEmbeddings = true;         ///< output projection shares the input embedding
  bool gatedMlp = false;              ///< T5 v1.1 gated-GeLU (Llama is always gated)
  bool attentionBias = false;         ///< Llama family: q/k/v biases (Qwen2-style)
  std::int64_t numExperts = 0;        ///< MoE experts per layer (0 or 1 = dense)
  std::int64_t expertsPerToken = 0;   ///< MoE top-k routing
  bool pooler = true;                 ///< BERT: include the pooler dense layer (BertModel has one)
  bool dropout = true;  ///< dropout active in training (p > 0): its masks are stored (gpt/bert/t5; llama never)
};

/// What the planner knows about a model: its dimensions when known, and the parameter counts derived from them.
/// Invariant: totalParams > 0; when arch != Params, the dimensions are validated and the counts are exact for
/// the Hugging Face module of that family (shared parameters counted once).
struct ModelSpec {
  std::string name;          ///< display name ("gpt2", "7.5B params", a config path)
  Arch arch = Arch::Params;  ///< family, or Params when only a count is known
  TransformerDims dims;      ///< resolved dimensions (derived fields filled in); meaningless for Params

  std::int64_t totalParams = 0;         ///< all trainable parameters, shared ones once
  std::int64_t embeddingParams = 0;     ///< input-side embeddings (tokens, positions, types), final norm excluded
  std::int64_t headParams = 0;          ///< untied output projection (0 when tied) and pooler
  std::int64_t blockParams = 0;         ///< one transformer block (T5: one encoder block)
  std::int64_t decoderBlockParams = 0;  ///< T5: one decoder block; 0 otherwise
  std::int64_t otherParams = 0;         ///< final norms, relative-attention tables: not in a block or embedding
  std::int64_t largestUnitParams =
      0;  ///< largest FSDP unit / "largest layer or residual group": max(block, word embedding)
  std::int64_t largestModuleParams =
      0;  ///< largest single module with recurse=False (DeepSpeed's largest_layer_params)
  std::int64_t matmulParamsPerToken =
      0;  ///< weights each token multiplies through (active experts only, LM head included)
  /// Non-trainable buffer elements (introspected built-in models; 0 when unknown).
  std::int64_t bufferElements = 0;
  /// Element count of every parameter tensor in registration order, shared ones once: known for introspected
  /// built-in models (core/models/model_introspection.h), empty otherwise. With it, DDP's buckets are predicted
  /// exactly (reverse registration order, 1 MiB first bucket, then bucket_cap_mb); without it, as equal slices.
  std::vector<std::int64_t> parameterTensors;
  /// Parameter elements of each repeated block (the FSDP / ZeRO-3 unit candidates) in forward order: known for
  /// introspected built-in models (models::Model::repeatedBlocks()), empty otherwise. With parameterTensors it
  /// makes the sharded layouts exact (docs/planner.md, "Exact layout for built-in models").
  std::vector<std::int64_t> blockElements;

  /// True when dimensions are known (activations and exact FLOPs can be computed).
  bool hasDims() const { return arch != Arch::Params; }
  /// Total blocks (T5: encoder + decoder).
  std::int64_t totalLayers() const { return dims.layers + dims.decoderLayers; }
};

/// A model known only by its parameter count (largest unit unknown: taken as 0, so sharded working sets are
/// under-estimated and the explanation says so). Throws ConfigError unless params > 0.
ModelSpec modelFromParams(std::int64_t params, std::string name = {});

/// A model from transformer dimensions: validates them (ConfigError naming the bad value), derives defaults and
/// counts parameters exactly as the Hugging Face implementation of that family allocates them.
ModelSpec modelFromDims(const TransformerDims& dims, std::string name = {});

}  // namespace fathom::plan
