// SPDX-License-Identifier: Apache-2.0
#include "profile/cupti/cupti_buffer_pool.h"

#include <algorithm>
#include <utility>

namespace fathom::profile::detail {

void CuptiBufferPool::configure(std::size_t bufferBytes, std::size_t maxTotalBytes) {
  std::lock_guard lock(m_mutex);
  m_bufferBytes = bufferBytes;
  m_maxTotalBytes = maxTotalBytes;
  std::vector<std::uint8_t*> keep;
  for (std::uint8_t* data : m_free) {
    if (m_buffers.at(data).bytes == bufferBytes) {
      keep.push_back(data);
    } else {
      freeLocked(data);
    }
  }
  m_free = std::move(keep);
}

std::uint8_t* CuptiBufferPool::acquire(std::size_t& size) {
  std::lock_guard lock(m_mutex);
  ++m_stats.requested;
  if (!m_free.empty()) {
    std::uint8_t* data = m_free.back();
    m_free.pop_back();
    size = m_buffers.at(data).bytes;
    return data;
  }
  if (m_stats.allocatedBytes + m_bufferBytes > m_maxTotalBytes) {
    ++m_stats.refused;
    size = 0;
    return nullptr;
  }
  Buffer buffer;
  buffer.storage = std::make_unique_for_overwrite<std::uint64_t[]>(m_bufferBytes / sizeof(std::uint64_t));
  buffer.bytes = m_bufferBytes;
  auto* data = reinterpret_cast<std::uint8_t*>(buffer.storage.get());
  m_buffers.emplace(data, std::move(buffer));
  ++m_stats.allocations;
  m_stats.allocatedBytes += m_bufferBytes;
  m_stats.peakAllocatedBytes = std::max(m_stats.peakAllocatedBytes, m_stats.allocatedBytes);
  size = m_bufferBytes;
  return data;
}

void CuptiBufferPool::complete(std::uint8_t* data, std::size_t validBytes, std::uint64_t droppedRecords) {
  std::lock_guard lock(m_mutex);
  m_stats.droppedRecords += droppedRecords;
  const auto it = m_buffers.find(data);
  if (it == m_buffers.end()) {
    ++m_stats.foreign;  // not ours: never free or reuse memory we did not allocate
    return;
  }
  ++m_stats.completed;
  m_stats.validBytes += validBytes;
  if (validBytes == 0) {
    if (it->second.bytes == m_bufferBytes) {
      m_free.push_back(data);
    } else {
      freeLocked(data);  // of a size the pool no longer hands out
    }
    return;
  }
  m_completed.push_back({data, std::min(validBytes, it->second.bytes)});
}

std::vector<CuptiBufferPool::Completed> CuptiBufferPool::takeCompleted() {
  std::lock_guard lock(m_mutex);
  return std::exchange(m_completed, {});
}

void CuptiBufferPool::release(std::uint8_t* data) {
  std::lock_guard lock(m_mutex);
  const auto it = m_buffers.find(data);
  if (it == m_buffers.end()) {
    return;
  }
  // A buffer of an older size (the pool was reconfigured while it was out) is freed instead of reused.
  if (it->second.bytes != m_bufferBytes) {
    freeLocked(data);
    return;
  }
  m_free.push_back(data);
}

void CuptiBufferPool::freeLocked(std::uint8_t* data) {
  const auto it = m_buffers.find(data);
  if (it != m_buffers.end()) {
    m_stats.allocatedBytes -= it->second.bytes;
    m_buffers.erase(it);
  }
}

CuptiBufferPool::Stats CuptiBufferPool::stats() const {
  std::lock_guard lock(m_mutex);
  return m_stats;
}

void CuptiBufferPool::resetStats() {
  std::lock_guard lock(m_mutex);
  const std::uint64_t allocated = m_stats.allocatedBytes;
  m_stats = {};
  m_stats.allocatedBytes = allocated;
  m_stats.peakAllocatedBytes = allocated;
}

}  // namespace fathom::profile::detail
