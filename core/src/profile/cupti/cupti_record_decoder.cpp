// SPDX-License-Identifier: Apache-2.0
#include "profile/cupti/cupti_record_decoder.h"

#if FATHOM_CUPTI_TRACING

#include "profile/cupti/cupti_library.h"
#include "profile/interned_names.h"

#include <cxxabi.h>

#include <cctype>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

namespace fathom::profile::detail {

// A CUPTI library returns the newest record version it knows. The decoder reads the headers' version, so every
// field it reads must sit at the same offset, with the same size, in the versions older libraries return (CUPTI
// 11.8 and 12.x: Kernel7-9, Memcpy4-5, Memset2-3, Synchronization, Overhead/Overhead2). Newer libraries append
// fields at the end, which a prefix read ignores.
#if CUPTI_API_VERSION >= 130000
#define FATHOM_SAME_FIELD(Old, field)                                                                                  \
  static_assert(offsetof(Old, field) == offsetof(Current, field) && sizeof(Old::field) == sizeof(Current::field),      \
                #Old "::" #field " moved")
// What kernels, copies and memsets have in common (decodeCommon reads them).
#define FATHOM_GPU_OP_FIELDS(Old)                                                                                      \
  FATHOM_SAME_FIELD(Old, start);                                                                                       \
  FATHOM_SAME_FIELD(Old, end);                                                                                         \
  FATHOM_SAME_FIELD(Old, deviceId);                                                                                    \
  FATHOM_SAME_FIELD(Old, contextId);                                                                                   \
  FATHOM_SAME_FIELD(Old, streamId);                                                                                    \
  FATHOM_SAME_FIELD(Old, correlationId)
namespace kernel_layout {
using Current = KernelRecord;
#define FATHOM_KERNEL_FIELDS(Old)                                                                                      \
  FATHOM_GPU_OP_FIELDS(Old);                                                                                           \
  FATHOM_SAME_FIELD(Old, kind);                                                                                        \
  FATHOM_SAME_FIELD(Old, registersPerThread);                                                                          \
  FATHOM_SAME_FIELD(Old, gridX);                                                                                       \
  FATHOM_SAME_FIELD(Old, gridZ);                                                                                       \
  FATHOM_SAME_FIELD(Old, blockX);                                                                                      \
  FATHOM_SAME_FIELD(Old, blockZ);                                                                                      \
  FATHOM_SAME_FIELD(Old, staticSharedMemory);                                                                          \
  FATHOM_SAME_FIELD(Old, dynamicSharedMemory);                                                                         \
  FATHOM_SAME_FIELD(Old, name);                                                                                        \
  FATHOM_SAME_FIELD(Old, queued)
FATHOM_KERNEL_FIELDS(CUpti_ActivityKernel9);
FATHOM_KERNEL_FIELDS(CUpti_ActivityKernel8);
FATHOM_KERNEL_FIELDS(CUpti_ActivityKernel7);
#undef FATHOM_KERNEL_FIELDS
}  // namespace kernel_layout
namespace memcpy_layout {
using Current = MemcpyRecord;
#define FATHOM_MEMCPY_FIELDS(Old)                                                                                      \
  FATHOM_GPU_OP_FIELDS(Old);                                                                                           \
  FATHOM_SAME_FIELD(Old, copyKind);                                                                                    \
  FATHOM_SAME_FIELD(Old, srcKind);                                                                                     \
  FATHOM_SAME_FIELD(Old, dstKind);                                                                                     \
  FATHOM_SAME_FIELD(Old, bytes);                                                                                       \
  FATHOM_SAME_FIELD(Old, runtimeCorrelationId)
FATHOM_MEMCPY_FIELDS(CUpti_ActivityMemcpy5);
FATHOM_MEMCPY_FIELDS(CUpti_ActivityMemcpy4);
#undef FATHOM_MEMCPY_FIELDS
}  // namespace memcpy_layout
namespace memset_layout {
using Current = MemsetRecord;
#define FATHOM_MEMSET_FIELDS(Old)                                                                                      \
  FATHOM_GPU_OP_FIELDS(Old);                                                                                           \
  FATHOM_SAME_FIELD(Old, value);                                                                                       \
  FATHOM_SAME_FIELD(Old, bytes);                                                                                       \
  FATHOM_SAME_FIELD(Old, memoryKind)
FATHOM_MEMSET_FIELDS(CUpti_ActivityMemset3);
FATHOM_MEMSET_FIELDS(CUpti_ActivityMemset2);
#undef FATHOM_MEMSET_FIELDS
}  // namespace memset_layout
namespace sync_layout {
using Current = SyncRecord;
FATHOM_SAME_FIELD(CUpti_ActivitySynchronization, type);
FATHOM_SAME_FIELD(CUpti_ActivitySynchronization, start);
FATHOM_SAME_FIELD(CUpti_ActivitySynchronization, end);
FATHOM_SAME_FIELD(CUpti_ActivitySynchronization, correlationId);
FATHOM_SAME_FIELD(CUpti_ActivitySynchronization, contextId);
FATHOM_SAME_FIELD(CUpti_ActivitySynchronization, streamId);
FATHOM_SAME_FIELD(CUpti_ActivitySynchronization, cudaEventId);
}  // namespace sync_layout
namespace overhead_layout {
using Current = OverheadRecord;
#define FATHOM_OVERHEAD_FIELDS(Old)                                                                                    \
  FATHOM_SAME_FIELD(Old, overheadKind);                                                                                \
  FATHOM_SAME_FIELD(Old, objectKind);                                                                                  \
  FATHOM_SAME_FIELD(Old, objectId);                                                                                    \
  FATHOM_SAME_FIELD(Old, start);                                                                                       \
  FATHOM_SAME_FIELD(Old, end)
FATHOM_OVERHEAD_FIELDS(CUpti_ActivityOverhead2);
FATHOM_OVERHEAD_FIELDS(CUpti_ActivityOverhead);
#undef FATHOM_OVERHEAD_FIELDS
}  // namespace overhead_layout
#undef FATHOM_GPU_OP_FIELDS
#undef FATHOM_SAME_FIELD
#endif

namespace {

template <typename Enum> Enum clampEnum(std::uint32_t raw, std::uint32_t count, Enum fallback) {
  return raw < count ? static_cast<Enum>(raw) : fallback;
}

MemoryKind memoryKind(std::uint32_t raw) {
  return clampEnum(raw, 8, MemoryKind::Unknown);
}

OverheadKind overheadKind(std::uint32_t raw) {
  // CUpti_ActivityOverheadKind's values (stable ABI; the newest names are missing from older headers).
  switch (raw) {
  case 1: return OverheadKind::DriverCompiler;
  case 1u << 16: return OverheadKind::CuptiBufferFlush;
  case 2u << 16: return OverheadKind::CuptiInstrumentation;
  case 3u << 16: return OverheadKind::CuptiResource;
  case 4u << 16: return OverheadKind::RuntimeTriggeredModuleLoading;
  case 5u << 16: return OverheadKind::LazyFunctionLoading;
  case 6u << 16: return OverheadKind::CommandBufferFull;
  case 7u << 16: return OverheadKind::ActivityBufferRequest;
  case 8u << 16: return OverheadKind::UvmActivityInit;
  default: return OverheadKind::Unknown;
  }
}

}  // namespace

std::string_view stripCallbackVersion(std::string_view name) {
  const auto at = name.rfind("_v");
  if (at == std::string_view::npos || name.size() - at - 2 < 4) {
    return name;
  }
  for (std::size_t i = at + 2; i < name.size(); ++i) {
    if (std::isdigit(static_cast<unsigned char>(name[i])) == 0) {
      return name;
    }
  }
  return name.substr(0, at);
}

CuptiRecordDecoder::CuptiRecordDecoder(CallbackNamer namer, std::int64_t clockOffsetNs)
    : m_namer(std::move(namer)), m_clockOffsetNs(clockOffsetNs) {}

std::int64_t CuptiRecordDecoder::toProfilerNs(std::uint64_t cuptiNs) const {
  // 0 means "no timestamp" in every CUPTI record; keep it 0 so the trace builder can tell.
  return cuptiNs == 0 ? 0 : static_cast<std::int64_t>(cuptiNs) - m_clockOffsetNs;
}

std::string_view CuptiRecordDecoder::kernelName(const char* mangled) {
  if (mangled == nullptr) {
    return "<unnamed kernel>";
  }
  if (const auto it = m_kernelNames.find(mangled); it != m_kernelNames.end() && it->second.mangled == mangled) {
    return it->second.shown;
  }
  auto& interner = InternedNames::instance();
  int status = 0;
  const std::unique_ptr<char, decltype(&std::free)> demangled(abi::__cxa_demangle(mangled, nullptr, nullptr, &status),
                                                              &std::free);
  // status != 0: not a mangled name (extern "C" kernels, PTX entries) or one the demangler refuses: keep it as is.
  const std::string_view shown = interner.intern(status == 0 && demangled ? demangled.get() : mangled);
  m_kernelNames[mangled] = {interner.intern(mangled), shown};
  return shown;
}

std::string_view CuptiRecordDecoder::apiName(CUpti_CallbackDomain domain, std::uint32_t cbid) {
  const std::uint64_t key = (static_cast<std::uint64_t>(domain) << 32) | cbid;
  if (const auto it = m_apiNames.find(key); it != m_apiNames.end()) {
    return it->second;
  }
  const char* raw = m_namer ? m_namer(domain, cbid) : nullptr;
  const std::string fallback =
      std::string(domain == CUPTI_CB_DOMAIN_RUNTIME_API ? "cuda runtime api " : "cuda driver api ") +
      std::to_string(cbid);
  const std::string_view name =
      InternedNames::instance().intern(raw != nullptr ? stripCallbackVersion(raw) : std::string_view(fallback));
  m_apiNames.emplace(key, name);
  return name;
}

std::string_view CuptiRecordDecoder::copyName(MemcpyKind kind, MemoryKind src, MemoryKind dst) {
  auto& slot =
      m_copyNames[(static_cast<std::size_t>(kind) * kMemoryKinds + static_cast<std::size_t>(src)) * kMemoryKinds +
                  static_cast<std::size_t>(dst)];
  if (slot.empty()) {
    slot = InternedNames::instance().intern(memcpyName(kind, src, dst));
  }
  return slot;
}

std::string_view CuptiRecordDecoder::setName(MemoryKind kind) {
  auto& slot = m_setNames[static_cast<std::size_t>(kind)];
  if (slot.empty()) {
    slot = InternedNames::instance().intern(memsetName(kind));
  }
  return slot;
}

bool CuptiRecordDecoder::decode(const CUpti_Activity& record, GpuActivity& out) {
  // CUPTI records are packed structs aligned to 8 bytes whose first member is the kind: reading the kind-specific
  // struct through the generic one is how CUPTI's own samples walk buffers.
  switch (record.kind) {
  case CUPTI_ACTIVITY_KIND_KERNEL:
  case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    decodeKernel(reinterpret_cast<const KernelRecord&>(record), out);
    return true;
  case CUPTI_ACTIVITY_KIND_MEMCPY: decodeMemcpy(reinterpret_cast<const MemcpyRecord&>(record), out); return true;
  case CUPTI_ACTIVITY_KIND_MEMSET: decodeMemset(reinterpret_cast<const MemsetRecord&>(record), out); return true;
  case CUPTI_ACTIVITY_KIND_RUNTIME:
  case CUPTI_ACTIVITY_KIND_DRIVER: decodeApi(reinterpret_cast<const ApiRecord&>(record), out); return true;
  case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: decodeSync(reinterpret_cast<const SyncRecord&>(record), out); return true;
  case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
    decodeExternal(reinterpret_cast<const ExternalCorrelationRecord&>(record), out);
    return true;
  case CUPTI_ACTIVITY_KIND_OVERHEAD: decodeOverhead(reinterpret_cast<const OverheadRecord&>(record), out); return true;
  default: return false;
  }
}

template <typename Record>
void CuptiRecordDecoder::decodeCommon(const Record& record, GpuActivityKind kind, GpuActivity& out) const {
  out = GpuActivity{};
  out.kind = kind;
  out.startNs = toProfilerNs(record.start);
  out.endNs = toProfilerNs(record.end);
  if constexpr (requires { record.deviceId; }) {
    out.device = DeviceIndex{record.deviceId};
  }
  out.context = ContextId{record.contextId};
  out.stream = StreamId{record.streamId};
  out.correlation = CorrelationId{record.correlationId};
}

void CuptiRecordDecoder::decodeKernel(const KernelRecord& record, GpuActivity& out) {
  decodeCommon(record, GpuActivityKind::Kernel, out);
  out.name = kernelName(record.name);
  KernelInfo info;
  info.grid = {record.gridX, record.gridY, record.gridZ};
  info.block = {record.blockX, record.blockY, record.blockZ};
  info.registersPerThread = record.registersPerThread;
  info.staticSharedMemory = record.staticSharedMemory;
  info.dynamicSharedMemory = record.dynamicSharedMemory;
  info.queuedNs = toProfilerNs(record.queued);
  out.detail = info;
}

void CuptiRecordDecoder::decodeMemcpy(const MemcpyRecord& record, GpuActivity& out) {
  decodeCommon(record, GpuActivityKind::Memcpy, out);
  MemcpyInfo info;
  info.copyKind = clampEnum(record.copyKind, 11, MemcpyKind::Unknown);
  info.srcKind = memoryKind(record.srcKind);
  info.dstKind = memoryKind(record.dstKind);
  info.bytes = record.bytes;
  info.runtimeCorrelation = CorrelationId{record.runtimeCorrelationId};
  out.name = copyName(info.copyKind, info.srcKind, info.dstKind);
  out.detail = info;
}

void CuptiRecordDecoder::decodeMemset(const MemsetRecord& record, GpuActivity& out) {
  decodeCommon(record, GpuActivityKind::Memset, out);
  MemsetInfo info;
  info.bytes = record.bytes;
  info.value = record.value;
  info.memoryKind = memoryKind(record.memoryKind);
  out.name = setName(info.memoryKind);
  out.detail = info;
}

void CuptiRecordDecoder::decodeApi(const ApiRecord& record, GpuActivity& out) {
  out = GpuActivity{};
  const bool runtime = record.kind == CUPTI_ACTIVITY_KIND_RUNTIME;
  out.kind = runtime ? GpuActivityKind::Runtime : GpuActivityKind::Driver;
  out.startNs = toProfilerNs(record.start);
  out.endNs = toProfilerNs(record.end);
  out.correlation = CorrelationId{record.correlationId};
  out.name = apiName(runtime ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API, record.cbid);
  ApiInfo info;
  info.cbid = record.cbid;
  info.processId = record.processId;
  info.threadId = CuptiThreadId{record.threadId};
  info.returnValue = record.returnValue;
  out.detail = info;
}

void CuptiRecordDecoder::decodeSync(const SyncRecord& record, GpuActivity& out) {
  decodeCommon(record, GpuActivityKind::Synchronization, out);  // a sync names no device, only its context
  SyncInfo info;
  info.syncKind = clampEnum(static_cast<std::uint32_t>(record.type), 5, SyncKind::Unknown);
  info.cudaEventId = record.cudaEventId;
  out.name = toString(info.syncKind);
  out.detail = info;
}

void CuptiRecordDecoder::decodeExternal(const ExternalCorrelationRecord& record, GpuActivity& out) {
  out = GpuActivity{};
  out.kind = GpuActivityKind::ExternalCorrelation;
  out.correlation = CorrelationId{record.correlationId};
  ExternalCorrelationInfo info;
  info.externalKind = clampEnum(static_cast<std::uint32_t>(record.externalKind), 6, ExternalKind::Unknown);
  info.externalId = ExternalId{record.externalId};
  out.detail = info;
}

void CuptiRecordDecoder::decodeOverhead(const OverheadRecord& record, GpuActivity& out) {
  out = GpuActivity{};
  out.kind = GpuActivityKind::Overhead;
  out.startNs = toProfilerNs(record.start);
  out.endNs = toProfilerNs(record.end);
  OverheadInfo info;
  info.overheadKind = overheadKind(static_cast<std::uint32_t>(record.overheadKind));
  info.object = clampEnum(static_cast<std::uint32_t>(record.objectKind), 6, OverheadObject::Unknown);
  switch (info.object) {
  case OverheadObject::Process:
  case OverheadObject::Thread:
    info.processId = record.objectId.pt.processId;
    info.threadId = CuptiThreadId{record.objectId.pt.threadId};
    break;
  case OverheadObject::Device:
  case OverheadObject::Context:
  case OverheadObject::Stream:
    out.device = DeviceIndex{record.objectId.dcs.deviceId};
    out.context = ContextId{record.objectId.dcs.contextId};
    out.stream = StreamId{record.objectId.dcs.streamId};
    break;
  case OverheadObject::Unknown: break;
  }
  out.name = toString(info.overheadKind);
  out.detail = info;
}

CuptiRecordDecoder::BufferResult CuptiRecordDecoder::decodeBuffer(const CuptiLibrary& library, std::uint8_t* buffer,
                                                                  std::size_t validBytes,
                                                                  std::vector<GpuActivity>& out) {
  BufferResult result;
  if (buffer == nullptr || validBytes == 0) {
    return result;
  }
  CUpti_Activity* record = nullptr;  // CUPTI continues from the record passed in; nullptr starts at the front
  for (;;) {
    const CUptiResult rc = library.activityGetNextRecord(buffer, validBytes, &record);
    if (rc == CUPTI_ERROR_MAX_LIMIT_REACHED) {
      break;  // the normal end of a buffer
    }
    if (rc != CUPTI_SUCCESS) {
      result.status = rc;
      break;
    }
    GpuActivity activity;
    if (decode(*record, activity)) {
      out.push_back(activity);
      ++result.decoded;
    } else {
      ++result.skipped;
    }
  }
  return result;
}

}  // namespace fathom::profile::detail

#endif  // FATHOM_CUPTI_TRACING
