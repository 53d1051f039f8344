// SPDX-License-Identifier: Apache-2.0
// A sharded checkpoint's model.safetensors.index.json as `fathom device-map --checkpoint` reads it
// (io::parseSafetensorsIndex); after a NUL byte, the config.json beside it (plan::readHfConfigText). The index's tensor
// names then become a module tree (bigmodel::checkpointModel), as from the shards' headers: matched to the config's
// model when it builds one (each tensor in the shape the model has for it, [1] for a name it lacks), or derived from
// the names.
// Oracle: StorageError or ConfigError is a good answer. An index that parses names every tensor once, each with a
// plain shard file name listed in `shards`; a tree that builds holds each of the index's tensors once, as a parameter
// or buffer, unless the config's model has no place for it (then it is listed as unused). Anything else is a finding.
#include "fuzz_input.h"

#include <fathom/bigmodel/checkpoint_module_tree.h>
#include <fathom/bigmodel/hf_module_tree.h>
#include <fathom/common/error.h>
#include <fathom/io/safetensors_index.h>
#include <fathom/plan/hf_config.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace {

[[noreturn]] void finding(const std::string& what) {
  std::fprintf(stderr, "%s\n", what.c_str());
  std::abort();
}

void checkIndex(const fathom::io::SafetensorsIndex& index) {
  std::set<std::string> names;
  const std::set<std::string> shards(index.shards.begin(), index.shards.end());
  for (const auto& [tensor, shard] : index.weightMap) {
    if (tensor.empty() || !names.insert(tensor).second) {
      finding("tensor named twice or empty: '" + tensor + "'");
    }
    if (shard.empty() || shard == "." || shard == ".." || shard.find_first_of("/\\") != std::string::npos ||
        !shards.contains(shard)) {
      finding("shard '" + shard + "' is not a plain file name the index lists");
    }
  }
  if (index.weightMap.empty() || shards.size() != index.shards.size()) {
    finding("an empty weight_map, or a shard listed twice");
  }
}

/// The shape the config's model has for `name` (with or without its base-model prefix), or [1].
std::vector<std::int64_t> shapeFor(const std::string& name, const fathom::bigmodel::ModuleTree* model,
                                   const std::string& prefix) {
  if (model != nullptr) {
    for (const std::string& candidate : {name, prefix + name}) {
      const auto dot = candidate.rfind('.');
      const auto index = model->findModule(dot == std::string::npos ? "" : candidate.substr(0, dot));
      if (!index) {
        continue;
      }
      const std::string local = dot == std::string::npos ? candidate : candidate.substr(dot + 1);
      for (const auto* list : {&model->module(*index).parameters, &model->module(*index).buffers}) {
        for (const fathom::bigmodel::TensorInfo& t : *list) {
          if (t.name == local) {
            return t.shape;
          }
        }
      }
    }
  }
  return {1};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fathom;
  const fuzz::Parts parts = fuzz::splitAtNul(fuzz::text(data, size));
  io::SafetensorsIndex index;
  try {
    index = io::parseSafetensorsIndex(parts.head, "fuzz/model.safetensors.index.json");
  } catch (const Error&) {
    return 0;
  }
  checkIndex(index);

  std::optional<plan::HfConfig> config;
  std::optional<bigmodel::ModuleTree> model;
  std::string prefix;
  if (!parts.tail.empty()) {
    try {
      config = plan::readHfConfigText(parts.tail, "fuzz", "fuzz/config.json");
      if (const bigmodel::HfFamily* family = bigmodel::hfFamily(config->modelType); family && config->model) {
        prefix = std::string(family->basePrefix) + ".";
        model = bigmodel::moduleTreeFromHfConfig(*config);
      }
    } catch (const Error&) {
    }
  }
  std::vector<bigmodel::CheckpointTensor> tensors;
  for (const auto& [name, shard] : index.weightMap) {
    tensors.push_back({name, shapeFor(name, model ? &*model : nullptr, prefix), bigmodel::Dtype::Float16, shard});
  }
  try {
    const bigmodel::CheckpointModel m = bigmodel::checkpointModel(tensors, config ? &*config : nullptr);
    std::size_t held = 0;
    for (const bigmodel::ModuleInfo& module : m.tree.modules()) {
      held += module.parameters.size() + module.buffers.size();
    }
    if (!model && (held != tensors.size() || !m.unusedTensors.empty() || !m.missingTensors.empty())) {
      finding("a tree derived from " + std::to_string(tensors.size()) + " names holds " + std::to_string(held) +
              " tensors");
    }
    if (model && m.unusedTensors.size() > tensors.size()) {
      finding("more unused tensors than tensors");
    }
  } catch (const Error&) {
  }
  return 0;
}
