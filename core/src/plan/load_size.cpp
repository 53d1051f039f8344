// SPDX-License-Identifier: Apache-2.0
// The modules `AutoModel.from_config` builds for the families hf_config.cpp reads, as accelerate estimate-memory
// sizes them (accelerate/utils/modeling.py: compute_module_sizes, get_max_layer_size, dtype_byte_size).
#include <fathom/plan/load_size.h>

#include <fathom/common/error.h>

#include <initializer_list>

namespace fathom::plan {
namespace {

constexpr double kFloat32 = 4.0;
constexpr double kInt64 = 8.0;
constexpr double kBool = 1.0 / 8.0;  // accelerate's dtype_byte_size(torch.bool)

/// A candidate for the largest layer: its parameters and its buffers' bytes.
struct Layer {
  std::int64_t parameters = 0;
  double bufferBytes = 0;
  double bytes() const { return kFloat32 * static_cast<double>(parameters) + bufferBytes; }
};

void keepLargest(LoadSize& size, std::initializer_list<Layer> layers) {
  for (const Layer& layer : layers) {
    if (layer.bytes() > size.largestLayerBytes) {
      size.largestLayerBytes = layer.bytes();
      size.largestLayerParameters = layer.parameters;
    }
  }
}

}  // namespace

LoadSize hfLoadSize(const ModelSpec& model) {
  FATHOM_CHECK(model.hasDims(), ConfigError, model.name,
               ": a Hugging Face load size needs the model's dimensions (a config.json)");
  const TransformerDims& d = model.dims;
  const std::int64_t h = d.hidden;
  const std::int64_t word = d.vocab * h;
  LoadSize size;
  // AutoModel builds the base model: an untied LM head (headParams outside BERT, whose head is its pooler) is not
  // part of it.
  size.parameters = model.totalParams - (model.arch == Arch::Bert ? 0 : model.headParams);
  switch (model.arch) {
  case Arch::Bert: {
    // BertEmbeddings (no split): the three embeddings, LayerNorm, position_ids and token_type_ids (int64, 1 x 512).
    const Layer embeddings{model.embeddingParams, 2.0 * kInt64 * static_cast<double>(d.maxPositions)};
    size.bufferBytes = embeddings.bufferBytes;
    const Layer pooler{d.pooler ? h * h + h : 0, 0.0};  // BertPooler.dense, a leaf
    keepLargest(size, {embeddings, Layer{model.blockParams, 0.0}, pooler});
    break;
  }
  case Arch::Gpt: {
    // GPT2Attention registers its causal mask `bias` (bool, 1 x 1 x n_positions x n_positions) and `masked_bias`.
    const double perBlock = kBool * static_cast<double>(d.maxPositions * d.maxPositions) + kFloat32;
    size.bufferBytes = static_cast<double>(d.layers) * perBlock;
    keepLargest(size, {Layer{word, 0.0}, Layer{d.maxPositions * h, 0.0}, Layer{model.blockParams, perBlock},
                       Layer{model.otherParams, 0.0}});
    break;
  }
  case Arch::Llama: {
    // One rotary embedding per model (transformers >= 4.45): inv_freq, float32, head_dim / 2 (a leaf module).
    const Layer rotary{0, kFloat32 * static_cast<double>(d.headDim / 2)};
    size.bufferBytes = rotary.bufferBytes;
    keepLargest(size, {Layer{word, 0.0}, Layer{model.blockParams, 0.0}, Layer{model.otherParams, 0.0}, rotary});
    break;
  }
  case Arch::T5: {
    // T5Model: `shared` (the stacks' embed_tokens are the same tensor, counted once, there), then the blocks; the
    // first block of each stack holds the relative-attention bias table (buckets x heads).
    const std::int64_t table = d.relativeBuckets * d.heads;
    keepLargest(
        size, {Layer{word, 0.0}, Layer{model.blockParams + table, 0.0}, Layer{model.decoderBlockParams + table, 0.0}});
    break;
  }
  case Arch::Params: break;
  }
  return size;
}

LoadSize loadSize(const ModelSpec& model) {
  LoadSize size;
  size.parameters = model.totalParams;
  size.bufferBytes = kFloat32 * static_cast<double>(model.bufferElements);
  size.largestLayerParameters = model.largestUnitParams;
  size.largestLayerBytes = kFloat32 * static_cast<double>(model.largestUnitParams);
  return size;
}

}  // namespace fathom::plan
