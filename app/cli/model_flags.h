// SPDX-License-Identifier: Apache-2.0
// The built-in model dimension flags `fathom plan --model NAME` and `fathom estimate-memory NAME` share with
// `fathom train` (same names: --hidden/--layers for mlp, --n_layer/--n_head/--n_embd/--block_size/--vocab_size
// for the gpt models).
#pragma once

#include <CLI/CLI.hpp>

#include <fathom/models/model_factory.h>

#include <cstdint>
#include <string>

namespace fathom::cli {

struct BuiltinModelFlags {
  std::int64_t hidden = 0, layers = 0;  ///< mlp (only registered when `withMlp`)
  std::int64_t nLayer = 0, nHead = 0, nEmbd = 0, blockSize = 0, vocabSize = 0;
  double dropout = 0;

  /// Registers the gpt flags (and --hidden/--layers when `withMlp`; `fathom plan` has its own, shared with
  /// --arch) on `cmd`.
  void add(CLI::App* cmd, bool withMlp);
  /// The request for built-in model `name` with the given flags; `hiddenGiven`/`layersGiven` say whether the
  /// mlp flags were given (their values are `hiddenValue`/`layersValue`). Throws fathom::ConfigError for an
  /// unknown name or flags of the other family.
  models::ModelRequest request(const std::string& name, bool hiddenGiven, std::int64_t hiddenValue, bool layersGiven,
                               std::int64_t layersValue) const;
  /// Same, with the mlp flags registered by add(cmd, true).
  models::ModelRequest request(const std::string& name) const;

private:
  CLI::App* m_app = nullptr;
  bool given(const char* flag) const;
};

}  // namespace fathom::cli
