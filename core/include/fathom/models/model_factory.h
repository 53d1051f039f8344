// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "fathom/data/dataset.h"
#include "fathom/models/builtin_model.h"
#include "fathom/models/char_text_dataset.h"
#include "fathom/models/gpt_options.h"
#include "fathom/models/mlp.h"
#include "fathom/models/model.h"
#include "fathom/models/regression_dataset.h"
#include "fathom/plan/model_spec.h"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fathom::models {

/// The GptOptions a gpt request resolves to (preset, then the dimensions given), validated. Throws
/// fathom::ConfigError for a non-gpt name or a bad value.
GptOptions resolveGptOptions(const ModelRequest& request);
/// The MlpOptions an mlp request resolves to, validated. Throws fathom::ConfigError for a gpt name or a bad value.
MlpOptions resolveMlpOptions(const ModelRequest& request);

/// Builds the model (weights from LibTorch's default generator: call torch::manual_seed first for identical
/// weights in every process). Throws fathom::ConfigError for an unknown name, listing the known ones, or a bad
/// value.
std::shared_ptr<Model> makeModel(const ModelRequest& request);

/// The planner's view of the model makeModel(request) builds: for gpt, plan::modelFromDims(toPlanDims(...)) (with
/// biases subtracted when bias is off); for mlp, plan::modelFromParams(exact count, "mlp"). totalParams equals the
/// built model's parameter count.
plan::ModelSpec builtinModelSpec(const ModelRequest& request);

/// What `fathom train --dataset NAME ...` asks for. The model decides the coupled sizes (see makeDataset).
struct DatasetRequest {
  std::string name = "regression";  ///< "regression" or "text"
  std::int64_t numSamples = 4096;   ///< regression rows
  std::uint64_t seed = 0;           ///< regression generator seed
  double noise = 0.1;               ///< regression label noise
  std::filesystem::path textPath;   ///< text file; empty = defaultCorpusPath()
};

/// "regression", "text".
std::vector<std::string> builtinDatasetNames();

/// Builds the dataset for `model`:
/// - "regression" needs the mlp; its dim is the mlp's hidden width.
/// - "text" needs a gpt; its block size is the gpt's block_size, and its vocabulary (distinct bytes of the file)
///   must fit the gpt's vocab_size (fathom::ConfigError naming both otherwise).
/// Throws fathom::ConfigError for an unknown name (listing the known ones) or a model/dataset mismatch, and
/// fathom::StorageError when the text file cannot be read.
std::shared_ptr<data::Dataset> makeDataset(const DatasetRequest& dataset, const ModelRequest& model);

}  // namespace fathom::models
