// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "fathom/models/model.h"
#include "fathom/models/model_factory.h"
#include "fathom/plan/model_spec.h"

#include <cstdint>
#include <string>
#include <vector>

namespace fathom::models {

/// Parameter and buffer counts read from a live module (shared tensors counted once, by identity).
struct ModuleCensus {
  std::int64_t totalParams = 0;                ///< every parameter element
  std::int64_t bufferElements = 0;             ///< every buffer element
  std::int64_t blocks = 0;                     ///< repeatedBlocks().size()
  std::int64_t blockParams = 0;                ///< one repeated block (all blocks are checked to be equal)
  std::int64_t blockBuffers = 0;               ///< buffer elements of one repeated block
  std::int64_t embeddingParams = 0;            ///< torch::nn::Embedding modules outside the blocks
  std::int64_t largestEmbeddingParams = 0;     ///< the largest of them (the word embedding)
  std::int64_t headParams = 0;                 ///< torch::nn::Linear modules outside the blocks (untied output layers)
  std::int64_t otherParams = 0;                ///< the rest outside the blocks (final norms)
  std::int64_t largestModuleParams = 0;        ///< largest parameters(recurse=false) of any module
  std::vector<std::int64_t> parameterTensors;  ///< element counts in registration order
  std::vector<std::int64_t> blockElements;     ///< parameter elements of each repeated block, in forward order
};

/// Counts `model`'s parameters and buffers per block and in total. Throws fathom::ConfigError when the
/// repeated blocks differ in size (the planner assumes identical blocks).
ModuleCensus censusOf(const Model& model);

/// The planner's view of a built-in model, introspected from the real LibTorch module that
/// makeModel(request) builds: every count of plan::ModelSpec (total, per block, embeddings, head, other, largest
/// unit, largest module, buffers, each parameter tensor's size in registration order) comes from the module; for
/// gpt models the dimensions (toPlanDims, dropout) and matmulParamsPerToken come from the options, so activations
/// and FLOPs can be predicted. The mlp is arch Params (no transformer dimensions).
///
/// Memory: LibTorch 1.13 has no way to build a C++ module without storage (no meta default device, no
/// skip-init), so the module is built on the CPU with its initialised weights (4 bytes per parameter: 43 MB for
/// gpt-small), counted and freed before this returns. The default CPU generator's state is saved and restored,
/// so a later torch::manual_seed-free makeModel draws the same weights as without this call.
/// Throws fathom::ConfigError as makeModel does.
plan::ModelSpec introspectModel(const ModelRequest& request);

}  // namespace fathom::models
