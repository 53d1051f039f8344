// SPDX-License-Identifier: Apache-2.0
// A model's module tree without its weights: what Accelerate's device-map planning reads from an nn.Module (names,
// classes, children, and each tensor's shape and dtype), so a plan can be made for a model that was never built.
#pragma once

#include <fathom/bigmodel/dtype.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace fathom::bigmodel {

/// One parameter or buffer registered on a module.
struct TensorInfo {
  std::string name;                 ///< the local name in its module ("weight"); no dots
  std::vector<std::int64_t> shape;  ///< empty for a 0-dim tensor (one element); no negative dimension
  Dtype dtype = Dtype::Float32;
  bool persistent = true;      ///< buffers only: whether the state dict holds it (parameters always do)
  std::int64_t tensorId = -1;  ///< tensors with the same id are one tensor object (tied); -1: not shared with any

  std::int64_t numel() const;
};

/// One module: its own tensors, and its children by local name.
struct ModuleInfo {
  std::string name;  ///< the dotted full name; "" for the root
  std::string className;
  std::vector<std::string> children;   ///< local names, in registration order
  std::vector<TensorInfo> parameters;  ///< in registration order
  std::vector<TensorInfo> buffers;     ///< in registration order
};

/// A tensor with the name a PyTorch traversal gives it (dotted, relative to the module the traversal started at).
struct NamedTensor {
  std::string name;
  const TensorInfo* tensor = nullptr;
};

/// A module tree, checked. Invariants, established by the constructor (ConfigError naming the module or tensor when
/// the input breaks one): modules are in pre-order, the root ("") first; every child exists and has exactly one
/// parent; names are unique within a module (children, parameters and buffers together, as nn.Module attributes
/// are); every dimension is >= 0 and every element count fits in 63 bits; tensors sharing a tensorId agree in shape
/// and dtype; no tensor has a CustomDtype. Tensors without an id (-1) get fresh ones.
class ModuleTree {
public:
  explicit ModuleTree(std::vector<ModuleInfo> modules);

  /// Every module, in pre-order (the order of named_modules()).
  const std::vector<ModuleInfo>& modules() const { return m_modules; }
  const ModuleInfo& module(std::size_t index) const { return m_modules.at(index); }
  const ModuleInfo& root() const { return m_modules.front(); }

  /// The index of the module with this full name, or std::nullopt (a tensor's name, or no such name).
  std::optional<std::size_t> findModule(std::string_view name) const;
  /// The indexes of a module's children, in registration order.
  const std::vector<std::size_t>& childIndexes(std::size_t index) const { return m_children.at(index); }

  /// named_parameters(recurse) of the module `index` (remove_duplicate=True): names relative to that module, each
  /// tensor object once, under its first name in pre-order.
  std::vector<NamedTensor> parameters(std::size_t index, bool recurse) const;
  /// named_buffers(recurse) of the module `index`, likewise.
  std::vector<NamedTensor> buffers(std::size_t index, bool recurse) const;

  /// Groups of parameter names that are one tensor, as Accelerate's find_tied_parameters gives them: each group
  /// sorted, and (our choice where Accelerate's order depends on Python's string hashing) the groups sorted too.
  const std::vector<std::vector<std::string>>& tiedParameters() const { return m_tiedParameters; }

  /// `local` inside the module `prefix`: "prefix.local", or `local` when prefix is the root.
  static std::string qualified(std::string_view prefix, std::string_view local);

private:
  std::vector<NamedTensor> tensors(std::size_t index, bool recurse, bool wantParameters) const;

  std::vector<ModuleInfo> m_modules;
  std::vector<std::vector<std::size_t>> m_children;
  std::vector<std::size_t> m_subtreeEnd;  ///< the subtree of i is [i, m_subtreeEnd[i]) in pre-order
  std::unordered_map<std::string, std::size_t> m_index;
  std::vector<std::vector<std::string>> m_tiedParameters;
};

}  // namespace fathom::bigmodel
