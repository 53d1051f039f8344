// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace fathom::profile::detail {

/// The activity buffers Fathom hands to CUPTI, and the ones CUPTI has handed back full.
///
/// Life of a buffer: acquire() (CUPTI's bufferRequested) -> CUPTI fills it -> complete() (bufferCompleted) ->
/// takeCompleted() (the tracer's drain) -> decoded -> release() -> free list -> acquire() again. Buffers are
/// allocated on demand, `bufferBytes` each, while the bytes allocated stay within `maxTotalBytes`; past it acquire()
/// refuses (CUPTI then drops records and counts them in cuptiActivityGetNumDroppedRecords). Nothing is freed until
/// the pool is destroyed or reconfigured with another buffer size, so a steady capture allocates nothing.
///
/// Thread-safe: CUPTI calls acquire()/complete() from its own threads (and from inside cuptiActivityFlushAll on the
/// caller's thread), so nobody may hold the pool's mutex across a call into CUPTI.
class CuptiBufferPool {
public:
  /// Buffers are 8-byte aligned, as CUPTI requires (ACTIVITY_RECORD_ALIGNMENT).
  static constexpr std::size_t kAlignment = 8;

  /// A buffer CUPTI has filled: the first `validBytes` bytes hold records.
  struct Completed {
    std::uint8_t* data = nullptr;
    std::size_t validBytes = 0;
  };

  /// Counters since the last resetStats().
  struct Stats {
    std::uint64_t requested = 0;           ///< acquire() calls
    std::uint64_t refused = 0;             ///< acquire() calls answered with no buffer (cap reached)
    std::uint64_t completed = 0;           ///< complete() calls for buffers of this pool
    std::uint64_t foreign = 0;             ///< complete() calls for pointers this pool never handed out (ignored)
    std::uint64_t allocations = 0;         ///< buffers allocated (a reused buffer counts once)
    std::uint64_t validBytes = 0;          ///< Σ validBytes of completed buffers
    std::uint64_t droppedRecords = 0;      ///< Σ dropped counts passed to complete()
    std::uint64_t allocatedBytes = 0;      ///< bytes allocated now (not reset)
    std::uint64_t peakAllocatedBytes = 0;  ///< most bytes allocated at once since the last reset
  };

  CuptiBufferPool() = default;
  CuptiBufferPool(const CuptiBufferPool&) = delete;
  CuptiBufferPool& operator=(const CuptiBufferPool&) = delete;

  /// Sets the size of new buffers and the cap on all of them. Free buffers of another size are released; buffers
  /// held by CUPTI or waiting to be drained keep their size until they come back. `bufferBytes` must be a positive
  /// multiple of kAlignment and `maxTotalBytes >= bufferBytes` (checked by the tracer's options).
  void configure(std::size_t bufferBytes, std::size_t maxTotalBytes);

  /// A buffer for CUPTI: a free one, else a new one within the cap, else nullptr (counted as refused). `size` is
  /// set to the buffer's size (0 when refused).
  std::uint8_t* acquire(std::size_t& size);
  /// CUPTI is done with `data`: queue it for takeCompleted() (or straight back to the free list when it holds no
  /// records). `droppedRecords` is what cuptiActivityGetNumDroppedRecords reported for it.
  void complete(std::uint8_t* data, std::size_t validBytes, std::uint64_t droppedRecords);
  /// The completed buffers, oldest first. They stay owned by the pool; give each back with release().
  std::vector<Completed> takeCompleted();
  /// Returns a buffer obtained from takeCompleted() to the free list.
  void release(std::uint8_t* data);

  Stats stats() const;
  /// Zeroes the counters (not allocatedBytes); the peak restarts from what is allocated now.
  void resetStats();

private:
  struct Buffer {
    std::unique_ptr<std::uint64_t[]> storage;  // uint64_t gives the 8-byte alignment
    std::size_t bytes = 0;
  };
  void freeLocked(std::uint8_t* data);

  mutable std::mutex m_mutex;
  std::size_t m_bufferBytes = 4u << 20;
  std::size_t m_maxTotalBytes = 256u << 20;
  std::unordered_map<std::uint8_t*, Buffer> m_buffers;  ///< every buffer allocated, by its data pointer
  std::vector<std::uint8_t*> m_free;
  std::vector<Completed> m_completed;
  Stats m_stats;
};

}  // namespace fathom::profile::detail
