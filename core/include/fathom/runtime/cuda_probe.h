// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fathom::runtime {

struct CudaDeviceInfo {
  int index = 0;
  std::string name;
  std::uint64_t totalMemoryBytes = 0;
  int computeCapabilityMajor = 0;
  int computeCapabilityMinor = 0;
};

/// What the CUDA driver, CUPTI and NCCL say on this machine, found by dlopen() so it works in every build,
/// CPU-only LibTorch included. Each `*Detail` says why something is missing ("libcuda.so.1: cannot open
/// shared object file") or what was found.
struct CudaProbe {
  bool driverLoaded = false;
  int driverVersion = 0;  ///< cuDriverGetVersion, e.g. 13000 for CUDA 13.0
  std::string driverDetail;
  std::vector<CudaDeviceInfo> devices;

  bool cuptiLoaded = false;  ///< libcupti loaded and cuptiGetVersion answered
  std::uint32_t cuptiApiVersion = 0;
  std::string cuptiLibrary;
  std::string cuptiDetail;

  bool ncclLoaded = false;  ///< libnccl loaded and ncclGetVersion answered
  std::string ncclVersion;  ///< e.g. "2.28.3"
  std::string ncclLibrary;
  std::string ncclDetail;
};

/// Loads the libraries, asks for versions and devices, and unloads them again. Cheap (tens of ms); never
/// throws. Honours CUDA_HOME / CUDA_PATH and falls back to /usr/local/cuda.
CudaProbe probeCuda();

}  // namespace fathom::runtime
