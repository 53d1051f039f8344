// SPDX-License-Identifier: Apache-2.0
#include "layer_units.h"

#include "planning_queue.h"

#include <algorithm>
#include <numeric>
#include <optional>
#include <unordered_map>

namespace fathom::bigmodel::detail {

namespace {

void expand(const ModuleTree& tree, const std::string& name, const std::vector<std::string>& noSplitClasses,
            std::vector<std::string>& out) {
  if (name.empty()) {
    for (const std::string& entry : rootQueue(tree)) {
      expand(tree, entry, noSplitClasses, out);
    }
    return;
  }
  if (!isSplittable(tree, name, noSplitClasses)) {
    out.push_back(name);
    return;
  }
  const std::size_t index = *tree.findModule(name);
  for (const NamedTensor& t : tree.parameters(index, false)) {
    out.push_back(ModuleTree::qualified(name, t.name));
  }
  for (const std::size_t child : tree.childIndexes(index)) {
    expand(tree, tree.module(child).name, noSplitClasses, out);
  }
  for (const NamedTensor& t : tree.buffers(index, false)) {
    out.push_back(ModuleTree::qualified(name, t.name));
  }
}

/// Union-find over layer positions; the representative of a set is its smallest position.
class Groups {
public:
  explicit Groups(std::size_t n) : m_parent(n) { std::iota(m_parent.begin(), m_parent.end(), std::size_t{0}); }
  std::size_t find(std::size_t i) {
    while (m_parent[i] != i) {
      m_parent[i] = m_parent[m_parent[i]];
      i = m_parent[i];
    }
    return i;
  }
  void join(std::size_t a, std::size_t b) {
    a = find(a);
    b = find(b);
    m_parent[std::max(a, b)] = std::min(a, b);
  }

private:
  std::vector<std::size_t> m_parent;
};

}  // namespace

std::vector<std::string> expandToLayers(const ModuleTree& tree, const std::vector<std::string>& names,
                                        const std::vector<std::string>& noSplitClasses) {
  std::vector<std::string> out;
  for (const std::string& name : names) {
    expand(tree, name, noSplitClasses, out);
  }
  return out;
}

std::vector<LayerGroup> layerGroups(const ModuleTree& tree, const ModuleSizes& sizes,
                                    const std::vector<std::string>& noSplitClasses) {
  const std::vector<std::string> layers = expandToLayers(tree, {std::string()}, noSplitClasses);
  std::unordered_map<std::string, std::size_t> position;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    position.emplace(layers[i], i);
  }
  // The layer holding a tensor name: the name itself, or its closest dotted prefix that is a layer. A name has
  // none only when it is a second name of a tensor inside one split module (its own parameters list the tensor
  // once, under its first name): that member adds nothing to tie.
  const auto owner = [&](std::string name) -> std::optional<std::size_t> {
    for (;;) {
      if (const auto it = position.find(name); it != position.end()) {
        return it->second;
      }
      const std::size_t dot = name.rfind('.');
      if (dot == std::string::npos) {
        return std::nullopt;
      }
      name.resize(dot);
    }
  };
  Groups groups(layers.size());
  for (const std::vector<std::string>& tied : tree.tiedParameters()) {
    std::optional<std::size_t> first;
    for (const std::string& member : tied) {
      const auto at = owner(member);
      if (at && first) {
        groups.join(*first, *at);
      }
      first = first ? first : at;
    }
  }

  std::vector<LayerGroup> out;
  std::unordered_map<std::size_t, std::size_t> groupOf;  // representative -> index in out
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const auto [it, isNew] = groupOf.emplace(groups.find(i), out.size());
    if (isNew) {
      out.emplace_back();
    }
    LayerGroup& group = out[it->second];
    const ByteCount size = sizes[layers[i]];
    group.layers.push_back(layers[i]);
    group.bytes += size;
    group.largestLayer = std::max(group.largestLayer, size);
  }
  return out;
}

}  // namespace fathom::bigmodel::detail
