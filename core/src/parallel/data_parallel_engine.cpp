// SPDX-License-Identifier: Apache-2.0
#include <fathom/parallel/data_parallel_engine.h>

#include <fathom/common/error.h>

#include <ATen/ATen.h>

#include <map>

namespace fathom::parallel {

void DataParallelEngine::loadFullStateDict(const NamedTensors& tensors) {
  std::map<std::string, const at::Tensor*> byName;
  for (const auto& [name, t] : tensors)
    byName[name] = &t;
  const at::NoGradGuard noGrad;
  auto load = [&](const std::string& name, const at::Tensor& target, bool required) {
    const auto it = byName.find(name);
    FATHOM_CHECK(it != byName.end() || !required, ConfigError, "the state dict has no parameter '", name, "'");
    if (it == byName.end())
      return;
    FATHOM_CHECK(it->second->sizes() == target.sizes(), ConfigError, "parameter '", name, "' has shape ",
                 it->second->sizes(), " in the state dict, ", target.sizes(), " in the model");
    target.detach().copy_(*it->second);
  };
  for (const auto& item : module()->named_parameters(/*recurse=*/true))
    load(item.key(), item.value(), true);
  for (const auto& item : module()->named_buffers(/*recurse=*/true))
    load(item.key(), item.value(), false);
}

}  // namespace fathom::parallel
