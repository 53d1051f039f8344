// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "profile/cupti/cupti_headers.h"

#if FATHOM_CUPTI_TRACING

#include "common/dynamic_library.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fathom::profile::detail {

/// How CUPTI's clock relates to the profiler clock when the timestamp callback is not available:
/// profiler ns = CUPTI ns - offsetNs, to within uncertaintyNs.
struct ClockCalibration {
  std::int64_t offsetNs = 0;       ///< CUPTI timestamp minus profile::nowNs() at the same instant
  std::int64_t uncertaintyNs = 0;  ///< half the narrowest nowNs() bracket around a cuptiGetTimestamp() call
};

/// The CUPTI entry points Fathom uses, resolved from the first libcupti that loads (dlopen: the same binary runs
/// without CUDA). Signatures are the toolkit headers' own (decltype of the declarations), so a mismatch is a
/// compile error rather than a crash.
///
/// Record layouts: Fathom compiles against one toolkit's structs (CUDA 13: CUpti_ActivityKernel10, Memcpy6,
/// Memset4, Synchronization2, Overhead3) and reads only fields that sit at the same offsets in the earlier versions
/// a CUPTI 11.8 / 12.x library returns (checked by static_asserts in cupti_record_decoder.cpp). Libraries older than
/// kMinimumApiVersion are refused.
///
/// Loaded once per process and never unloaded: CUPTI registers itself with the driver and keeps worker threads
/// that call back into this process.
class CuptiLibrary {
public:
  /// CUPTI API version 18 = CUDA 11.8, the oldest whose records the decoder reads correctly.
  static constexpr std::uint32_t kMinimumApiVersion = 18;

  /// The process's instance, loaded from defaultCandidates() on first use (thread-safe). Never throws.
  static const CuptiLibrary& instance();
  /// Loads a library from `candidates` (first that loads wins). Never throws; see loaded() and error().
  static CuptiLibrary load(const std::vector<std::string>& candidates);
  /// libcupti.so.13, .12, .11, libcupti.so, then the same under $CUDA_HOME, $CUDA_PATH and /usr/local/cuda.
  static std::vector<std::string> defaultCandidates();

  CuptiLibrary(CuptiLibrary&&) noexcept = default;
  CuptiLibrary& operator=(CuptiLibrary&&) noexcept = default;

  /// The library loaded, every required entry point resolved and its version is supported.
  bool loaded() const { return m_error.empty(); }
  /// Why not loaded(): "libcupti not found: ...", "<path> has no cuptiGetTimestamp", ...
  const std::string& error() const { return m_error; }
  /// The file the loader mapped.
  const std::string& path() const { return m_lib.path(); }
  /// cuptiGetVersion (0 when it could not be asked).
  std::uint32_t version() const { return m_version; }
  /// "13.0" for API versions from 130000 on, "API 22" before (the numbering changed with CUDA 13).
  std::string versionText() const;

  /// "CUPTI_ERROR_NOT_INITIALIZED (description)" for a result code.
  std::string describe(CUptiResult result) const;
  /// Throws ProfilerError("<call> failed: <describe(result)>") unless result is CUPTI_SUCCESS.
  void check(CUptiResult result, std::string_view call) const;
  /// cuptiGetCallbackName: "cudaLaunchKernel_v7000", "cuLaunchKernel"; nullptr when CUPTI has no name.
  const char* callbackName(CUpti_CallbackDomain domain, std::uint32_t cbid) const;
  /// Offset between cuptiGetTimestamp() and profile::nowNs(), from `tries` bracketed reads (the narrowest wins).
  /// Throws ProfilerError when cuptiGetTimestamp fails.
  ClockCalibration calibrateClock(int tries) const;

  // Entry points; non-null when loaded() (activityRegisterTimestampCallback may be null: the fallback offset is used).
  decltype(&::cuptiGetVersion) getVersion = nullptr;
  decltype(&::cuptiGetResultString) getResultString = nullptr;
  decltype(&::cuptiGetCallbackName) getCallbackName = nullptr;
  decltype(&::cuptiGetTimestamp) getTimestamp = nullptr;
  decltype(&::cuptiActivityEnable) activityEnable = nullptr;
  decltype(&::cuptiActivityDisable) activityDisable = nullptr;
  decltype(&::cuptiActivityRegisterCallbacks) activityRegisterCallbacks = nullptr;
  decltype(&::cuptiActivityRegisterTimestampCallback) activityRegisterTimestampCallback = nullptr;
  decltype(&::cuptiActivityFlushAll) activityFlushAll = nullptr;
  decltype(&::cuptiActivityGetNextRecord) activityGetNextRecord = nullptr;
  decltype(&::cuptiActivityGetNumDroppedRecords) activityGetNumDroppedRecords = nullptr;
  decltype(&::cuptiActivityPushExternalCorrelationId) activityPushExternalCorrelationId = nullptr;
  decltype(&::cuptiActivityPopExternalCorrelationId) activityPopExternalCorrelationId = nullptr;
  decltype(&::cuptiFinalize) finalize = nullptr;

private:
  CuptiLibrary() = default;

  fathom::detail::DynamicLibrary m_lib;
  std::string m_error;
  std::uint32_t m_version = 0;
};

}  // namespace fathom::profile::detail

#endif  // FATHOM_CUPTI_TRACING
