// SPDX-License-Identifier: Apache-2.0
#include <fathom/profile/memory_timeline.h>

#include <algorithm>
#include <limits>
#include <optional>
#include <unordered_map>

namespace fathom::profile {

std::string MemoryDevice::name() const {
  if (type == 0)
    return "cpu";
  const std::string base = type == 1 ? "cuda" : "device" + std::to_string(type);
  return index >= 0 ? base + ":" + std::to_string(index) : base;
}

const DeviceMemorySeries* MemoryTimeline::series(const MemoryDevice& device) const {
  for (const DeviceMemorySeries& s : devices) {
    if (s.device == device)
      return &s;
  }
  return nullptr;
}

MemoryCategory survivorCategory(Phase phase) {
  switch (phase) {
  case Phase::Forward: return MemoryCategory::Activations;
  case Phase::Backward: return MemoryCategory::Gradients;
  case Phase::OptimizerStep: return MemoryCategory::OptimizerStates;
  case Phase::DataLoader: return MemoryCategory::Inputs;
  case Phase::None:
  case Phase::Checkpoint: return MemoryCategory::Other;
  }
  return MemoryCategory::Other;
}

namespace {

constexpr std::int64_t kOpen = std::numeric_limits<std::int64_t>::max();

/// When each phase instance ends and what phase it is.
class PhaseIndex {
public:
  explicit PhaseIndex(const std::vector<PhaseInterval>& phases) : m_phases(phases) {
    std::sort(m_phases.begin(), m_phases.end(), [](const auto& a, const auto& b) { return a.instance < b.instance; });
  }
  /// End of `instance`: the start of the next interval; open for the last; -inf (already over) for an instance
  /// older than every interval listed.
  std::int64_t end(std::uint32_t instance) const {
    auto it = find(instance);
    if (it == m_phases.end())
      return instance < firstInstance() ? std::numeric_limits<std::int64_t>::min() : kOpen;
    ++it;
    return it == m_phases.end() ? kOpen : it->startNs;
  }
  Phase phase(std::uint32_t instance) const {
    auto it = find(instance);
    return it == m_phases.end() ? Phase::None : it->phase;
  }

private:
  std::uint32_t firstInstance() const { return m_phases.empty() ? 0 : m_phases.front().instance; }
  std::vector<PhaseInterval>::const_iterator find(std::uint32_t instance) const {
    auto it = std::lower_bound(m_phases.begin(), m_phases.end(), instance,
                               [](const PhaseInterval& p, std::uint32_t i) { return p.instance < i; });
    return it != m_phases.end() && it->instance == instance ? it : m_phases.end();
  }
  std::vector<PhaseInterval> m_phases;
};

struct Block {
  std::int64_t bytes = 0;
  MemoryCategory category = MemoryCategory::Other;
  MemoryDevice device;
};

class SeriesBuilder {
public:
  DeviceMemorySeries& series(const MemoryDevice& device) {
    for (DeviceMemorySeries& s : m_devices) {
      if (s.device == device)
        return s;
    }
    DeviceMemorySeries& s = m_devices.emplace_back();
    s.device = device;
    return s;
  }
  /// Adds `delta` to a category and records a point at `ns`.
  void change(const MemoryDevice& device, MemoryCategory category, std::int64_t delta, std::int64_t ns) {
    DeviceMemorySeries& s = series(device);
    CategoryBytes now = s.points.empty() ? s.atStart : s.points.back().bytes;
    now[category] += delta;
    point(s, now, ns);
  }
  void move(const MemoryDevice& device, MemoryCategory from, MemoryCategory to, std::int64_t bytes, std::int64_t ns) {
    DeviceMemorySeries& s = series(device);
    CategoryBytes now = s.points.empty() ? s.atStart : s.points.back().bytes;
    now[from] -= bytes;
    now[to] += bytes;
    point(s, now, ns);
  }
  std::vector<DeviceMemorySeries> finish() {
    for (DeviceMemorySeries& s : m_devices)
      s.atEnd = s.points.empty() ? s.atStart : s.points.back().bytes;
    return std::move(m_devices);
  }

private:
  static void point(DeviceMemorySeries& s, const CategoryBytes& bytes, std::int64_t ns) {
    s.points.push_back({ns, bytes});
    for (std::size_t c = 0; c < kMemoryCategoryCount; ++c)
      s.peak.bytes[c] = std::max(s.peak.bytes[c], bytes.bytes[c]);
    s.peakTotal = std::max(s.peakTotal, bytes.total());
  }
  std::vector<DeviceMemorySeries> m_devices;
};

}  // namespace

MemoryTimeline buildMemoryTimeline(const MemoryTimelineInput& input) {
  const PhaseIndex phases(input.phases);
  const std::size_t n = input.events.size();

  // Pass 1: when is each block freed? For every allocation event, and for every pending baseline block.
  std::vector<std::int64_t> freedAt(n, kOpen);
  std::unordered_map<std::uintptr_t, std::int64_t> pendingBaselineFreed;  // ptr -> free ns (pending blocks only)
  {
    std::unordered_map<std::uintptr_t, std::size_t> openAlloc;
    for (const LiveBlock& b : input.baseline) {
      if (b.pendingInstance != 0)
        pendingBaselineFreed[b.ptr] = kOpen;
    }
    for (std::size_t i = 0; i < n; ++i) {
      const AllocatorEvent& e = input.events[i];
      if (e.bytes > 0) {
        openAlloc[e.ptr] = i;
        pendingBaselineFreed.erase(e.ptr);  // the address was reused: the baseline block is gone
      } else if (e.bytes < 0) {
        if (auto it = openAlloc.find(e.ptr); it != openAlloc.end()) {
          freedAt[it->second] = e.ns;
          openAlloc.erase(it);
        } else if (auto p = pendingBaselineFreed.find(e.ptr); p != pendingBaselineFreed.end() && p->second == kOpen) {
          p->second = e.ns;
        }
      }
    }
  }
  auto categoryOfAllocation = [&](const AllocatorEvent& e, std::int64_t freeNs) {
    if (e.hint != AllocatorEvent::kNoHint)
      return static_cast<MemoryCategory>(e.hint);
    return freeNs < phases.end(e.phaseInstance) ? MemoryCategory::Temporaries
                                                : survivorCategory(phases.phase(e.phaseInstance));
  };

  // Pass 2: replay allocations, frees and classifications in time order.
  MemoryTimeline out;
  out.eventCategories.assign(n, MemoryCategory::Other);
  SeriesBuilder builder;
  std::unordered_map<std::uintptr_t, Block> live;
  for (const LiveBlock& b : input.baseline) {
    MemoryCategory category = b.category;
    if (b.pendingInstance != 0) {
      const auto it = pendingBaselineFreed.find(b.ptr);
      const std::int64_t freeNs = it == pendingBaselineFreed.end() ? kOpen : it->second;
      if (freeNs < phases.end(b.pendingInstance))
        category = MemoryCategory::Temporaries;
    }
    live[b.ptr] = {b.bytes, category, b.device};
    builder.series(b.device).atStart[category] += b.bytes;
  }
  std::size_t ci = 0;
  const auto& classes = input.classifications;
  auto applyClassification = [&](const StorageClassification& c) {
    auto it = live.find(c.ptr);
    if (it == live.end()) {
      // Allocated before memory profiling began: Fathom knows its size and what it is.
      live[c.ptr] = {c.bytes, c.category, c.device};
      builder.change(c.device, c.category, c.bytes, c.ns);
    } else if (it->second.category != c.category) {
      builder.move(it->second.device, it->second.category, c.category, it->second.bytes, c.ns);
      it->second.category = c.category;
    }
  };
  for (std::size_t i = 0; i < n; ++i) {
    const AllocatorEvent& e = input.events[i];
    while (ci < classes.size() && classes[ci].ns <= e.ns)
      applyClassification(classes[ci++]);
    if (e.bytes > 0) {
      if (auto old = live.find(e.ptr); old != live.end()) {
        // Reused address whose free was never reported: the old block is gone.
        builder.change(old->second.device, old->second.category, -old->second.bytes, e.ns);
        live.erase(old);
      }
      const MemoryCategory category = categoryOfAllocation(e, freedAt[i]);
      out.eventCategories[i] = category;
      live[e.ptr] = {e.bytes, category, e.device};
      builder.change(e.device, category, e.bytes, e.ns);
    } else if (e.bytes < 0) {
      auto it = live.find(e.ptr);
      if (it == live.end()) {
        ++out.unknownFrees;
        continue;
      }
      out.eventCategories[i] = it->second.category;
      builder.change(it->second.device, it->second.category, -it->second.bytes, e.ns);
      live.erase(it);
    }
  }
  while (ci < classes.size())
    applyClassification(classes[ci++]);
  out.devices = builder.finish();
  // Every series starts with a point at the window's start (the baseline).
  for (DeviceMemorySeries& s : out.devices) {
    if (s.points.empty() || s.points.front().ns > input.startNs) {
      s.points.insert(s.points.begin(), {input.startNs, s.atStart});
      for (std::size_t c = 0; c < kMemoryCategoryCount; ++c)
        s.peak.bytes[c] = std::max(s.peak.bytes[c], s.atStart.bytes[c]);
      s.peakTotal = std::max(s.peakTotal, s.atStart.total());
    }
  }
  return out;
}

}  // namespace fathom::profile
