// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <ATen/core/Tensor.h>

#include <concepts>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace fathom::checkpoint {

/// One component's saved state, as a checkpoint stores it: named tensors plus string values. It is written as one
/// safetensors file, the values in its `__metadata__` (so Python reads it with safetensors' safe_open: tensors with
/// get_tensor(), values with metadata()). No pickle.
struct StateDict {
  std::vector<std::pair<std::string, at::Tensor>> tensors;  ///< in the order they are written
  std::map<std::string, std::string> values;                ///< scalars and JSON text

  /// The tensor named `name`, or nullptr.
  const at::Tensor* tensor(const std::string& name) const {
    for (const auto& [n, t] : tensors) {
      if (n == name)
        return &t;
    }
    return nullptr;
  }
  /// The value named `key`, or nullptr.
  const std::string* value(const std::string& key) const {
    const auto it = values.find(key);
    return it == values.end() ? nullptr : &it->second;
  }
};

/// What Accelerator::registerForCheckpointing accepts (Accelerate's register_for_checkpointing: any object with
/// state_dict() / load_state_dict()).
template <typename T>
concept Checkpointable = requires(T object, const StateDict& state) {
  { std::as_const(object).stateDict() } -> std::convertible_to<StateDict>;
  object.loadStateDict(state);
};

}  // namespace fathom::checkpoint
