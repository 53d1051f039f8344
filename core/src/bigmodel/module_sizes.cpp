// SPDX-License-Identifier: Apache-2.0
#include <fathom/bigmodel/module_sizes.h>

#include "planning_queue.h"

#include <fathom/common/error.h>

#include <algorithm>

namespace fathom::bigmodel {

namespace {

ByteCount tensorSize(const NamedTensor& t, std::optional<Dtype> dtype, const SpecialDtypes& special) {
  const auto numel = static_cast<ByteCount>(t.tensor->numel());
  const Dtype own = t.tensor->dtype;
  if (const auto it = special.find(t.name); it != special.end()) {
    return numel * dtypeByteSize(it->second);
  }
  if (!dtype || keepsOwnSize(own)) {
    return numel * dtypeByteSize(own);
  }
  return numel * std::min(dtypeByteSize(*dtype), dtypeByteSize(own));
}

void addToPrefixes(ModuleSizes& sizes, const std::string& name, ByteCount bytes) {
  sizes.add("", bytes);
  for (std::size_t dot = name.find('.'); dot != std::string::npos; dot = name.find('.', dot + 1)) {
    sizes.add(name.substr(0, dot), bytes);
  }
  sizes.add(name, bytes);
}

bool contains(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

}  // namespace

ByteCount ModuleSizes::operator[](std::string_view name) const {
  const auto it = m_index.find(std::string(name));
  return it == m_index.end() ? 0 : m_entries[it->second].second;
}

void ModuleSizes::add(const std::string& name, ByteCount bytes) {
  const auto [it, inserted] = m_index.emplace(name, m_entries.size());
  if (inserted) {
    m_entries.emplace_back(name, bytes);
  } else {
    m_entries[it->second].second += bytes;
  }
}

ModuleSizes computeModuleSizes(const ModuleTree& tree, std::optional<Dtype> dtype, const SpecialDtypes& special) {
  ModuleSizes sizes;
  for (const NamedTensor& t : tree.parameters(0, true)) {
    addToPrefixes(sizes, t.name, tensorSize(t, dtype, special));
  }
  for (const NamedTensor& t : tree.buffers(0, true)) {
    addToPrefixes(sizes, t.name, tensorSize(t, dtype, special));
  }
  return sizes;
}

ByteCount computeModuleTotalBufferSize(const ModuleTree& tree, std::optional<Dtype> dtype, const SpecialDtypes& special,
                                       std::string_view module) {
  const auto index = tree.findModule(module);
  FATHOM_CHECK(index.has_value(), ConfigError, "compute_module_total_buffer_size: no module '", module,
               "' in the tree");
  ByteCount total = 0;
  for (const NamedTensor& t : tree.buffers(*index, true)) {
    total += tensorSize(t, dtype, special);
  }
  return total;
}

MaxLayer getMaxLayerSize(const ModuleTree& tree, const std::vector<std::string>& queue, const ModuleSizes& sizes,
                         const std::vector<std::string>& noSplitClasses) {
  MaxLayer best;
  // Depth-first: a stack whose top is the queue's head.
  std::vector<std::string> stack(queue.rbegin(), queue.rend());
  while (!stack.empty()) {
    const std::string name = std::move(stack.back());
    stack.pop_back();
    const auto index = tree.findModule(name);
    const bool splittable =
        index && !tree.childIndexes(*index).empty() && !contains(noSplitClasses, tree.module(*index).className);
    if (splittable) {
      const auto& children = tree.childIndexes(*index);
      for (auto it = children.rbegin(); it != children.rend(); ++it) {
        stack.push_back(tree.module(*it).name);
      }
      continue;
    }
    const ByteCount size = sizes[name];
    if (size > best.size) {
      best.size = size;
      best.names = {name};
    } else if (size == best.size) {
      best.names.push_back(name);
    }
  }
  return best;
}

MaxLayer getModelMaxLayerSize(const ModuleTree& tree, const ModuleSizes& sizes,
                              const std::vector<std::string>& noSplitClasses) {
  return getMaxLayerSize(tree, detail::rootQueue(tree), sizes, noSplitClasses);
}

ModuleTree withFloatingDtype(const ModuleTree& tree, Dtype dtype) {
  std::vector<ModuleInfo> modules = tree.modules();
  for (ModuleInfo& m : modules) {
    for (auto* list : {&m.parameters, &m.buffers}) {
      for (TensorInfo& t : *list) {
        if (!keepsOwnSize(t.dtype)) {
          t.dtype = dtype;
        }
      }
    }
  }
  return ModuleTree(std::move(modules));
}

SizeWithTies getModuleSizeWithTies(const std::vector<std::string>& tiedParams, ByteCount moduleSize,
                                   const ModuleSizes& sizes, const std::vector<std::string>& queue) {
  SizeWithTies result{moduleSize, {}};
  for (const std::string& param : tiedParams) {
    const auto owner = std::find_if(queue.begin(), queue.end(), [&](const std::string& n) {
      return param.size() > n.size() && param.starts_with(n) && param[n.size()] == '.';
    });
    FATHOM_CHECK(owner != queue.end(), ConfigError, "device map: tied parameter '", param,
                 "' is in no module still to be placed (Accelerate fails here too, with an IndexError)");
    result.tiedModules.push_back(*owner);
  }
  for (std::size_t i = 0; i < tiedParams.size(); ++i) {
    result.size += sizes[result.tiedModules[i]] - sizes[tiedParams[i]];
  }
  return result;
}

}  // namespace fathom::bigmodel
