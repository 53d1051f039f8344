// SPDX-License-Identifier: Apache-2.0
// Mirrors torch.autocast.__enter__/__exit__ (torch/amp/autocast_mode.py), built on the version-neutral calls in
// runtime/torch_compat.h.
#include "fathom/precision/autocast_guard.h"

#include "fathom/common/error.h"
#include "runtime/torch_compat.h"

#include <ATen/Context.h>

namespace fathom::precision {

namespace {

void validate(c10::DeviceType device, c10::ScalarType dtype, bool enabled) {
  FATHOM_CHECK(device == c10::DeviceType::CPU || device == c10::DeviceType::CUDA, ConfigError,
               "autocast on device type '", c10::DeviceTypeName(device, true), "' is not supported: use cpu or cuda");
  FATHOM_CHECK(dtype == c10::ScalarType::Half || dtype == c10::ScalarType::BFloat16, ConfigError, "autocast dtype ",
               c10::toString(dtype), " is not supported: use BFloat16 or Half");
  // Checked even for a disabled region: the dtype is set either way, and 1.13 rejects a CPU dtype it lacks.
  FATHOM_CHECK(device != c10::DeviceType::CPU || dtype != c10::ScalarType::Half || compat::kCpuAutocastSupportsFp16,
               ConfigError, "autocast to Half (fp16) on cpu needs LibTorch 2.3 or later; this is LibTorch ",
               TORCH_VERSION, ": use BFloat16 (bf16) on cpu");
  FATHOM_CHECK(!enabled || device != c10::DeviceType::CUDA || at::hasCUDA(), ConfigError,
               "autocast on cuda needs a CUDA device, and this process has none");
}

}  // namespace

AutocastGuard::AutocastGuard(c10::DeviceType device, c10::ScalarType dtype, AutocastOptions options)
    : m_device(device), m_dtype(dtype), m_enabled(options.enabled) {
  validate(device, dtype, options.enabled);
  m_previousCacheEnabled = compat::isAutocastCacheEnabled();
  m_previousEnabled = compat::isAutocastEnabled(device);
  m_previousDtype = compat::autocastDtype(device);
  // The dtype first: it is the only call LibTorch may reject, and nothing has changed yet if it does.
  compat::setAutocastDtype(device, dtype);
  compat::setAutocastEnabled(device, m_enabled);
  compat::autocastIncrementNesting();
  compat::setAutocastCacheEnabled(options.cacheEnabled.value_or(m_previousCacheEnabled));
}

AutocastGuard::~AutocastGuard() {
  if (compat::autocastDecrementNesting() == 0) {
    compat::autocastClearCache();
  }
  compat::setAutocastEnabled(m_device, m_previousEnabled);
  compat::setAutocastDtype(m_device, m_previousDtype);
  compat::setAutocastCacheEnabled(m_previousCacheEnabled);
}

}  // namespace fathom::precision
