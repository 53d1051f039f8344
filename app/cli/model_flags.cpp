// SPDX-License-Identifier: Apache-2.0
#include "model_flags.h"

#include <fathom/common/error.h>

#include <algorithm>

namespace fathom::cli {

std::string builtinModelChoices(std::string_view separator) {
  std::string out;
  for (const std::string& name : models::builtinModelNames()) {
    out += (out.empty() ? "" : std::string(separator)) + name;
  }
  return out;
}

void BuiltinModelFlags::add(CLI::App* cmd, bool withMlp) {
  const auto dimensions = models::modelDimensions();
  m_values.assign(dimensions.size(), Value{});
  for (std::size_t i = 0; i < dimensions.size(); ++i) {
    const models::ModelDimensionInfo& d = dimensions[i];
    if (!withMlp && d.family == models::ModelFamily::Mlp) {
      continue;
    }
    std::string names = "--" + std::string(d.flag);
    if (std::string dashed(d.flag); dashed.find('_') != std::string::npos) {
      std::replace(dashed.begin(), dashed.end(), '_', '-');
      names += ",--" + dashed;
    }
    const std::string help = models::dimensionHelp(d.dimension);
    Value& v = m_values[i];
    v.option = d.integral ? cmd->add_option(names, v.count, help) : cmd->add_option(names, v.fraction, help);
  }
}

models::ModelRequest BuiltinModelFlags::request(const std::string& name) const {
  return request(name, false, 0, false, 0);
}

models::ModelRequest BuiltinModelFlags::request(const std::string& name, bool hiddenGiven, std::int64_t hiddenValue,
                                                bool layersGiven, std::int64_t layersValue) const {
  models::ModelRequest r;
  r.name = name;
  (void)r.info();  // ConfigError for an unknown name, listing the known ones
  const auto dimensions = models::modelDimensions();
  for (std::size_t i = 0; i < m_values.size(); ++i) {
    const Value& v = m_values[i];
    if (v.option != nullptr && v.option->count() > 0) {
      r.set(dimensions[i].dimension, dimensions[i].integral ? static_cast<double>(v.count) : v.fraction);
    }
  }
  if (hiddenGiven) {
    r.set(models::ModelDimension::Hidden, static_cast<double>(hiddenValue));
  }
  if (layersGiven) {
    r.set(models::ModelDimension::Layers, static_cast<double>(layersValue));
  }
  r.checkDimensions();
  return r;
}

}  // namespace fathom::cli
