// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/common/memory_category.h>
#include <fathom/profile/annotations.h>

#include <cstdint>
#include <string>
#include <vector>

namespace fathom::profile {

/// A device as the allocator reports it: c10::DeviceType (0 = CPU, 1 = CUDA) and index (-1 = none).
struct MemoryDevice {
  std::uint8_t type = 0;
  std::int16_t index = -1;
  bool operator==(const MemoryDevice&) const = default;
  /// "cpu", "cuda:0", "device<type>:<index>".
  std::string name() const;
};

/// One allocation (bytes > 0) or free (bytes < 0) as the allocator reported it, with the phase it happened in.
struct AllocatorEvent {
  std::int64_t ns = 0;  ///< profiler clock
  std::uintptr_t ptr = 0;
  std::int64_t bytes = 0;
  std::int64_t totalAllocated = 0;  ///< the allocator's own total after the event
  std::int64_t totalReserved = 0;   ///< the caching allocator's reserved bytes (0 on the CPU)
  std::uint32_t phaseInstance = 0;  ///< PhaseInterval::instance current at the event
  MemoryDevice device;
  std::uint8_t hint = kNoHint;  ///< a MemoryCategoryScope's category (as std::uint8_t), or kNoHint
  static constexpr std::uint8_t kNoHint = 0xff;
};

/// Fathom's knowledge of one live storage at `ns` (the model states the Accelerator enumerates: parameters, their
/// gradients, optimizer states). It overrides the phase-derived category from then on.
struct StorageClassification {
  std::int64_t ns = 0;
  std::uintptr_t ptr = 0;
  std::int64_t bytes = 0;  ///< the storage's size (used when the allocator never reported the block)
  MemoryCategory category = MemoryCategory::Other;
  MemoryDevice device;
};

/// One stretch of one phase, from `startNs` to the start of the next interval (the last one is open). Instance
/// numbers grow by one per interval.
struct PhaseInterval {
  std::uint32_t instance = 0;
  Phase phase = Phase::None;
  std::int64_t startNs = 0;
};

/// A block alive when a window starts.
struct LiveBlock {
  std::uintptr_t ptr = 0;
  std::int64_t bytes = 0;
  MemoryDevice device;
  MemoryCategory category = MemoryCategory::Other;  ///< final, unless pendingInstance != 0
  /// The phase instance it was allocated in, while that instance has not ended (its category is decided by
  /// whether it is freed before the instance ends); 0 once final.
  std::uint32_t pendingInstance = 0;
};

/// What buildMemoryTimeline works on: one window's events and what was alive when it began.
struct MemoryTimelineInput {
  std::int64_t startNs = 0;
  std::int64_t endNs = 0;
  std::vector<LiveBlock> baseline;
  std::vector<PhaseInterval> phases;   ///< sorted by instance; covers every instance the events and pending refer to
  std::vector<AllocatorEvent> events;  ///< sorted by ns
  std::vector<StorageClassification> classifications;  ///< sorted by ns
};

/// Bytes by category after one change, on one device.
struct MemorySeriesPoint {
  std::int64_t ns = 0;
  CategoryBytes bytes;
};

/// The memory-over-time series of one device: a point at the window's start, after every allocator event and
/// after every classification that moved bytes between categories.
struct DeviceMemorySeries {
  MemoryDevice device;
  std::vector<MemorySeriesPoint> points;
  CategoryBytes peak;          ///< per category, the highest value of any point
  CategoryBytes atStart;       ///< the baseline
  CategoryBytes atEnd;         ///< the last point
  std::int64_t peakTotal = 0;  ///< the highest total of any point
};

/// The categorized window: a category for every allocator event (input order) and the series per device.
struct MemoryTimeline {
  std::vector<MemoryCategory> eventCategories;
  std::vector<DeviceMemorySeries> devices;
  /// Frees of blocks the timeline never saw allocated (allocated before memory profiling began): ignored.
  std::int64_t unknownFrees = 0;

  /// The series of `device`, or nullptr.
  const DeviceMemorySeries* series(const MemoryDevice& device) const;
};

/// The category an allocation of `phase` gets when it outlives its phase instance: Forward -> Activation, Backward
/// -> Gradient, OptimizerStep -> OptimizerState, DataLoader -> Input, None and Checkpoint -> Other.
MemoryCategory survivorCategory(Phase phase);

/// Categorizes a window's allocations and builds the series (pure; docs/profiler.md, "Memory"):
/// - a MemoryCategoryScope hint wins;
/// - else a block freed before its phase instance ended is Temporary, one that outlives it gets
///   survivorCategory(phase) (a block still alive in an unfinished instance at the window's end keeps that too);
/// - a classification moves a live block's bytes to the classified category from its time on, and adds the block
///   with the classification's bytes if the allocator never reported it (allocated before profiling began).
MemoryTimeline buildMemoryTimeline(const MemoryTimelineInput& input);

}  // namespace fathom::profile
