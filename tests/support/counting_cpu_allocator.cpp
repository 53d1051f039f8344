// SPDX-License-Identifier: Apache-2.0
#include "counting_cpu_allocator.h"

#include <c10/core/CPUAllocator.h>
#include <c10/util/Exception.h>

#include <atomic>
#include <mutex>
#include <thread>
#include <unordered_map>

namespace fathom::test {

namespace {

struct Block {
  std::size_t bytes = 0;
  c10::DeleterFnPtr innerDeleter = nullptr;
};

/// The process-wide books: the static deleter has no other way to reach them.
struct Books {
  std::mutex mutex;
  std::unordered_map<void*, Block> blocks;
  std::atomic<std::int64_t> live{0};
};

Books& books() {
  static Books* b = new Books;  // never destroyed: tensors may be freed during static destruction
  return *b;
}

void deleteBlock(void* ptr) {
  if (ptr == nullptr)
    return;
  Block block;
  {
    Books& b = books();
    const std::lock_guard lock(b.mutex);
    const auto it = b.blocks.find(ptr);
    TORCH_INTERNAL_ASSERT(it != b.blocks.end(), "CountingCpuAllocator: freeing a block it did not allocate");
    block = it->second;
    b.blocks.erase(it);
    b.live.fetch_sub(static_cast<std::int64_t>(block.bytes));
  }
  block.innerDeleter(ptr);
}

}  // namespace

CountingCpuAllocator::CountingCpuAllocator(c10::Allocator* inner) : m_inner(inner) {}

CountingCpuAllocator& CountingCpuAllocator::install() {
  static CountingCpuAllocator* instance = [] {
    auto* a = new CountingCpuAllocator(c10::GetCPUAllocator());
    // Priority above the default allocator's registration (0), so a later static registration cannot undo it.
    c10::SetCPUAllocator(a, /*priority=*/1);
    return a;
  }();
  return *instance;
}

c10::DataPtr CountingCpuAllocator::allocate(std::size_t bytes) const {
  c10::DataPtr inner = m_inner->allocate(bytes);
  if (inner.get() == nullptr)
    return inner;  // zero bytes: nothing to count
  TORCH_INTERNAL_ASSERT(inner.get() == inner.get_context(),
                        "CountingCpuAllocator: the inner allocator's blocks must be their own context");
  const c10::DeleterFnPtr innerDeleter = inner.get_deleter();
  const c10::Device device = inner.device();
  void* ptr = inner.release_context();
  {
    Books& b = books();
    const std::lock_guard lock(b.mutex);
    b.blocks.emplace(ptr, Block{bytes, innerDeleter});
    b.live.fetch_add(static_cast<std::int64_t>(bytes));
  }
  return {ptr, ptr, &deleteBlock, device};
}

c10::DeleterFnPtr CountingCpuAllocator::raw_deleter() const {
  return &deleteBlock;
}

std::int64_t CountingCpuAllocator::liveBytes() const {
  return books().live.load();
}

std::int64_t CountingCpuAllocator::settledLiveBytes(std::chrono::milliseconds quiet,
                                                    std::chrono::milliseconds limit) const {
  using Clock = std::chrono::steady_clock;
  const auto giveUp = Clock::now() + limit;
  std::int64_t last = liveBytes();
  auto since = Clock::now();
  while (Clock::now() < giveUp) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    const std::int64_t now = liveBytes();
    if (now != last) {
      last = now;
      since = Clock::now();
    } else if (Clock::now() - since >= quiet) {
      break;
    }
  }
  return last;
}

}  // namespace fathom::test
