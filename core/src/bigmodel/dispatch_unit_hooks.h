// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "bigmodel/offloaded_tensor.h"

#include <fathom/parallel/unit_scope.h>

#include <c10/core/Device.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fathom::bigmodel {

/// What runs around one unit's forward in a dispatched model (DispatchedModel): its offloaded tensors loaded before
/// and released after, tensors entering it moved to its execution device, and for the root, its output moved back to
/// where its input came from (Accelerate's io_same_device).
class DispatchUnitHooks : public parallel::UnitHooks {
public:
  DispatchUnitHooks(std::string module, c10::Device execution, bool root,
                    std::vector<std::shared_ptr<OffloadedTensor>> tensors);

  /// ConfigError when autograd is on and an offloaded tensor requires grad: their memory goes when the unit ends.
  void preForward() override;
  void postForward(const std::vector<at::Tensor>& outputs) override;
  at::Tensor alignInput(const at::Tensor& input) override;
  at::Tensor alignOutput(const at::Tensor& output) override;

private:
  std::string m_module;
  c10::Device m_execution;
  bool m_root;
  std::vector<std::shared_ptr<OffloadedTensor>> m_tensors;
  std::optional<c10::Device> m_callerDevice;  ///< the root's: the device of the first tensor aligned this forward
  bool m_loaded = false;
};

}  // namespace fathom::bigmodel
