// SPDX-License-Identifier: Apache-2.0
#include "bigmodel/dispatch_unit_hooks.h"

#include <fathom/common/error.h>

#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>

namespace fathom::bigmodel {

DispatchUnitHooks::DispatchUnitHooks(std::string module, c10::Device execution, bool root,
                                     std::vector<std::shared_ptr<OffloadedTensor>> tensors)
    : m_module(std::move(module)), m_execution(execution), m_root(root), m_tensors(std::move(tensors)) {}

void DispatchUnitHooks::preForward() {
  if (at::GradMode::is_enabled()) {
    for (const auto& t : m_tensors) {
      FATHOM_CHECK(!t->tensor().requires_grad(), ConfigError, "dispatched model: '", t->name(),
                   "' is offloaded (its memory is released when its unit ends), so its unit '",
                   m_module.empty() ? std::string("(the model)") : m_module,
                   "' runs only without autograd: run the forward under torch::NoGradGuard");
    }
  }
  if (m_root) {
    m_callerDevice.reset();
  }
  std::size_t done = 0;
  try {
    for (; done < m_tensors.size(); ++done) {
      m_tensors[done]->acquire();
    }
  } catch (...) {
    while (done > 0) {
      m_tensors[--done]->release();
    }
    throw;
  }
  m_loaded = true;
}

void DispatchUnitHooks::postForward(const std::vector<at::Tensor>& /*outputs*/) {
  if (!m_loaded) {
    return;
  }
  m_loaded = false;
  for (const auto& t : m_tensors) {
    t->release();
  }
}

at::Tensor DispatchUnitHooks::alignInput(const at::Tensor& input) {
  if (m_root && !m_callerDevice) {
    m_callerDevice = input.device();
  }
  return input.device() == m_execution ? input : input.to(m_execution);
}

at::Tensor DispatchUnitHooks::alignOutput(const at::Tensor& output) {
  if (m_root && m_callerDevice && output.device() != *m_callerDevice) {
    return output.to(*m_callerDevice);
  }
  return output;
}

}  // namespace fathom::bigmodel
