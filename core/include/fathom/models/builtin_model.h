// SPDX-License-Identifier: Apache-2.0
// The one description of Fathom's built-in models: their names and families, and each dimension with its flag, help
// and the values it takes. `fathom train`, `fathom plan` and `fathom estimate-memory` register their model flags from
// it, the Studio builds its model editors from it, and a built-in model is saved (JSON) and written on a command line
// with it. No LibTorch here (the model factory builds the modules: model_factory.h).
#pragma once

#include <fathom/models/gpt_options.h>
#include <fathom/models/mlp_options.h>

#include <nlohmann/json_fwd.hpp>

#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fathom::models {

/// A family of built-in models: one LibTorch module type with its own dimensions.
enum class ModelFamily {
  Mlp,  ///< models::Mlp, the regression MLP
  Gpt,  ///< models::Gpt, the nanoGPT-style decoder
};

/// One dimension of a built-in model family.
enum class ModelDimension { Hidden, Layers, NLayer, NHead, NEmbd, BlockSize, VocabSize, Dropout };

/// Both families' options; a request resolves to the ones of its family.
struct ModelShape {
  MlpOptions mlp;
  GptOptions gpt;
  bool operator==(const ModelShape&) const = default;
};

/// One built-in model.
struct BuiltinModelInfo {
  std::string_view name;    ///< `--model NAME`
  ModelFamily family;       ///< which dimensions it takes
  std::string_view preset;  ///< the gpt preset it starts from (gptPreset()); empty for the mlp (MlpOptions{})
  std::string_view help;    ///< one line: --help, the Studio's tooltips
};

/// One dimension: how the command line, JSON and the Studio name it, and the values it takes.
struct ModelDimensionInfo {
  ModelDimension dimension;
  std::string_view flag;  ///< without dashes ("n_layer"; "--n-layer" is accepted too); also its JSON key
  ModelFamily family;     ///< the models it applies to
  std::string_view help;  ///< what it sets, one line
  double minimum;         ///< smallest valid value
  double maximum;         ///< largest value the Studio's editors offer (and of a fraction; counts have no upper bound)
  bool integral;          ///< a count; otherwise a fraction in [minimum, 1)
  double (*read)(const ModelShape& shape);         ///< its value in a shape
  void (*write)(ModelShape& shape, double value);  ///< sets it in a shape
};

/// Every built-in model, sorted by name: gpt, gpt-small, gpt-tiny, mlp.
std::span<const BuiltinModelInfo> builtinModels();
/// Their names, in that order.
std::vector<std::string> builtinModelNames();
/// The model called `name`; ConfigError "unknown model 'x' (known: gpt, gpt-small, gpt-tiny, mlp)".
const BuiltinModelInfo& builtinModel(std::string_view name);
/// Every dimension, mlp's first, in the order editors show them.
std::span<const ModelDimensionInfo> modelDimensions();
/// The dimension's row.
const ModelDimensionInfo& dimensionInfo(ModelDimension dimension);
/// The dimension whose flag is `flag` ("n_layer", "n-layer"; no leading dashes), or nullptr.
const ModelDimensionInfo* findDimension(std::string_view flag);
/// The --help text of a dimension: its help and each model's default ("GPT blocks (gpt-small 6, gpt-tiny 2)").
std::string dimensionHelp(ModelDimension dimension);

/// What `fathom train --model NAME [dimension flags]` asks for: a built-in model and the dimensions given.
struct ModelRequest {
  std::string name = "mlp";  ///< one of builtinModelNames()
  /// The dimensions given, by dimension; the others are the model's preset. Only the family's are allowed (see
  /// checkDimensions()).
  std::map<ModelDimension, double> dimensions;
  /// nanoGPT's bias=False (no Linear/LayerNorm biases). For C++ callers only: not a flag of any command.
  std::optional<bool> bias;

  /// Gives `dimension` the value `value`; returns *this. ConfigError naming the flag unless the value is valid: a
  /// count whole and at least the dimension's minimum, a fraction within [minimum, maximum].
  ModelRequest& set(ModelDimension dimension, double value);
  /// The model's row (ConfigError for an unknown name).
  const BuiltinModelInfo& info() const { return builtinModel(name); }
  /// True for the gpt models.
  bool isGpt() const { return info().family == ModelFamily::Gpt; }
  /// ConfigError when a dimension of the other family is given ("--n_layer, --n_head apply to the gpt models, not
  /// mlp").
  void checkDimensions() const;
  /// The preset with the given dimensions (ConfigError for an unknown name, a dimension of the other family, or a
  /// value set() would refuse; the model's own rules, such as n_head dividing n_embd, are checked where it is built).
  ModelShape shape() const;
  /// A dimension's value: given, else the preset's.
  double value(ModelDimension dimension) const;
  /// The same request without the given dimensions that equal the preset's (so `--model gpt-small` stays that).
  ModelRequest withoutPresetValues() const;
  /// True when a given dimension differs from the preset's.
  bool hasOverrides() const { return !withoutPresetValues().dimensions.empty(); }
  /// `--model NAME` and each given dimension (`--n_layer 4`), as `fathom train` takes them.
  std::vector<std::string> trainArguments() const;

  bool operator==(const ModelRequest&) const = default;
};

/// {"name": "gpt-tiny", "n_layer": 4, ...}: the name and the given dimensions under their flags.
nlohmann::ordered_json toJson(const ModelRequest& request);
/// Reads what toJson wrote (unknown keys ignored; a dimension of 0 means "not given", as earlier releases saved
/// it). ConfigError "<origin>: bad value for 'n_layer': ..." for a value that is not a number, and "<origin>: key
/// 'n_layer': 1e+300 is out of range ..." for one set() would refuse.
ModelRequest modelRequestFromJson(const nlohmann::json& json, std::string_view origin = "model");

/// The built-in model a `fathom train` command line asks for: `--model NAME` and the dimension flags among
/// `arguments` (the words after `fathom train`; `--flag value` or `--flag=value`, dashes or underscores); other
/// words are skipped. std::nullopt without `--model`. ConfigError for a dimension value that is not a number or that
/// set() would refuse. The one reader of these words: what reads a run's model from its command (the wizard's
/// `fathom.command`) uses it.
std::optional<ModelRequest> modelRequestFromArguments(std::span<const std::string> arguments);

}  // namespace fathom::models
