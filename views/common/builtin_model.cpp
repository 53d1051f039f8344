// SPDX-License-Identifier: Apache-2.0
// The one translation unit of the Studio that includes LibTorch (through the model factory).
#include "common/builtin_model.h"

#include <fathom/models/gpt_options.h>
#include <fathom/models/model_factory.h>
#include <fathom/models/model_introspection.h>

#include <algorithm>

namespace fathom::views {
namespace {

models::ModelRequest request(const BuiltinModel& m) {
  models::ModelRequest r;
  r.name = m.name;
  if (m.isGpt()) {
    auto set = [](std::optional<std::int64_t>& field, std::int64_t value) {
      if (value > 0) {
        field = value;
      }
    };
    set(r.gpt.nLayer, m.nLayer);
    set(r.gpt.nHead, m.nHead);
    set(r.gpt.nEmbd, m.nEmbd);
    set(r.gpt.blockSize, m.blockSize);
    set(r.gpt.vocabSize, m.vocabSize);
  } else {
    if (m.hidden > 0) {
      r.mlp.hidden = m.hidden;
    }
    if (m.layers > 0) {
      r.mlp.layers = m.layers;
    }
  }
  return r;
}

/// The preset a gpt name starts from ("gpt" is gpt-tiny overridden).
models::GptOptions preset(const std::string& name) {
  return models::gptPreset(name == "gpt" ? "gpt-tiny" : name);
}

std::string normalized(std::string flag) {
  std::replace(flag.begin(), flag.end(), '-', '_');
  return flag;
}

}  // namespace

BuiltinModel BuiltinModel::resolved() const {
  BuiltinModel out;
  out.name = name;
  if (isGpt()) {
    const models::GptOptions p = preset(name);
    out.nLayer = nLayer > 0 ? nLayer : p.nLayer;
    out.nHead = nHead > 0 ? nHead : p.nHead;
    out.nEmbd = nEmbd > 0 ? nEmbd : p.nEmbd;
    out.blockSize = blockSize > 0 ? blockSize : p.blockSize;
    out.vocabSize = vocabSize > 0 ? vocabSize : p.vocabSize;
  } else {
    const models::MlpOptions defaults;
    out.hidden = hidden > 0 ? hidden : defaults.hidden;
    out.layers = layers > 0 ? layers : defaults.layers;
  }
  return out;
}

bool BuiltinModel::hasOverrides() const {
  BuiltinModel plain;
  plain.name = name;
  return resolved() != plain.resolved();
}

std::vector<std::string> BuiltinModel::trainArguments() const {
  std::vector<std::string> out{"--model", name};
  BuiltinModel plain;
  plain.name = name;
  const BuiltinModel mine = resolved();
  const BuiltinModel base = plain.resolved();
  auto add = [&out](const char* flag, std::int64_t value, std::int64_t baseValue) {
    if (value != baseValue) {
      out.push_back(flag);
      out.push_back(std::to_string(value));
    }
  };
  if (isGpt()) {
    add("--n_layer", mine.nLayer, base.nLayer);
    add("--n_head", mine.nHead, base.nHead);
    add("--n_embd", mine.nEmbd, base.nEmbd);
    add("--block_size", mine.blockSize, base.blockSize);
    add("--vocab_size", mine.vocabSize, base.vocabSize);
  } else {
    add("--hidden", mine.hidden, base.hidden);
    add("--layers", mine.layers, base.layers);
  }
  return out;
}

std::optional<BuiltinModel> BuiltinModel::fromTrainArguments(const std::vector<std::string>& arguments) {
  std::optional<BuiltinModel> out;
  BuiltinModel m;
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    std::string flag = arguments[i];
    std::string value;
    if (const auto eq = flag.find('='); flag.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = flag.substr(eq + 1);
      flag.resize(eq);
    } else if (i + 1 < arguments.size()) {
      value = arguments[i + 1];
    }
    flag = normalized(flag);
    auto number = [&value]() -> std::int64_t {
      try {
        return std::stoll(value);
      } catch (const std::exception&) {
        return 0;
      }
    };
    if (flag == "--model") {
      m.name = value;
      out = m;
    } else if (flag == "--hidden") {
      m.hidden = number();
    } else if (flag == "--layers") {
      m.layers = number();
    } else if (flag == "--n_layer") {
      m.nLayer = number();
    } else if (flag == "--n_head") {
      m.nHead = number();
    } else if (flag == "--n_embd") {
      m.nEmbd = number();
    } else if (flag == "--block_size") {
      m.blockSize = number();
    } else if (flag == "--vocab_size") {
      m.vocabSize = number();
    }
  }
  if (out) {
    out = m;
  }
  return out;
}

std::vector<std::string> builtinModelNames() {
  return models::builtinModelNames();
}

plan::ModelSpec introspect(const BuiltinModel& model) {
  return models::introspectModel(request(model));
}

}  // namespace fathom::views
