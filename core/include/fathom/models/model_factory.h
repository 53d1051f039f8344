// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "fathom/data/dataset.h"
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

/// GPT flags given on the command line; each set field overrides the preset's value.
struct GptOverrides {
  std::optional<std::int64_t> nLayer;     ///< --n_layer
  std::optional<std::int64_t> nHead;      ///< --n_head
  std::optional<std::int64_t> nEmbd;      ///< --n_embd
  std::optional<std::int64_t> blockSize;  ///< --block_size
  std::optional<std::int64_t> vocabSize;  ///< --vocab_size
  std::optional<double> dropout;          ///< --dropout
  std::optional<bool> bias;               ///< false: no Linear/LayerNorm biases (nanoGPT bias=False)
};

/// What `fathom train --model NAME ...` asks for.
///   --model mlp       [--hidden H] [--layers L]            → Mlp(mlp)
///   --model gpt       [--n_layer ...]                      → Gpt(gpt-tiny overridden by `gpt`)
///   --model gpt-tiny | gpt-small  [--n_layer ...]          → Gpt(that preset overridden by `gpt`)
struct ModelRequest {
  std::string name = "mlp";  ///< one of builtinModelNames()
  MlpOptions mlp;            ///< used when name == "mlp"
  GptOverrides gpt;          ///< used for the gpt names
};

/// "gpt", "gpt-small", "gpt-tiny", "mlp".
std::vector<std::string> builtinModelNames();
/// True for the gpt names.
bool isGpt(const ModelRequest& request);
/// The GptOptions a gpt request resolves to (preset, then overrides), validated. Throws fathom::ConfigError for a
/// non-gpt name or a bad value.
GptOptions resolveGptOptions(const ModelRequest& request);

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
