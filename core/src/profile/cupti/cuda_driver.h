// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "profile/cupti/cupti_headers.h"

#if FATHOM_CUPTI_TRACING

#include "common/dynamic_library.h"

#include <fathom/trace/trace_event.h>

#include <string>

namespace fathom::profile::detail {

/// The CUDA driver API calls the GPU profiler needs, through dlopen("libcuda.so.1"): is there a driver and a
/// device, and what are the devices (Kineto's `deviceProperties`). Signatures come from the toolkit's cuda.h; the
/// library itself is only looked up at run time, so the same binary runs without a driver.
///
/// The driver ships with the kernel module, never with the toolkit: only the loader's search path is tried.
class CudaDriver {
public:
  /// Loads libcuda.so.1 and calls cuInit(0). Never throws: state() and error() say how far it got.
  static CudaDriver open();

  enum class State {
    NotFound,      ///< libcuda.so.1 could not be loaded (error() has dlerror's text)
    MissingEntry,  ///< loaded, but an entry point is missing (error() names it)
    InitFailed,    ///< cuInit failed (error() has the CUresult's name and text)
    Ready,         ///< cuInit succeeded; deviceCount() may still be 0
  };

  State state() const { return m_state; }
  /// Why the state is not Ready (empty when it is).
  const std::string& error() const { return m_error; }
  /// The library the loader mapped.
  const std::string& path() const { return m_lib.path(); }
  /// cuDriverGetVersion, e.g. 13000 for CUDA 13.0 (0 before Ready).
  int version() const { return m_version; }
  /// What cuInit (or cuDeviceGetCount) returned; CUDA_SUCCESS when Ready.
  CUresult initResult() const { return m_initResult; }
  /// Number of CUDA devices visible to this process (0 unless Ready).
  int deviceCount() const { return m_deviceCount; }
  /// Name, memory, SM count, compute capability and limits of device `ordinal` (< deviceCount()).
  trace::DeviceProperties properties(int ordinal) const;
  /// "CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected" for a CUresult.
  std::string describe(CUresult code) const;

private:
  fathom::detail::DynamicLibrary m_lib;
  State m_state = State::NotFound;
  std::string m_error;
  int m_version = 0;
  int m_deviceCount = 0;
  CUresult m_initResult = CUDA_SUCCESS;

  decltype(&::cuInit) m_init = nullptr;
  decltype(&::cuDriverGetVersion) m_getVersion = nullptr;
  decltype(&::cuDeviceGetCount) m_getCount = nullptr;
  decltype(&::cuDeviceGet) m_get = nullptr;
  decltype(&::cuDeviceGetName) m_getName = nullptr;
  decltype(&::cuDeviceTotalMem_v2) m_totalMem = nullptr;
  decltype(&::cuDeviceGetAttribute) m_getAttribute = nullptr;
  decltype(&::cuGetErrorName) m_errorName = nullptr;
  decltype(&::cuGetErrorString) m_errorString = nullptr;
};

}  // namespace fathom::profile::detail

#endif  // FATHOM_CUPTI_TRACING
