// SPDX-License-Identifier: Apache-2.0
// The allocator's live blocks while memory profiling is on, across windows: what a window's memory timeline starts
// from (its baseline). Private to core/profile.
#pragma once

#include <fathom/profile/memory_timeline.h>

#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace fathom::profile::detail {

/// ptr -> block, fed by the allocator reporter (any thread) and by classifications. Thread-safe.
class LiveMemory {
public:
  /// An allocation in `phase` (instance, hint and device from the event).
  void allocated(const AllocatorEvent& event, Phase phase);
  /// A free; false when the block was never seen (allocated before memory profiling began).
  bool freed(std::uintptr_t ptr);
  /// Fathom's category for a storage; adds the block with the classification's bytes when it is unknown.
  void classify(const StorageClassification& classification);
  /// The live blocks with their categories as of now; blocks of `currentInstance` without a hint or a
  /// classification stay pending (their category depends on whether they outlive the instance).
  std::vector<LiveBlock> snapshot(std::uint32_t currentInstance) const;
  std::size_t size() const;

private:
  struct Block {
    std::int64_t bytes = 0;
    MemoryDevice device;
    Phase phase = Phase::None;
    std::uint32_t instance = 0;
    std::uint8_t hint = AllocatorEvent::kNoHint;
    std::int16_t classified = -1;  ///< a MemoryCategory once classified
  };
  mutable std::mutex m_mutex;
  std::unordered_map<std::uintptr_t, Block> m_blocks;
};

}  // namespace fathom::profile::detail
