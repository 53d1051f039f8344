// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/plan/model_spec.h>

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fathom::views {

/// A built-in model as `fathom train --model NAME [dimension flags]` asks for it, in plain types: this header keeps
/// LibTorch out of the Studio's widgets (only builtin_model.cpp includes the model factory).
struct BuiltinModel {
  std::string name = "gpt-tiny";  ///< mlp, gpt, gpt-tiny, gpt-small
  std::int64_t hidden = 0;        ///< mlp --hidden (0: the default, 256)
  std::int64_t layers = 0;        ///< mlp --layers (0: the default, 2)
  std::int64_t nLayer = 0;        ///< gpt --n_layer (0: the preset's)
  std::int64_t nHead = 0;         ///< gpt --n_head
  std::int64_t nEmbd = 0;         ///< gpt --n_embd
  std::int64_t blockSize = 0;     ///< gpt --block_size
  std::int64_t vocabSize = 0;     ///< gpt --vocab_size

  bool isGpt() const { return name != "mlp"; }
  /// Every dimension of this family filled in: the preset's (or the mlp default) where this one leaves 0.
  BuiltinModel resolved() const;
  /// True when a dimension differs from the preset's.
  bool hasOverrides() const;
  /// `--model NAME` and each dimension flag that differs from the preset, as `fathom train` takes them.
  std::vector<std::string> trainArguments() const;
  /// Reads `--model` and the dimension flags from `fathom train`'s arguments (both `--flag value` and `--flag=value`,
  /// underscores or dashes); nullopt without `--model`.
  static std::optional<BuiltinModel> fromTrainArguments(const std::vector<std::string>& arguments);

  friend auto operator<=>(const BuiltinModel&, const BuiltinModel&) = default;
};

/// "gpt", "gpt-small", "gpt-tiny", "mlp".
std::vector<std::string> builtinModelNames();

/// The planner's view of the model, introspected from the real LibTorch module (models::introspectModel: built on
/// the CPU, counted, freed; milliseconds for gpt-tiny, tens of milliseconds for gpt-small): keep it off the GUI
/// thread. Throws ConfigError for a bad dimension.
plan::ModelSpec introspect(const BuiltinModel& model);

}  // namespace fathom::views
