// SPDX-License-Identifier: Apache-2.0
// The built-in model dimension flags of `fathom train`, `fathom plan --model NAME` and `fathom estimate-memory
// NAME`, registered from core's description of the built-in models (models/builtin_model.h): the same names, help
// and defaults in every command.
#pragma once

#include <CLI/CLI.hpp>

#include <fathom/models/builtin_model.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fathom::cli {

/// The built-in models' names joined by `separator` ("gpt | gpt-small | gpt-tiny | mlp"), for --help texts.
std::string builtinModelChoices(std::string_view separator);

class BuiltinModelFlags {
public:
  /// Registers a flag per dimension of models::modelDimensions() on `cmd` (underscore and dashed spellings). Without
  /// `withMlp` the mlp's (--hidden, --layers) are left out: `fathom plan` has its own, shared with --arch, and passes
  /// them to request().
  void add(CLI::App* cmd, bool withMlp);
  /// The request for built-in model `name` with the dimension flags given; `hiddenGiven`/`layersGiven` say whether
  /// the mlp flags were given (their values are `hiddenValue`/`layersValue`). Throws fathom::ConfigError for an
  /// unknown name or flags of the other family.
  models::ModelRequest request(const std::string& name, bool hiddenGiven, std::int64_t hiddenValue, bool layersGiven,
                               std::int64_t layersValue) const;
  /// Same, with the mlp flags registered by add(cmd, true).
  models::ModelRequest request(const std::string& name) const;

private:
  /// One flag's storage: a count or a fraction, as the dimension takes.
  struct Value {
    std::int64_t count = 0;
    double fraction = 0;
    CLI::Option* option = nullptr;  ///< nullptr: not registered
  };
  /// One per models::modelDimensions(), in that order (sized once by add(): CLI11 keeps their addresses).
  std::vector<Value> m_values;
};

}  // namespace fathom::cli
