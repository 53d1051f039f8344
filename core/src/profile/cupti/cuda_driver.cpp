// SPDX-License-Identifier: Apache-2.0
#include "profile/cupti/cuda_driver.h"

#if FATHOM_CUPTI_TRACING

#include "profile/cupti/symbol_resolver.h"

#include <fathom/common/error.h>

namespace fathom::profile::detail {

CudaDriver CudaDriver::open() {
  CudaDriver driver;
  driver.m_lib = fathom::detail::DynamicLibrary::openFirst({"libcuda.so.1"});
  if (!driver.m_lib.loaded()) {
    driver.m_error = driver.m_lib.error();
    return driver;
  }
  SymbolResolver resolve(driver.m_lib);
  // The versioned names are the ABI cuda.h's macros point at (cuDeviceTotalMem -> cuDeviceTotalMem_v2).
  resolve(driver.m_init, "cuInit");
  resolve(driver.m_getVersion, "cuDriverGetVersion");
  resolve(driver.m_getCount, "cuDeviceGetCount");
  resolve(driver.m_get, "cuDeviceGet");
  resolve(driver.m_getName, "cuDeviceGetName");
  resolve(driver.m_totalMem, "cuDeviceTotalMem_v2");
  resolve(driver.m_getAttribute, "cuDeviceGetAttribute");
  resolve(driver.m_errorName, "cuGetErrorName");
  resolve(driver.m_errorString, "cuGetErrorString");
  driver.m_error = resolve.error();
  if (!driver.m_error.empty()) {
    driver.m_state = State::MissingEntry;
    return driver;
  }
  driver.m_getVersion(&driver.m_version);
  if (const CUresult rc = driver.m_init(0); rc != CUDA_SUCCESS) {
    driver.m_state = State::InitFailed;
    driver.m_initResult = rc;
    driver.m_error = "cuInit: " + driver.describe(rc);
    return driver;
  }
  if (const CUresult rc = driver.m_getCount(&driver.m_deviceCount); rc != CUDA_SUCCESS) {
    driver.m_state = State::InitFailed;
    driver.m_initResult = rc;
    driver.m_error = "cuDeviceGetCount: " + driver.describe(rc);
    driver.m_deviceCount = 0;
    return driver;
  }
  driver.m_state = State::Ready;
  return driver;
}

std::string CudaDriver::describe(CUresult code) const {
  const char* name = nullptr;
  const char* text = nullptr;
  if (m_errorName != nullptr) {
    m_errorName(code, &name);
  }
  if (m_errorString != nullptr) {
    m_errorString(code, &text);
  }
  if (name == nullptr) {
    return fathom::detail::concat("CUresult ", static_cast<int>(code));
  }
  return text != nullptr ? fathom::detail::concat(name, ": ", text) : std::string(name);
}

trace::DeviceProperties CudaDriver::properties(int ordinal) const {
  FATHOM_ASSERT(m_state == State::Ready && ordinal >= 0 && ordinal < m_deviceCount, "device ", ordinal, " of ",
                m_deviceCount);
  trace::DeviceProperties props;
  props.id = ordinal;
  CUdevice device = 0;
  if (m_get(&device, ordinal) != CUDA_SUCCESS) {
    return props;
  }
  char name[256] = {};
  if (m_getName(name, static_cast<int>(sizeof(name)) - 1, device) == CUDA_SUCCESS) {
    props.name = name;
  }
  std::size_t bytes = 0;
  if (m_totalMem(&bytes, device) == CUDA_SUCCESS) {
    props.totalGlobalMem = bytes;
  }
  // An attribute the driver does not know leaves the field at 0 (older drivers lack the newest attributes).
  const auto attribute = [&](CUdevice_attribute which) {
    int value = 0;
    return m_getAttribute(&value, which, device) == CUDA_SUCCESS ? value : 0;
  };
  props.computeMajor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  props.computeMinor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  props.numSms = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  props.maxThreadsPerBlock = attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  props.maxThreadsPerMultiprocessor = attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
  props.regsPerBlock = attribute(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
  props.regsPerMultiprocessor = attribute(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
  props.warpSize = attribute(CU_DEVICE_ATTRIBUTE_WARP_SIZE);
  props.sharedMemPerBlock = static_cast<std::uint64_t>(attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK));
  props.sharedMemPerMultiprocessor =
      static_cast<std::uint64_t>(attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR));
  props.sharedMemPerBlockOptin =
      static_cast<std::uint64_t>(attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN));
  return props;
}

}  // namespace fathom::profile::detail

#endif  // FATHOM_CUPTI_TRACING
