// SPDX-License-Identifier: Apache-2.0
#include "fathom/models/model_introspection.h"

#include "fathom/common/error.h"
#include "fathom/models/gpt.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/core/Generator.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/linear.h>

#include <algorithm>
#include <mutex>
#include <unordered_set>

namespace fathom::models {
namespace {

using Identity = const void*;

Identity identity(const at::Tensor& t) {
  return t.unsafeGetTensorImpl();
}

std::int64_t elements(const std::vector<at::Tensor>& tensors, std::unordered_set<Identity>* seen = nullptr) {
  std::int64_t n = 0;
  for (const at::Tensor& t : tensors) {
    if (t.defined() && (seen == nullptr || seen->insert(identity(t)).second)) {
      n += t.numel();
    }
  }
  return n;
}

}  // namespace

ModuleCensus censusOf(const Model& model) {
  ModuleCensus c;
  std::unordered_set<Identity> params;
  for (const at::Tensor& p : model.parameters(/*recurse=*/true)) {
    if (params.insert(identity(p)).second) {
      c.totalParams += p.numel();
      c.parameterTensors.push_back(p.numel());
    }
  }
  c.bufferElements = elements(model.buffers(/*recurse=*/true));
  for (const auto& module : model.modules(/*include_self=*/true)) {
    c.largestModuleParams = std::max(c.largestModuleParams, elements(module->parameters(/*recurse=*/false)));
  }

  // Blocks: every parameter inside one is the block's; all blocks must be the same size.
  std::unordered_set<Identity> inBlocks;
  const auto blocks = model.repeatedBlocks();
  c.blocks = static_cast<std::int64_t>(blocks.size());
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const std::int64_t n = elements(blocks[i]->parameters(true), &inBlocks);
    const std::int64_t b = elements(blocks[i]->buffers(true));
    FATHOM_CHECK(i == 0 || (n == c.blockParams && b == c.blockBuffers), ConfigError, "block ", i, " of ", model.name(),
                 " has ", n, " parameters, block 0 has ", c.blockParams, ": the planner needs identical blocks");
    c.blockParams = n;
    c.blockBuffers = b;
    c.blockElements.push_back(n);
  }

  // Outside the blocks: embeddings, output layers (Linear), the rest.
  std::unordered_set<Identity> counted = inBlocks;
  for (const auto& module : model.modules(/*include_self=*/false)) {
    const bool embedding = module->as<torch::nn::EmbeddingImpl>() != nullptr;
    const bool linear = module->as<torch::nn::LinearImpl>() != nullptr;
    if (!embedding && !linear) {
      continue;
    }
    const std::int64_t n = elements(module->parameters(/*recurse=*/false), &counted);
    if (embedding) {
      c.embeddingParams += n;
      c.largestEmbeddingParams = std::max(c.largestEmbeddingParams, n);
    } else {
      c.headParams += n;
    }
  }
  c.otherParams = c.totalParams - c.blocks * c.blockParams - c.embeddingParams - c.headParams;
  FATHOM_ASSERT(c.otherParams >= 0, "census of ", model.name(), " counted a parameter twice");
  return c;
}

plan::ModelSpec introspectModel(const ModelRequest& request) {
  // Building draws the initial weights from the default generator: leave its state as it was.
  at::Generator generator = at::detail::getDefaultCPUGenerator();
  at::Tensor state;
  {
    std::lock_guard<std::mutex> lock(generator.mutex());
    state = generator.get_state();
  }
  const auto restore = [&] {
    std::lock_guard<std::mutex> lock(generator.mutex());
    generator.set_state(state);
  };
  std::shared_ptr<Model> model;
  try {
    model = makeModel(request);
  } catch (...) {
    restore();
    throw;
  }
  restore();
  const ModuleCensus c = censusOf(*model);
  model.reset();  // frees the weights before returning

  plan::ModelSpec spec;
  if (request.isGpt()) {
    // Dimensions and per-token matmul weights from the options (what activations and FLOPs need).
    const GptOptions o = resolveGptOptions(request);
    spec = builtinModelSpec(request);
    spec.dims.dropout = o.dropout > 0;
  } else {
    spec = plan::modelFromParams(c.totalParams, request.name);
  }
  spec.name = request.name;
  spec.totalParams = c.totalParams;
  spec.embeddingParams = c.embeddingParams;
  spec.headParams = c.headParams;
  spec.blockParams = c.blockParams;
  spec.decoderBlockParams = 0;
  spec.otherParams = c.otherParams;
  spec.largestUnitParams = std::max(c.blockParams, c.largestEmbeddingParams);
  spec.largestModuleParams = c.largestModuleParams;
  spec.bufferElements = c.bufferElements;
  spec.parameterTensors = c.parameterTensors;
  spec.blockElements = c.blockElements;
  return spec;
}

}  // namespace fathom::models
