// SPDX-License-Identifier: Apache-2.0
#include "model_flags.h"

#include <fathom/common/error.h>

#include <algorithm>

namespace fathom::cli {

void BuiltinModelFlags::add(CLI::App* cmd, bool withMlp) {
  m_app = cmd;
  if (withMlp) {
    cmd->add_option("--hidden", hidden, "mlp: width (default 256)");
    cmd->add_option("--layers", layers, "mlp: blocks of Linear(hidden, hidden) + ReLU (default 2)");
  }
  cmd->add_option("--n_layer,--n-layer", nLayer, "Built-in gpt: blocks (overrides the preset)");
  cmd->add_option("--n_head,--n-head", nHead, "Built-in gpt: attention heads");
  cmd->add_option("--n_embd,--n-embd", nEmbd, "Built-in gpt: width");
  cmd->add_option("--block_size,--block-size", blockSize, "Built-in gpt: context length");
  cmd->add_option("--vocab_size,--vocab-size", vocabSize, "Built-in gpt: vocabulary size");
  cmd->add_option("--dropout", dropout, "Built-in gpt: dropout probability (default 0: no masks stored)");
}

bool BuiltinModelFlags::given(const char* flag) const {
  return m_app != nullptr && m_app->get_option_no_throw(std::string("--") + flag) != nullptr &&
         m_app->get_option(std::string("--") + flag)->count() > 0;
}

models::ModelRequest BuiltinModelFlags::request(const std::string& name) const {
  return request(name, given("hidden"), hidden, given("layers"), layers);
}

models::ModelRequest BuiltinModelFlags::request(const std::string& name, bool hiddenGiven, std::int64_t hiddenValue,
                                                bool layersGiven, std::int64_t layersValue) const {
  models::ModelRequest r;
  r.name = name;
  const auto known = models::builtinModelNames();
  FATHOM_CHECK(std::find(known.begin(), known.end(), name) != known.end(), ConfigError, "unknown model '", name,
               "' (known: gpt, gpt-small, gpt-tiny, mlp)");
  const bool gptFlags = given("n_layer") || given("n_head") || given("n_embd") || given("block_size") ||
                        given("vocab_size") || given("dropout");
  if (models::isGpt(r)) {
    FATHOM_CHECK(!hiddenGiven && !layersGiven, ConfigError, "--hidden/--layers apply to --model mlp; use ",
                 "--n_embd/--n_layer for ", name);
    if (given("n_layer"))
      r.gpt.nLayer = nLayer;
    if (given("n_head"))
      r.gpt.nHead = nHead;
    if (given("n_embd"))
      r.gpt.nEmbd = nEmbd;
    if (given("block_size"))
      r.gpt.blockSize = blockSize;
    if (given("vocab_size"))
      r.gpt.vocabSize = vocabSize;
    if (given("dropout"))
      r.gpt.dropout = dropout;
  } else {
    FATHOM_CHECK(!gptFlags, ConfigError, "--n_layer/--n_head/--n_embd/--block_size/--vocab_size/--dropout apply to ",
                 "the gpt models, not ", name);
    if (hiddenGiven)
      r.mlp.hidden = hiddenValue;
    if (layersGiven)
      r.mlp.layers = layersValue;
  }
  return r;
}

}  // namespace fathom::cli
