// SPDX-License-Identifier: Apache-2.0
#include "fathom/profile/cupti/gpu_activity.h"

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>

namespace fathom::profile {

namespace {
template <std::size_t N>
std::string_view pick(const std::array<std::string_view, N>& names, std::size_t index, std::string_view fallback) {
  return index < names.size() ? names[index] : fallback;
}
}  // namespace

CuptiThreadId currentCuptiThreadId() {
  // pthread_t is an unsigned long on glibc; CUPTI keeps its low 32 bits (Kineto reads the same bytes).
  const pthread_t self = pthread_self();
  std::uint64_t raw = 0;
  static_assert(sizeof(self) <= sizeof(raw));
  std::memcpy(&raw, &self, sizeof(self));
  return CuptiThreadId{static_cast<std::uint32_t>(raw & 0xFFFFFFFFu)};
}

std::uint64_t currentOsThreadId() {
  thread_local const auto tid = static_cast<std::uint64_t>(::syscall(SYS_gettid));
  return tid;
}

std::string_view toString(GpuActivityKind kind) {
  static constexpr std::array<std::string_view, kGpuActivityKindCount> kNames = {
      "kernel", "memcpy", "memset", "runtime", "driver", "synchronization", "external_correlation", "overhead"};
  return pick(kNames, static_cast<std::size_t>(kind), "unknown");
}

std::string_view toString(MemcpyKind kind) {
  static constexpr std::array<std::string_view, 11> kNames = {"Unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
                                                              "AtoD",    "DtoA", "DtoD", "HtoH", "PtoP"};
  return pick(kNames, static_cast<std::size_t>(kind), "Unknown");
}

std::string_view toString(MemoryKind kind) {
  static constexpr std::array<std::string_view, 8> kNames = {"Unknown", "Pageable", "Pinned",        "Device",
                                                             "Array",   "Managed",  "Device Static", "Managed Static"};
  return pick(kNames, static_cast<std::size_t>(kind), "Unknown");
}

std::string_view toString(SyncKind kind) {
  static constexpr std::array<std::string_view, 5> kNames = {"Unknown Sync", "Event Sync", "Stream Wait Event",
                                                             "Stream Sync", "Context Sync"};
  return pick(kNames, static_cast<std::size_t>(kind), "Unknown Sync");
}

std::string_view toString(OverheadKind kind) {
  static constexpr std::array<std::string_view, kOverheadKindCount> kNames = {
      "Unknown",        "Driver Compiler",       "Buffer Flush",        "Instrumentation", "Resource",
      "Module Loading", "Lazy Function Loading", "Command Buffer Full", "Buffer Request",  "UVM Activity Init"};
  return pick(kNames, static_cast<std::size_t>(kind), "Unknown");
}

std::string_view toString(ExternalKind kind) {
  static constexpr std::array<std::string_view, 6> kNames = {"invalid", "unknown", "openacc",
                                                             "custom0", "custom1", "custom2"};
  return pick(kNames, static_cast<std::size_t>(kind), "unknown");
}

std::string_view toString(OverheadObject kind) {
  static constexpr std::array<std::string_view, 6> kNames = {"unknown", "process", "thread",
                                                             "device",  "context", "stream"};
  return pick(kNames, static_cast<std::size_t>(kind), "unknown");
}

std::string memcpyName(MemcpyKind kind, MemoryKind src, MemoryKind dst) {
  std::string name = "Memcpy ";
  name += toString(kind);
  name += " (";
  name += toString(src);
  name += " -> ";
  name += toString(dst);
  name += ')';
  return name;
}

std::string memsetName(MemoryKind kind) {
  std::string name = "Memset (";
  name += toString(kind);
  name += ')';
  return name;
}

}  // namespace fathom::profile
