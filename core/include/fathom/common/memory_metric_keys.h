// SPDX-License-Identifier: Apache-2.0
// The workspace's memory metric keys (docs/workspace.md, "Memory metric keys"). Every key that names a category is
// made here from memory_category.h's table, so a sample and the planner's prediction of it share the category key:
// `memory/device/parameters_bytes` is what `fathom plan --json` predicts as memory.per_rank_bytes.parameters.
#pragma once

#include <fathom/common/memory_category.h>

#include <optional>
#include <string>
#include <string_view>

namespace fathom {

/// Where a model-state sample was measured.
enum class MemoryPlace {
  Device,  ///< on the compute device (the planner's memory.per_rank_bytes)
  Host,    ///< kept in host memory by offloading (the planner's memory.offloaded_per_rank_bytes)
};

/// "memory/device/parameters_bytes", "memory/host/optimizer_states_bytes": what an engine holds now
/// (fathom::Accelerator::logMemory).
std::string memoryMetricKey(MemoryPlace place, MemoryCategory category);
/// "memory/device/peak_gathered_parameters_bytes": the highest value so far.
std::string peakMemoryMetricKey(MemoryPlace place, MemoryCategory category);
/// "profile/memory/cuda:0/peak_activations_bytes": the profiler's peak of one window on one device.
std::string profiledPeakMetricKey(std::string_view device, MemoryCategory category);
/// "profile/memory/cuda:0/peak_total_bytes": the profiler's peak of the sum over every category.
std::string profiledPeakTotalMetricKey(std::string_view device);

/// What one of the keys above names.
struct MemoryMetricName {
  enum class Kind {
    Current,       ///< memoryMetricKey
    Peak,          ///< peakMemoryMetricKey
    ProfiledPeak,  ///< profiledPeakMetricKey, or profiledPeakTotalMetricKey (no category)
  };
  Kind kind = Kind::Current;
  MemoryPlace place = MemoryPlace::Device;  ///< Current and Peak
  std::string device;                       ///< ProfiledPeak: "cuda:0", "cpu"
  std::optional<MemoryCategory> category;   ///< std::nullopt only for the profiler's total
  bool operator==(const MemoryMetricName&) const = default;
};

/// The inverse of the four functions above: what `key` names, so a reader (the Studio's memory chart) finds the samples
/// of a category without spelling keys itself. std::nullopt for any other key, an earlier release's spelling
/// included (currentMetricKey renames those).
std::optional<MemoryMetricName> parseMemoryMetricKey(std::string_view key);

/// The process as the operating system counts it (resident set size), now and its peak.
inline constexpr std::string_view kRssBytesKey = "memory/rss_bytes";
inline constexpr std::string_view kPeakRssBytesKey = "memory/peak_rss_bytes";
/// The device allocator's counters (a worker's telemetry memory frames).
inline constexpr std::string_view kAllocatedBytesKey = "memory/allocated_bytes";
inline constexpr std::string_view kReservedBytesKey = "memory/reserved_bytes";
inline constexpr std::string_view kPeakAllocatedBytesKey = "memory/peak_allocated_bytes";

/// The current spelling of a metric key an earlier release wrote: the profiler's singular categories
/// (`profile/memory/<device>/peak_parameter_bytes` → `…/peak_parameters_bytes`) and the engines' gathered-parameter
/// peak (`memory/peak_gathered_parameters_bytes` → `memory/device/peak_gathered_parameters_bytes`). std::nullopt
/// when `key` is current (or not a memory key). The workspace's schema migration renames stored keys with it.
std::optional<std::string> currentMetricKey(std::string_view key);

}  // namespace fathom
