// SPDX-License-Identifier: Apache-2.0
// The one place that knows which LibTorch we compile against. Debian's LibTorch 1.13 (CI, developers) and
// PyTorch 2.x's LibTorch (GPU machines) differ in:
//   * c10d: in 1.13 ProcessGroupGloo/NCCL *are* c10d::ProcessGroup; from 2.0 they are c10d::Backend objects
//     that a ProcessGroup dispatches to. Both expose the same collective signatures, so Fathom talks to the
//     backend object directly (CollectiveBackend) and never to the 2.x dispatching wrapper.
//   * autocast: 1.13 has per-device free functions (set_enabled / set_cpu_enabled, get_autocast_gpu_dtype ...);
//     2.4 added device-generic ones (set_autocast_enabled(device, on), get_autocast_dtype(device)) and
//     deprecated the old ones.
// Everything else in core/ uses the names below and contains no TORCH_VERSION checks.
#pragma once

#include <ATen/autocast_mode.h>
#include <c10/core/Allocator.h>
#include <c10/core/DeviceType.h>
#include <c10/core/ScalarType.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/csrc/distributed/c10d/Types.hpp>
#include <torch/csrc/distributed/c10d/Work.hpp>
#include <torch/optim/optimizer.h>
#include <torch/version.h>

// FATHOM_HAVE_GLOO, not torch's USE_C10D_GLOO: PyTorch 2.x's wheels export USE_C10D_GLOO but ship no gloo
// headers, which ProcessGroupGloo.hpp includes; cmake/FathomTorch.cmake defines FATHOM_HAVE_GLOO where they exist.
#ifdef FATHOM_HAVE_GLOO
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#endif
#ifdef USE_C10D_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

#if TORCH_VERSION_MAJOR >= 2
#include <torch/csrc/distributed/c10d/Backend.hpp>
#endif

#include <chrono>
#include <sstream>
#include <string>
#include <type_traits>

#define FATHOM_TORCH_AT_LEAST(major, minor)                                                                            \
  (TORCH_VERSION_MAJOR > (major) || (TORCH_VERSION_MAJOR == (major) && TORCH_VERSION_MINOR >= (minor)))

namespace fathom::compat {

// ---- c10d -------------------------------------------------------------------------------------------------

#if TORCH_VERSION_MAJOR >= 2
/// The object that runs collectives (ProcessGroupGloo, ProcessGroupNCCL).
using CollectiveBackend = c10d::Backend;
#else
using CollectiveBackend = c10d::ProcessGroup;
#endif

/// Whether this LibTorch was compiled with c10d's Gloo / NCCL backends.
#ifdef FATHOM_HAVE_GLOO
inline constexpr bool kHasGloo = true;
#else
inline constexpr bool kHasGloo = false;
#endif
#ifdef USE_C10D_NCCL
inline constexpr bool kHasNccl = true;
#else
inline constexpr bool kHasNccl = false;
#endif

/// TCPStore options with the fields common to 1.13 and 2.x. On 2.x the libuv server is kept at its
/// default; `numWorkers` is left unset when `worldSize` <= 0 (clients do not need it).
inline c10d::TCPStoreOptions tcpStoreOptions(std::uint16_t port, bool isServer, int worldSize,
                                             std::chrono::milliseconds timeout, bool waitWorkers) {
  c10d::TCPStoreOptions opts;
  opts.port = port;
  opts.isServer = isServer;
  if (worldSize > 0) {
    opts.numWorkers = static_cast<std::size_t>(worldSize);
  }
  opts.waitWorkers = waitWorkers;
  opts.timeout = timeout;
  return opts;
}

#ifdef FATHOM_HAVE_GLOO
/// A Gloo backend whose transport binds to `hostname` (an address or host name of this machine).
inline c10::intrusive_ptr<CollectiveBackend> makeGlooBackend(const c10::intrusive_ptr<c10d::Store>& store, int rank,
                                                             int size, std::chrono::milliseconds timeout,
                                                             const std::string& hostname) {
  auto options = c10d::ProcessGroupGloo::Options::create(timeout);
  options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname(hostname));
  return c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, size, options);
}
#endif

#ifdef USE_C10D_NCCL
inline c10::intrusive_ptr<CollectiveBackend> makeNcclBackend(const c10::intrusive_ptr<c10d::Store>& store, int rank,
                                                             int size, std::chrono::milliseconds timeout) {
  auto options = c10d::ProcessGroupNCCL::Options::create();
  options->timeout = timeout;
  return c10::make_intrusive<c10d::ProcessGroupNCCL>(store, rank, size, options);
}
#endif

// ---- autocast ---------------------------------------------------------------------------------------------

inline bool isAutocastEnabled(c10::DeviceType device) {
#if FATHOM_TORCH_AT_LEAST(2, 4)
  return at::autocast::is_autocast_enabled(device);
#else
  switch (device) {
  case c10::DeviceType::CPU: return at::autocast::is_cpu_enabled();
  case c10::DeviceType::CUDA: return at::autocast::is_enabled();
  default: return false;
  }
#endif
}

inline void setAutocastEnabled(c10::DeviceType device, bool enabled) {
#if FATHOM_TORCH_AT_LEAST(2, 4)
  at::autocast::set_autocast_enabled(device, enabled);
#else
  switch (device) {
  case c10::DeviceType::CPU: at::autocast::set_cpu_enabled(enabled); break;
  case c10::DeviceType::CUDA: at::autocast::set_enabled(enabled); break;
  default: TORCH_CHECK(false, "autocast is not supported on device type ", device);
  }
#endif
}

inline at::ScalarType autocastDtype(c10::DeviceType device) {
#if FATHOM_TORCH_AT_LEAST(2, 4)
  return at::autocast::get_autocast_dtype(device);
#else
  return device == c10::DeviceType::CPU ? at::autocast::get_autocast_cpu_dtype()
                                        : at::autocast::get_autocast_gpu_dtype();
#endif
}

inline void setAutocastDtype(c10::DeviceType device, at::ScalarType dtype) {
#if FATHOM_TORCH_AT_LEAST(2, 4)
  at::autocast::set_autocast_dtype(device, dtype);
#else
  if (device == c10::DeviceType::CPU) {
    at::autocast::set_autocast_cpu_dtype(dtype);
  } else {
    at::autocast::set_autocast_gpu_dtype(dtype);
  }
#endif
}

/// Entering/leaving an autocast region: the cast cache is cleared when the outermost region exits, as
/// torch.autocast.__exit__ does.
inline int autocastIncrementNesting() {
  return at::autocast::increment_nesting();
}
inline int autocastDecrementNesting() {
  return at::autocast::decrement_nesting();
}
inline void autocastClearCache() {
  at::autocast::clear_cache();
}

/// Whether autocast keeps the low-precision copies of leaf tensors (weights) for the rest of the region
/// (torch.is_autocast_cache_enabled / torch.set_autocast_cache_enabled; same names in 1.13 and 2.x).
inline bool isAutocastCacheEnabled() {
  return at::autocast::is_autocast_cache_enabled();
}
inline void setAutocastCacheEnabled(bool enabled) {
  at::autocast::set_autocast_cache_enabled(enabled);
}

/// CPU autocast to float16: LibTorch 1.13's CPU autocast knows only bfloat16 (set_autocast_cpu_dtype throws
/// "AutocastCPU only support Bfloat16" for anything else); float16 was added to CPU autocast in 2.3.
inline constexpr bool kCpuAutocastSupportsFp16 = FATHOM_TORCH_AT_LEAST(2, 3);

// ---- allocator reporting ------------------------------------------------------------------------------------

namespace detail {
template <typename F> struct ReportMemoryUsageArgs;
template <typename C, typename R, typename Ptr, typename Size, typename Total, typename Reserved, typename Device>
struct ReportMemoryUsageArgs<R (C::*)(Ptr, Size, Total, Reserved, Device)> {
  using TotalType = Total;
};
}  // namespace detail

/// The type of c10::MemoryReportingInfoBase::reportMemoryUsage's total_allocated / total_reserved parameters:
/// int64_t in LibTorch 1.13, size_t in 2.x. Overrides declare them with this type.
using MemoryTotal =
    typename detail::ReportMemoryUsageArgs<decltype(&c10::MemoryReportingInfoBase::reportMemoryUsage)>::TotalType;

// ---- optimizer state ---------------------------------------------------------------------------------------

/// The key torch::optim::Optimizer::state() files a parameter's state under: its TensorImpl's address, as text in
/// 1.13 (c10::guts::to_string, gone in 2.x) and as the pointer itself where the map is keyed by void*.
/// (A template only so that `if constexpr` discards the other LibTorch's branch.)
template <typename Optimizer = torch::optim::Optimizer> auto optimizerStateKey(const at::Tensor& parameter) {
  using Key = typename std::decay_t<decltype(std::declval<const Optimizer&>().state())>::key_type;
  if constexpr (std::is_same_v<Key, std::string>) {
    std::ostringstream text;
    text << parameter.unsafeGetTensorImpl();
    return text.str();
  } else {
    return static_cast<Key>(parameter.unsafeGetTensorImpl());
  }
}

}  // namespace fathom::compat
