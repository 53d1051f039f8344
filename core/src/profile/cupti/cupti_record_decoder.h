// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "profile/cupti/cupti_headers.h"

#if FATHOM_CUPTI_TRACING

#include <fathom/profile/cupti/gpu_activity.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace fathom::profile::detail {

class CuptiLibrary;

/// Turns CUPTI activity records into GpuActivity values: every kind the tracer enables (kernels, copies, memsets,
/// runtime and driver calls, synchronizations, external correlations, overheads). Timestamps are moved onto the
/// profiler clock (subtracting the calibrated offset; 0 when CUPTI's timestamp callback already stamps records
/// with profile::nowNs()). Names are interned in InternedNames::instance(): kernel names demangled
/// (abi::__cxa_demangle, as Kineto writes them), API names without CUPTI's "_v7000" version suffix, copy and
/// memset names in Kineto's form ("Memcpy HtoD (Pageable -> Device)", "Memset (Device)").
///
/// Not thread-safe: one decoder per tracer, used by drain() under the tracer's control mutex.
class CuptiRecordDecoder {
public:
  /// Names an API function: the tracer passes CuptiLibrary::callbackName, tests a table. nullptr = unknown.
  using CallbackNamer = std::function<const char*(CUpti_CallbackDomain domain, std::uint32_t cbid)>;

  /// `clockOffsetNs` = CUPTI timestamp minus profiler clock (see ClockCalibration).
  explicit CuptiRecordDecoder(CallbackNamer namer, std::int64_t clockOffsetNs = 0);

  /// Sets the offset subtracted from every CUPTI timestamp (0 with the timestamp callback).
  void setClockOffset(std::int64_t clockOffsetNs) { m_clockOffsetNs = clockOffsetNs; }
  std::int64_t clockOffset() const { return m_clockOffsetNs; }

  /// Decodes one record into `out`; false (and `out` untouched) for a kind Fathom does not decode.
  bool decode(const CUpti_Activity& record, GpuActivity& out);

  /// What one buffer held.
  struct BufferResult {
    std::size_t decoded = 0;             ///< records appended to `out`
    std::size_t skipped = 0;             ///< records of kinds Fathom does not decode
    CUptiResult status = CUPTI_SUCCESS;  ///< CUPTI_SUCCESS, or the error that ended the walk early
  };
  /// Walks a completed buffer with cuptiActivityGetNextRecord until CUPTI_ERROR_MAX_LIMIT_REACHED, exactly as the
  /// tracer does, appending decoded records to `out`.
  BufferResult decodeBuffer(const CuptiLibrary& library, std::uint8_t* buffer, std::size_t validBytes,
                            std::vector<GpuActivity>& out);

private:
  std::int64_t toProfilerNs(std::uint64_t cuptiNs) const;
  std::string_view kernelName(const char* mangled);
  std::string_view apiName(CUpti_CallbackDomain domain, std::uint32_t cbid);
  std::string_view copyName(MemcpyKind kind, MemoryKind src, MemoryKind dst);
  std::string_view setName(MemoryKind kind);

  /// Resets `out` and fills what every timed record has: kind, times, context, stream, correlation, and the device
  /// when the record has one.
  template <typename Record> void decodeCommon(const Record& record, GpuActivityKind kind, GpuActivity& out) const;
  void decodeKernel(const KernelRecord& record, GpuActivity& out);
  void decodeMemcpy(const MemcpyRecord& record, GpuActivity& out);
  void decodeMemset(const MemsetRecord& record, GpuActivity& out);
  void decodeApi(const ApiRecord& record, GpuActivity& out);
  void decodeSync(const SyncRecord& record, GpuActivity& out);
  void decodeExternal(const ExternalCorrelationRecord& record, GpuActivity& out);
  void decodeOverhead(const OverheadRecord& record, GpuActivity& out);

  CallbackNamer m_namer;
  std::int64_t m_clockOffsetNs = 0;
  /// CUPTI hands the same name pointer to every record of one kernel: cache by pointer, checked by content (a
  /// pointer could be reused after a module unloads).
  struct KernelNameEntry {
    std::string_view mangled;
    std::string_view shown;
  };
  std::unordered_map<const char*, KernelNameEntry> m_kernelNames;
  std::unordered_map<std::uint64_t, std::string_view> m_apiNames;  ///< key: domain << 32 | cbid
  static constexpr std::size_t kMemcpyKinds = 11;
  static constexpr std::size_t kMemoryKinds = 8;
  std::array<std::string_view, kMemcpyKinds * kMemoryKinds * kMemoryKinds> m_copyNames{};
  std::array<std::string_view, kMemoryKinds> m_setNames{};
};

/// The API function name CUPTI gives, without its version suffix: "cudaLaunchKernel_v7000" -> "cudaLaunchKernel".
/// Only a "_v" followed by four or more digits is a version suffix ("cuMemcpyHtoD_v2" is the function's name).
std::string_view stripCallbackVersion(std::string_view name);

}  // namespace fathom::profile::detail

#endif  // FATHOM_CUPTI_TRACING
