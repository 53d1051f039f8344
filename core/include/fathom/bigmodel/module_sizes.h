// SPDX-License-Identifier: Apache-2.0
// Sizes of a module tree's parts, as Accelerate computes them for planning (accelerate/utils/modeling.py
// compute_module_sizes, compute_module_total_buffer_size, get_max_layer_size, get_module_size_with_ties).
#pragma once

#include <fathom/bigmodel/dtype.h>
#include <fathom/bigmodel/module_tree.h>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace fathom::bigmodel {

/// Per-tensor dtypes that override every other rule (Accelerate's special_dtypes), by full tensor name.
using SpecialDtypes = std::map<std::string, Dtype>;

/// Sizes by dotted name, in the order the names were first added (Accelerate's defaultdict(int): a name never added
/// reads as 0, and get_balanced_memory depends on the key order).
class ModuleSizes {
public:
  /// The size of `name`; 0 when it was never added (a tied parameter's second name, a module without tensors).
  ByteCount operator[](std::string_view name) const;
  bool contains(std::string_view name) const { return m_index.contains(std::string(name)); }
  /// Adds `bytes` to `name`, appending the name when it is new.
  void add(const std::string& name, ByteCount bytes);
  /// Every name with its size, in the order of first addition.
  const std::vector<std::pair<std::string, ByteCount>>& entries() const { return m_entries; }

private:
  std::vector<std::pair<std::string, ByteCount>> m_entries;
  std::unordered_map<std::string, std::size_t> m_index;
};

/// compute_module_sizes: every tensor costs numel * bytes(dtype) and is added to each dotted prefix of its name,
/// "" included. With `dtype`, a floating-point tensor costs numel * min(bytes(dtype), its own bytes) (sizes never
/// grow; integer and bool tensors keep their own size); a `special` entry overrides both. Tensors are visited as all
/// parameters, then all buffers (non-persistent ones too), each in pre-order; a tensor object is counted once,
/// under its first name.
ModuleSizes computeModuleSizes(const ModuleTree& tree, std::optional<Dtype> dtype = std::nullopt,
                               const SpecialDtypes& special = {});

/// compute_module_total_buffer_size of the module `module` (the root by default): its buffers and its
/// descendants', each object once. As in Accelerate, tensor names are relative to `module` when `special` is
/// looked up, so for a submodule an entry under the full name does not apply.
ByteCount computeModuleTotalBufferSize(const ModuleTree& tree, std::optional<Dtype> dtype = std::nullopt,
                                       const SpecialDtypes& special = {}, std::string_view module = "");

/// The largest "layer" among queued names, and every name that has that size.
struct MaxLayer {
  ByteCount size = 0;
  std::vector<std::string> names;
};

/// get_max_layer_size over a queue of module and tensor names: depth-first, a module that has children and whose
/// class is not in `noSplitClasses` is replaced by its children (never by its own tensors); everything else is a
/// layer. Starts at size 0, so with nothing larger every layer of size 0 is listed.
MaxLayer getMaxLayerSize(const ModuleTree& tree, const std::vector<std::string>& queue, const ModuleSizes& sizes,
                         const std::vector<std::string>& noSplitClasses);

/// getMaxLayerSize over the whole model, as infer_auto_device_map starts it and estimate-memory's
/// calculate_maximum_sizes computes it: the root's own parameters, its children, its own buffers.
MaxLayer getModelMaxLayerSize(const ModuleTree& tree, const ModuleSizes& sizes,
                              const std::vector<std::string>& noSplitClasses);

/// A copy of `tree` with every floating-point tensor in `dtype` (integer and bool ones keep theirs): the model as it is
/// built in that dtype (estimate-memory sizes models built in float32).
ModuleTree withFloatingDtype(const ModuleTree& tree, Dtype dtype);

/// A module's size with the modules that own its tied parameters.
struct SizeWithTies {
  ByteCount size = 0;
  std::vector<std::string> tiedModules;  ///< one per tied parameter, in their order (a module may repeat)
};

/// get_module_size_with_ties: each tied parameter is matched to the first queued name `n` with
/// param.starts_with(n + "."); that entry's size is added and the parameter's own size subtracted. ConfigError
/// naming the parameter when no queued name holds it (Accelerate fails there with an IndexError).
SizeWithTies getModuleSizeWithTies(const std::vector<std::string>& tiedParams, ByteCount moduleSize,
                                   const ModuleSizes& sizes, const std::vector<std::string>& queue);

}  // namespace fathom::bigmodel
