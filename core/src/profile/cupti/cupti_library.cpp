// SPDX-License-Identifier: Apache-2.0
#include "profile/cupti/cupti_library.h"

#if FATHOM_CUPTI_TRACING

#include "profile/cupti/symbol_resolver.h"

#include <fathom/common/error.h>
#include <fathom/profile/clock.h>

#include <limits>

namespace fathom::profile::detail {

const CuptiLibrary& CuptiLibrary::instance() {
  // Leaked on purpose: never dlclose()d (see the class comment), and usable from CUPTI's threads at exit.
  static const auto* library = new CuptiLibrary(load(defaultCandidates()));
  return *library;
}

std::vector<std::string> CuptiLibrary::defaultCandidates() {
  return fathom::detail::cudaLibraryCandidates("libcupti.so", {"13", "12", "11"});
}

CuptiLibrary CuptiLibrary::load(const std::vector<std::string>& candidates) {
  CuptiLibrary lib;
  lib.m_lib = fathom::detail::DynamicLibrary::openFirst(candidates);
  if (!lib.m_lib.loaded()) {
    lib.m_error = "libcupti not found: " + lib.m_lib.error();
    return lib;
  }
  SymbolResolver resolve(lib.m_lib);
  resolve(lib.getVersion, "cuptiGetVersion");
  resolve(lib.getResultString, "cuptiGetResultString");
  resolve(lib.getCallbackName, "cuptiGetCallbackName");
  resolve(lib.getTimestamp, "cuptiGetTimestamp");
  resolve(lib.activityEnable, "cuptiActivityEnable");
  resolve(lib.activityDisable, "cuptiActivityDisable");
  resolve(lib.activityRegisterCallbacks, "cuptiActivityRegisterCallbacks");
  // Since CUDA 11.6; without it the tracer calibrates an offset instead.
  resolve(lib.activityRegisterTimestampCallback, "cuptiActivityRegisterTimestampCallback", false);
  resolve(lib.activityFlushAll, "cuptiActivityFlushAll");
  resolve(lib.activityGetNextRecord, "cuptiActivityGetNextRecord");
  resolve(lib.activityGetNumDroppedRecords, "cuptiActivityGetNumDroppedRecords");
  resolve(lib.activityPushExternalCorrelationId, "cuptiActivityPushExternalCorrelationId");
  resolve(lib.activityPopExternalCorrelationId, "cuptiActivityPopExternalCorrelationId");
  resolve(lib.finalize, "cuptiFinalize");
  lib.m_error = resolve.error();
  if (!lib.m_error.empty()) {
    return lib;
  }
  if (const CUptiResult rc = lib.getVersion(&lib.m_version); rc != CUPTI_SUCCESS) {
    lib.m_error = fathom::detail::concat(lib.path(), ": cuptiGetVersion failed: ", lib.describe(rc));
    return lib;
  }
  if (lib.m_version < kMinimumApiVersion) {
    lib.m_error = fathom::detail::concat(lib.path(), " is CUPTI ", lib.versionText(), "; Fathom needs API version ",
                                         kMinimumApiVersion, " (CUDA 11.8) or later");
  }
  return lib;
}

std::string CuptiLibrary::versionText() const {
  if (m_version >= 130000) {  // xxyyzz since CUDA 13.0 (cupti_version.h)
    return fathom::detail::concat(m_version / 10000, ".", (m_version / 100) % 100);
  }
  return fathom::detail::concat("API ", m_version);
}

std::string CuptiLibrary::describe(CUptiResult result) const {
  const char* text = nullptr;
  if (getResultString != nullptr && getResultString(result, &text) == CUPTI_SUCCESS && text != nullptr) {
    return fathom::detail::concat(text, " (", static_cast<int>(result), ")");
  }
  return fathom::detail::concat("CUptiResult ", static_cast<int>(result));
}

void CuptiLibrary::check(CUptiResult result, std::string_view call) const {
  if (result != CUPTI_SUCCESS) {
    throw ProfilerError(fathom::detail::concat(call, " failed: ", describe(result)));
  }
}

const char* CuptiLibrary::callbackName(CUpti_CallbackDomain domain, std::uint32_t cbid) const {
  const char* name = nullptr;
  if (getCallbackName == nullptr || getCallbackName(domain, cbid, &name) != CUPTI_SUCCESS) {
    return nullptr;
  }
  return name;
}

ClockCalibration CuptiLibrary::calibrateClock(int tries) const {
  FATHOM_ASSERT(getTimestamp != nullptr && tries > 0, "calibrateClock needs a loaded CUPTI and tries > 0");
  // The narrowest bracket bounds the error: the CUPTI read happened somewhere inside [before, after], and taking
  // its midpoint is off by at most half the width. Preemption only widens a bracket, so the minimum over N tries
  // discards it.
  ClockCalibration best;
  std::int64_t bestWidth = std::numeric_limits<std::int64_t>::max();
  for (int i = 0; i < tries; ++i) {
    std::uint64_t cupti = 0;
    const std::int64_t before = nowNs();
    const CUptiResult rc = getTimestamp(&cupti);
    const std::int64_t after = nowNs();
    check(rc, "cuptiGetTimestamp");
    if (const std::int64_t width = after - before; width < bestWidth) {
      bestWidth = width;
      best.offsetNs = static_cast<std::int64_t>(cupti) - (before + width / 2);
      best.uncertaintyNs = (width + 1) / 2;
    }
  }
  return best;
}

}  // namespace fathom::profile::detail

#endif  // FATHOM_CUPTI_TRACING
