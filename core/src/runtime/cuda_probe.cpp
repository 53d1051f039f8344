// SPDX-License-Identifier: Apache-2.0
#include <fathom/runtime/cuda_probe.h>

#include "common/dynamic_library.h"

#include <fathom/common/error.h>

namespace fathom::runtime {
namespace {

// The few entry points we need, declared with their stable C ABI so this file needs no CUDA headers:
// CUresult, CUptiResult and ncclResult_t are C enums (int), CUdevice is an int.
using CuInit = int (*)(unsigned int);
using CuDriverGetVersion = int (*)(int*);
using CuDeviceGetCount = int (*)(int*);
using CuDeviceGet = int (*)(int*, int);
using CuDeviceGetName = int (*)(char*, int, int);
using CuDeviceTotalMem = int (*)(std::size_t*, int);
using CuDeviceGetAttribute = int (*)(int*, int, int);
using CuGetErrorString = int (*)(int, const char**);
using CuptiGetVersion = int (*)(std::uint32_t*);
using NcclGetVersion = int (*)(int*);

constexpr int kAttrComputeCapabilityMajor = 75;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
constexpr int kAttrComputeCapabilityMinor = 76;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR

std::string cudaError(const detail::DynamicLibrary& lib, int code) {
  const char* text = nullptr;
  if (auto fn = lib.symbol<CuGetErrorString>("cuGetErrorString"); fn != nullptr && fn(code, &text) == 0 && text) {
    return detail::concat(text, " (CUresult ", code, ")");
  }
  return detail::concat("CUresult ", code);
}

void probeDriver(CudaProbe& probe) {
  // The driver library comes with the kernel driver, never with the toolkit: only the soname is searched.
  auto lib = detail::DynamicLibrary::openFirst({"libcuda.so.1", "libcuda.so"});
  if (!lib.loaded()) {
    probe.driverDetail = "no CUDA driver: " + lib.error();
    return;
  }
  auto cuInit = lib.symbol<CuInit>("cuInit");
  auto getVersion = lib.symbol<CuDriverGetVersion>("cuDriverGetVersion");
  auto getCount = lib.symbol<CuDeviceGetCount>("cuDeviceGetCount");
  auto get = lib.symbol<CuDeviceGet>("cuDeviceGet");
  auto getName = lib.symbol<CuDeviceGetName>("cuDeviceGetName");
  auto totalMem = lib.symbol<CuDeviceTotalMem>("cuDeviceTotalMem_v2");
  auto attribute = lib.symbol<CuDeviceGetAttribute>("cuDeviceGetAttribute");
  if (!cuInit || !getVersion || !getCount || !get || !getName || !totalMem || !attribute) {
    probe.driverDetail = lib.path() + " lacks the driver API entry points";
    return;
  }
  probe.driverLoaded = true;
  getVersion(&probe.driverVersion);
  if (int rc = cuInit(0); rc != 0) {
    probe.driverDetail = detail::concat(lib.path(), ": cuInit failed: ", cudaError(lib, rc));
    return;
  }
  int count = 0;
  if (int rc = getCount(&count); rc != 0) {
    probe.driverDetail = detail::concat(lib.path(), ": cuDeviceGetCount failed: ", cudaError(lib, rc));
    return;
  }
  for (int i = 0; i < count; ++i) {
    CudaDeviceInfo info;
    info.index = i;
    int device = 0;
    if (get(&device, i) != 0) {
      continue;
    }
    char name[256] = {};
    getName(name, sizeof(name) - 1, device);
    info.name = name;
    std::size_t bytes = 0;
    totalMem(&bytes, device);
    info.totalMemoryBytes = bytes;
    attribute(&info.computeCapabilityMajor, kAttrComputeCapabilityMajor, device);
    attribute(&info.computeCapabilityMinor, kAttrComputeCapabilityMinor, device);
    probe.devices.push_back(std::move(info));
  }
  probe.driverDetail = detail::concat(lib.path(), ", driver API ", probe.driverVersion / 1000, ".",
                                      (probe.driverVersion % 1000) / 10, ", ", count, " device(s)");
}

void probeCupti(CudaProbe& probe) {
  auto lib = detail::DynamicLibrary::openFirst(detail::cudaLibraryCandidates("libcupti.so", {"13", "12", "11.8"}));
  if (!lib.loaded()) {
    probe.cuptiDetail = "libcupti not found: " + lib.error();
    return;
  }
  probe.cuptiLibrary = lib.path();
  auto getVersion = lib.symbol<CuptiGetVersion>("cuptiGetVersion");
  if (getVersion == nullptr) {
    probe.cuptiDetail = lib.path() + " has no cuptiGetVersion";
    return;
  }
  if (int rc = getVersion(&probe.cuptiApiVersion); rc != 0) {
    probe.cuptiDetail = detail::concat(lib.path(), ": cuptiGetVersion failed (CUptiResult ", rc, ")");
    return;
  }
  probe.cuptiLoaded = true;
  probe.cuptiDetail = detail::concat(lib.path(), ", CUPTI API version ", probe.cuptiApiVersion);
}

void probeNccl(CudaProbe& probe) {
  auto lib = detail::DynamicLibrary::openFirst(detail::cudaLibraryCandidates("libnccl.so", {"2"}));
  if (!lib.loaded()) {
    probe.ncclDetail = "libnccl not found: " + lib.error();
    return;
  }
  probe.ncclLibrary = lib.path();
  auto getVersion = lib.symbol<NcclGetVersion>("ncclGetVersion");
  int code = 0;
  if (getVersion == nullptr || getVersion(&code) != 0) {
    probe.ncclDetail = lib.path() + ": ncclGetVersion unavailable";
    return;
  }
  // NCCL >= 2.9 encodes major*10000 + minor*100 + patch; older releases major*1000 + minor*100 + patch.
  const int major = code >= 10000 ? code / 10000 : code / 1000;
  const int minor = code >= 10000 ? (code % 10000) / 100 : (code % 1000) / 100;
  const int patch = code % 100;
  probe.ncclLoaded = true;
  probe.ncclVersion = detail::concat(major, ".", minor, ".", patch);
  probe.ncclDetail = detail::concat(lib.path(), ", NCCL ", probe.ncclVersion);
}

}  // namespace

CudaProbe probeCuda() {
  CudaProbe probe;
  probeDriver(probe);
  probeCupti(probe);
  probeNccl(probe);
  return probe;
}

}  // namespace fathom::runtime
