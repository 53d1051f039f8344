// SPDX-License-Identifier: Apache-2.0
// CPU operator spans through LibTorch's RecordFunction callbacks. Private to core/profile.
#pragma once

#include <cstdint>

namespace fathom::profile::detail {

struct CaptureSettings;

/// Registers global RecordFunction callbacks for ATen operators, autograd nodes and users' record_function
/// ranges while it lives; each finished one is appended to the calling thread's buffer of the active
/// CaptureSession (when it collects). With CUDA tracing on, each operator pushes its external correlation id to
/// CUPTI for its duration, so the kernels it launches link to it.
class AtenObserver {
public:
  explicit AtenObserver(const CaptureSettings& settings);
  ~AtenObserver();
  AtenObserver(const AtenObserver&) = delete;
  AtenObserver& operator=(const AtenObserver&) = delete;

private:
  std::uint64_t m_handle = 0;  ///< at::CallbackHandle
};

}  // namespace fathom::profile::detail
