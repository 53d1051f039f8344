// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>

#include <memory>
#include <string>
#include <vector>

namespace fathom::models {

/// Base of the built-in models `fathom train --model NAME` builds (Mlp, Gpt). A model maps a batched input to
/// an output and knows its own loss, so the training loop needs nothing model-specific:
///
///     auto out = model->forward(batch.input);
///     auto loss = model->loss(out, batch.target);
///
/// Invariants every subclass keeps: named_parameters() is deterministic (registration order) and lists each
/// parameter once (tied weights are registered once); the model is a stack of `repeatedBlocks()` instances of
/// one block type (the unit FSDP's transformer auto-wrap policy wraps) plus embeddings/heads outside them.
class Model : public torch::nn::Module {
public:
  /// `name` is the torch::nn::Module name (e.g. "Mlp", "Gpt").
  explicit Model(std::string name) : torch::nn::Module(std::move(name)) {}
  ~Model() override = default;

  /// Batched forward pass. Throws fathom::ConfigError for an input of the wrong shape or dtype.
  virtual at::Tensor forward(const at::Tensor& input) = 0;
  /// Scalar training loss of `output` (what forward returned) against a batched `target`.
  virtual at::Tensor loss(const at::Tensor& output, const at::Tensor& target) const = 0;

  /// C++ type name of the repeated block ("MlpBlock", "GptBlock"): what an FSDP auto-wrap policy matches.
  virtual std::string repeatedBlockType() const = 0;
  /// The repeated block instances in forward order (size == number of layers).
  virtual std::vector<std::shared_ptr<torch::nn::Module>> repeatedBlocks() const = 0;
  /// Class names (torch::nn::Module::name()) of the modules besides the root whose forward opens a
  /// parallel::UnitScope: where a dispatched model (bigmodel::DispatchedModel) loads offloaded weights and moves
  /// inputs. The repeated block, and any module it calls as a unit.
  virtual std::vector<std::string> unitClasses() const { return {repeatedBlockType()}; }
};

}  // namespace fathom::models
