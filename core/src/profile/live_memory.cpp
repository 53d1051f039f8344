// SPDX-License-Identifier: Apache-2.0
#include "profile/live_memory.h"

namespace fathom::profile::detail {

void LiveMemory::allocated(const AllocatorEvent& event, Phase phase) {
  std::lock_guard lock(m_mutex);
  // A reused address replaces the old block: its free was not reported (allocated on a thread without the reporter).
  m_blocks[event.ptr] = Block{event.bytes, event.device, phase, event.phaseInstance, event.hint, -1};
}

bool LiveMemory::freed(std::uintptr_t ptr) {
  std::lock_guard lock(m_mutex);
  return m_blocks.erase(ptr) > 0;
}

void LiveMemory::classify(const StorageClassification& classification) {
  std::lock_guard lock(m_mutex);
  auto [it, inserted] = m_blocks.try_emplace(classification.ptr);
  if (inserted) {
    it->second.bytes = classification.bytes;
    it->second.device = classification.device;
  }
  it->second.classified = static_cast<std::int16_t>(classification.category);
}

std::vector<LiveBlock> LiveMemory::snapshot(std::uint32_t currentInstance) const {
  std::lock_guard lock(m_mutex);
  std::vector<LiveBlock> blocks;
  blocks.reserve(m_blocks.size());
  for (const auto& [ptr, block] : m_blocks) {
    LiveBlock live{ptr, block.bytes, block.device, MemoryCategory::Other, 0};
    if (block.classified >= 0) {
      live.category = static_cast<MemoryCategory>(block.classified);
    } else if (block.hint != AllocatorEvent::kNoHint) {
      live.category = static_cast<MemoryCategory>(block.hint);
    } else if (block.instance == currentInstance && block.instance != 0) {
      live.category = survivorCategory(block.phase);
      live.pendingInstance = block.instance;
    } else {
      // Alive after its instance ended: it outlived its phase.
      live.category = survivorCategory(block.phase);
    }
    blocks.push_back(live);
  }
  return blocks;
}

std::size_t LiveMemory::size() const {
  std::lock_guard lock(m_mutex);
  return m_blocks.size();
}

}  // namespace fathom::profile::detail
