// SPDX-License-Identifier: Apache-2.0
#include <fathom/bigmodel/module_tree.h>

#include <fathom/common/checked_number.h>
#include <fathom/common/error.h>

#include <algorithm>
#include <map>
#include <set>
#include <unordered_set>

namespace fathom::bigmodel {

namespace {

/// "the root" or "module 'a.b'", for messages.
std::string describeModule(const std::string& name) {
  return name.empty() ? "the root module" : "module '" + name + "'";
}

void checkLocalName(const std::string& name, const std::string& what, const std::string& moduleName) {
  FATHOM_CHECK(!name.empty() && name.find('.') == std::string::npos, ConfigError,
               "module tree: ", describeModule(moduleName), " has a ", what, " named '", name,
               "': a local name must be non-empty and have no '.'");
}

void checkTensor(const TensorInfo& t, const std::string& moduleName) {
  const std::string full = ModuleTree::qualified(moduleName, t.name);
  for (const std::int64_t dim : t.shape) {
    FATHOM_CHECK(dim >= 0, ConfigError, "module tree: tensor '", full, "' has a negative dimension (", dim, ")");
  }
  CheckedInt64 numel = 1;
  for (const std::int64_t dim : t.shape) {
    numel *= dim;
  }
  FATHOM_CHECK(!numel.overflowed(), ConfigError, "module tree: tensor '", full,
               "' has more elements than fit in 63 bits");
  FATHOM_CHECK(!isCustomDtype(t.dtype), ConfigError, "module tree: tensor '", full, "' has dtype '", dtypeName(t.dtype),
               "', which is one of Accelerate's CustomDtype values, not a tensor dtype");
}

}  // namespace

std::int64_t TensorInfo::numel() const {
  CheckedInt64 n = 1;
  for (const std::int64_t dim : shape) {
    n *= dim;
  }
  FATHOM_CHECK(!n.overflowed(), ConfigError, "tensor '", name, "' has more elements than fit in 63 bits");
  return *n.value();
}

std::string ModuleTree::qualified(std::string_view prefix, std::string_view local) {
  if (prefix.empty()) {
    return std::string(local);
  }
  std::string out(prefix);
  out += '.';
  out += local;
  return out;
}

ModuleTree::ModuleTree(std::vector<ModuleInfo> modules) : m_modules(std::move(modules)) {
  FATHOM_CHECK(!m_modules.empty(), ConfigError, "module tree: no modules (the root, named \"\", comes first)");
  FATHOM_CHECK(m_modules.front().name.empty(), ConfigError,
               "module tree: the first module must be the root (named \"\"), got '", m_modules.front().name, "'");
  for (std::size_t i = 0; i < m_modules.size(); ++i) {
    const auto [it, inserted] = m_index.emplace(m_modules[i].name, i);
    FATHOM_CHECK(inserted, ConfigError, "module tree: ", describeModule(m_modules[i].name), " is listed twice");
  }

  // Children, each module reached once, and local names unique within a module.
  m_children.resize(m_modules.size());
  std::vector<int> parents(m_modules.size(), 0);
  for (std::size_t i = 0; i < m_modules.size(); ++i) {
    const ModuleInfo& m = m_modules[i];
    std::set<std::string> locals;
    const auto claim = [&](const std::string& local, const std::string& what) {
      checkLocalName(local, what, m.name);
      FATHOM_CHECK(locals.insert(local).second, ConfigError, "module tree: ", describeModule(m.name),
                   " has two members named '", local, "'");
    };
    for (const std::string& child : m.children) {
      claim(child, "child");
      const std::string full = qualified(m.name, child);
      const auto found = m_index.find(full);
      FATHOM_CHECK(found != m_index.end(), ConfigError, "module tree: ", describeModule(m.name), " lists child '",
                   child, "', but no module '", full, "' is in the tree");
      m_children[i].push_back(found->second);
      ++parents[found->second];
    }
    for (const TensorInfo& t : m.parameters) {
      claim(t.name, "parameter");
      checkTensor(t, m.name);
    }
    for (const TensorInfo& t : m.buffers) {
      claim(t.name, "buffer");
      checkTensor(t, m.name);
    }
  }
  for (std::size_t i = 1; i < m_modules.size(); ++i) {
    FATHOM_CHECK(parents[i] == 1, ConfigError, "module tree: ", describeModule(m_modules[i].name),
                 " is not the child of any module");
  }

  // Pre-order, checked against the listed order; the subtree of i is then the range [i, m_subtreeEnd[i]).
  std::vector<std::size_t> order;
  std::vector<std::size_t> stack{0};
  while (!stack.empty()) {
    const std::size_t i = stack.back();
    stack.pop_back();
    order.push_back(i);
    for (auto it = m_children[i].rbegin(); it != m_children[i].rend(); ++it) {
      stack.push_back(*it);
    }
  }
  for (std::size_t pos = 0; pos < order.size(); ++pos) {
    FATHOM_CHECK(order[pos] == pos, ConfigError, "module tree: modules must be listed in pre-order: position ", pos,
                 " holds ", describeModule(m_modules[pos].name), " where ", describeModule(m_modules[order[pos]].name),
                 " belongs");
  }
  m_subtreeEnd.resize(m_modules.size());
  for (std::size_t i = m_modules.size(); i-- > 0;) {
    m_subtreeEnd[i] = m_children[i].empty() ? i + 1 : m_subtreeEnd[m_children[i].back()];
  }

  // Tensor ids: shared ids agree in shape and dtype; tensors without one get fresh ids.
  std::int64_t nextId = 0;
  for (const ModuleInfo& m : m_modules) {
    for (const auto* list : {&m.parameters, &m.buffers}) {
      for (const TensorInfo& t : *list) {
        nextId = std::max(nextId, t.tensorId + 1);
      }
    }
  }
  std::map<std::int64_t, std::pair<std::string, const TensorInfo*>> firstById;
  for (ModuleInfo& m : m_modules) {
    for (auto* list : {&m.parameters, &m.buffers}) {
      for (TensorInfo& t : *list) {
        if (t.tensorId < 0) {
          t.tensorId = nextId++;
          continue;
        }
        const auto [it, inserted] = firstById.emplace(t.tensorId, std::pair{qualified(m.name, t.name), &t});
        FATHOM_CHECK(inserted || (it->second.second->shape == t.shape && it->second.second->dtype == t.dtype),
                     ConfigError, "module tree: tensor '", qualified(m.name, t.name), "' has tensor_id ", t.tensorId,
                     " like '", it->second.first, "', but a different shape or dtype");
      }
    }
  }

  // find_tied_parameters: every name of a parameter object that has more than one, grouped by object.
  std::map<std::int64_t, std::vector<std::string>> namesById;
  std::vector<std::int64_t> idOrder;
  for (const ModuleInfo& m : m_modules) {
    for (const TensorInfo& t : m.parameters) {
      auto& names = namesById[t.tensorId];
      if (names.empty()) {
        idOrder.push_back(t.tensorId);
      }
      names.push_back(qualified(m.name, t.name));
    }
  }
  for (const std::int64_t id : idOrder) {
    std::vector<std::string> names = namesById[id];
    if (names.size() > 1) {
      std::sort(names.begin(), names.end());
      names.erase(std::unique(names.begin(), names.end()), names.end());
      m_tiedParameters.push_back(std::move(names));
    }
  }
  std::sort(m_tiedParameters.begin(), m_tiedParameters.end());
}

std::optional<std::size_t> ModuleTree::findModule(std::string_view name) const {
  const auto it = m_index.find(std::string(name));
  if (it == m_index.end()) {
    return std::nullopt;
  }
  return it->second;
}

std::vector<NamedTensor> ModuleTree::parameters(std::size_t index, bool recurse) const {
  return tensors(index, recurse, true);
}

std::vector<NamedTensor> ModuleTree::buffers(std::size_t index, bool recurse) const {
  return tensors(index, recurse, false);
}

std::vector<NamedTensor> ModuleTree::tensors(std::size_t index, bool recurse, bool wantParameters) const {
  const std::size_t end = recurse ? m_subtreeEnd.at(index) : index + 1;
  const std::string& base = m_modules.at(index).name;
  // Names relative to the start module: strip "base." (or nothing, when it is the root).
  const std::size_t strip = base.empty() ? 0 : base.size() + 1;
  std::vector<NamedTensor> out;
  std::unordered_set<std::int64_t> seen;  // remove_duplicate=True: one name per tensor object
  for (std::size_t i = index; i < end; ++i) {
    const ModuleInfo& m = m_modules[i];
    const std::string relative = i == index ? std::string() : m.name.substr(strip);
    for (const TensorInfo& t : wantParameters ? m.parameters : m.buffers) {
      if (seen.insert(t.tensorId).second) {
        out.push_back({qualified(relative, t.name), &t});
      }
    }
  }
  return out;
}

}  // namespace fathom::bigmodel
