// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <c10/core/DeviceType.h>
#include <c10/core/ScalarType.h>

#include <optional>

namespace fathom::precision {

/// Accelerate's AutocastKwargs: `enabled=True, cache_enabled=None` (None keeps the thread's current setting,
/// which is on unless someone turned it off, as torch.autocast does).
struct AutocastOptions {
  bool enabled = true;               ///< false makes a region where autocast is off (it can switch off an outer one)
  std::optional<bool> cacheEnabled;  ///< keep low-precision copies of leaf tensors for the region
};

/// An autocast region, the RAII form of `torch.autocast(device_type, dtype, enabled, cache_enabled)`.
///
/// On entry it records the thread's autocast state for `device` (enabled flag, dtype) and the cache flag, then
/// sets the new ones and increments the autocast nesting counter; on exit it decrements the counter, clears the
/// cast cache when the outermost region ends, and restores exactly what it recorded. Regions nest and may be
/// left by an exception. Autocast state is thread-local: destroy the guard on the thread that created it.
///
/// Supported: CPU bfloat16; CPU float16 where LibTorch supports it (2.3 and later); CUDA float16 and
/// bfloat16 when a CUDA device is available. Anything else throws fathom::ConfigError before any state changes.
class AutocastGuard {
public:
  /// Enters the region. Throws fathom::ConfigError, before changing anything, for an unsupported device type or
  /// dtype, for CPU float16 on a LibTorch that lacks it, and (when `options.enabled`) for CUDA without a device.
  AutocastGuard(c10::DeviceType device, c10::ScalarType dtype, AutocastOptions options = {});
  /// Leaves the region and restores the previous state.
  ~AutocastGuard();

  AutocastGuard(const AutocastGuard&) = delete;
  AutocastGuard& operator=(const AutocastGuard&) = delete;
  AutocastGuard(AutocastGuard&&) = delete;
  AutocastGuard& operator=(AutocastGuard&&) = delete;

  /// The device type whose autocast state this region sets.
  c10::DeviceType deviceType() const { return m_device; }
  /// The dtype autocast casts to inside the region.
  c10::ScalarType dtype() const { return m_dtype; }
  /// Whether autocast is on inside the region.
  bool enabled() const { return m_enabled; }

private:
  c10::DeviceType m_device;
  c10::ScalarType m_dtype;
  bool m_enabled;
  bool m_previousEnabled = false;
  c10::ScalarType m_previousDtype = c10::ScalarType::Undefined;
  bool m_previousCacheEnabled = true;
};

}  // namespace fathom::precision
