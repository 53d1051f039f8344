// SPDX-License-Identifier: Apache-2.0
// infer_auto_device_map, step by step as Accelerate takes it (line numbers are modeling.py's at commit 16cb6eb8).
#include <fathom/bigmodel/infer_device_map.h>

#include "fallback_allocate.h"
#include "planning_queue.h"

#include <fathom/common/error.h>

#include <algorithm>
#include <map>

namespace fathom::bigmodel {

namespace {

using detail::isSplittable;
using detail::modulesOnly;
using detail::splitEntries;

bool isOffloadDevice(const DeviceKey& d) {
  return d == DeviceKey::cpu() || d == DeviceKey::disk();
}

void popFront(std::vector<std::string>& queue, std::string& into) {
  into = std::move(queue.front());
  queue.erase(queue.begin());
}

/// The planner's state across steps; one object per call.
class Planner {
public:
  Planner(const ModuleTree& tree, const InferOptions& options)
      : m_tree(tree), m_options(options), m_maxMemory(normalizeMaxMemory(options.maxMemory)),
        m_sizes(computeModuleSizes(tree, options.dtype, options.specialDtypes)), m_tied(tree.tiedParameters()) {
    // Devices in order, disk always last (1112-1114); the "GPUs" are every device but cpu and disk, mps included.
    for (const MemoryLimit& limit : m_maxMemory) {
      m_devices.push_back(limit.device);
    }
    if (m_devices.empty() || m_devices.back() != DeviceKey::disk()) {
      m_devices.push_back(DeviceKey::disk());
    }
    for (const DeviceKey& d : m_devices) {
      if (!isOffloadDevice(d)) {
        m_gpus.push_back(d);
      }
    }
    // Main devices keep room for the largest layer, so an offloaded layer can be brought in to run (1118-1123).
    m_mainDevices = {DeviceKey::cpu()};
    if (!m_gpus.empty()) {
      m_mainDevices.insert(m_mainDevices.begin(), m_gpus.front());
    }
  }

  InferResult run();

private:
  void recomputeMaxLayer(const std::vector<std::string>& names) {
    MaxLayer layer = getMaxLayerSize(m_tree, names, m_sizes, m_options.noSplitModuleClasses);
    m_maxLayerSize = layer.size;
    m_maxLayerNames = std::move(layer.names);
  }
  bool isMain(const DeviceKey& d) const {
    return std::find(m_mainDevices.begin(), m_mainDevices.end(), d) != m_mainDevices.end();
  }
  /// One step at the head of the queue (1370-1562).
  void step();
  /// Buffer warning (1569-1587).
  void checkBuffers(InferResult& result) const;

  const ModuleTree& m_tree;
  const InferOptions& m_options;
  MaxMemory m_maxMemory;
  ModuleSizes m_sizes;
  const std::vector<std::vector<std::string>>& m_tied;
  std::vector<DeviceKey> m_devices;
  std::vector<DeviceKey> m_gpus;
  std::vector<DeviceKey> m_mainDevices;

  std::vector<std::string> m_queue;
  std::size_t m_current = 0;
  std::map<DeviceKey, ByteCount> m_used;
  std::map<DeviceKey, ByteCount> m_buffers;
  ByteCount m_maxLayerSize = 0;
  std::vector<std::string> m_maxLayerNames;
  DeviceMap m_map;
  MaxMemory m_minimums;
};

InferResult Planner::run() {
  m_queue = detail::rootQueue(m_tree);
  // The first search sees the whole queue, root tensors included; later ones only modules (1367).
  recomputeMaxLayer(m_queue);

  // Every step places something, splits something, leaves a device or (fallback) moves an entry to the head; the
  // last cannot repeat without end in Accelerate's own cases, but nothing rules it out, so a bound turns a loop
  // that would never finish into an error.
  std::size_t entries = m_tree.modules().size();
  for (const ModuleInfo& m : m_tree.modules()) {
    entries += m.parameters.size() + m.buffers.size();
  }
  const std::size_t bound = 64 * (entries + m_devices.size()) + 1024;
  for (std::size_t steps = 0; !m_queue.empty(); ++steps) {
    FATHOM_CHECK(steps < bound, ConfigError, "infer_auto_device_map: no progress after ", steps,
                 " steps (fallback allocation keeps moving the same modules); try without fallback_allocation");
    step();
  }

  InferResult result;
  result.deviceMap = m_options.cleanResult ? cleanDeviceMap(m_map) : m_map;
  result.insufficientMemoryMinimums = m_minimums;
  checkBuffers(result);
  return result;
}

void Planner::step() {
  std::string name;
  popFront(m_queue, name);

  // The largest layer left may have changed now that `name` is taken (1375-1381): a module's own max layer is not
  // reserved while that module itself is being placed.
  std::erase_if(m_maxLayerNames, [&](const std::string& n) { return n == name || n.starts_with(name + "."); });
  if (m_maxLayerNames.empty()) {
    recomputeMaxLayer(modulesOnly(m_tree, m_queue));
  }
  const ByteCount moduleSize = m_sizes[name];
  const std::vector<std::string> tiedParams = detail::tiedParamsOutside(m_tied, name);

  const DeviceKey device = m_devices[m_current];
  const bool isDisk = device == DeviceKey::disk();
  // Disk has no limit; a main device keeps room for the largest layer (1407-1413).
  ByteCount limit = isDisk ? 0 : *limitOf(m_maxMemory, device);
  ByteCount reserved = 0;
  if (isMain(device)) {
    limit -= m_maxLayerSize;
    reserved = m_maxLayerSize;
  }
  ByteCount& used = m_used[device];
  const SizeWithTies withTies = getModuleSizeWithTies(tiedParams, moduleSize, m_sizes, m_queue);

  // The module and the modules owning its tied parameters fit (1420-1458).
  if (isDisk || used + withTies.size <= limit) {
    used += withTies.size;
    assignDevice(m_map, name, device);
    for (const std::string& tied : withTies.tiedModules) {
      if (const auto at = std::find(m_queue.begin(), m_queue.end(), tied); at != m_queue.end()) {
        m_queue.erase(at);
      }
      assignDevice(m_map, tied, device);
    }
    // Only the primary module's buffers are tallied, and only when it is a module (1451-1458).
    if (!m_options.offloadBuffers && m_tree.findModule(name)) {
      m_buffers[device] += computeModuleTotalBufferSize(m_tree, m_options.dtype, m_options.specialDtypes, name);
    }
    return;
  }

  // The module alone fits but not with its tied modules: split the first tied module that can be split, and retry
  // (1463-1499).
  if (!tiedParams.empty() && used + moduleSize <= limit) {
    for (const std::string& tied : withTies.tiedModules) {
      if (!isSplittable(m_tree, tied, m_options.noSplitModuleClasses)) {
        continue;
      }
      const auto at = std::find(m_queue.begin(), m_queue.end(), tied);
      FATHOM_ASSERT(at != m_queue.end(), "a tied module found in the queue is no longer there");
      const std::vector<std::string> children = splitEntries(m_tree, tied);
      const auto position = m_queue.erase(at);
      m_queue.insert(position, children.begin(), children.end());
      m_queue.insert(m_queue.begin(), name);
      recomputeMaxLayer(modulesOnly(m_tree, m_queue));
      return;
    }
  }

  // The module does not fit: split it into its own parameters and children (its own buffers are dropped), unless
  // it cannot be split (1506-1535).
  if (used + moduleSize >= limit && isSplittable(m_tree, name, m_options.noSplitModuleClasses)) {
    const std::vector<std::string> children = splitEntries(m_tree, name);
    m_queue.insert(m_queue.begin(), children.begin(), children.end());
    recomputeMaxLayer(modulesOnly(m_tree, m_queue));
    return;
  }

  // Nothing placed here yet: look further down the queue for something that fits (1537-1553).
  if (used == 0 && m_options.fallbackAllocation && !isDisk) {
    const ByteCount fallbackLimit = *limitOf(m_maxMemory, device) - std::max(m_maxLayerSize, withTies.size);
    auto pick = detail::fallbackAllocate(m_tree, m_queue, m_sizes, fallbackLimit - used, m_options.noSplitModuleClasses,
                                         m_tied);
    if (pick) {
      m_queue = std::move(pick->remaining);
      m_queue.insert(m_queue.begin(), name);
      m_queue.insert(m_queue.begin(), pick->name);
      return;
    }
  }

  // Move on to the next device, which retries this module; this one keeps its reservation (1556-1561).
  if (used == 0) {
    m_minimums.push_back({device, withTies.size + reserved});
  }
  used += reserved;
  ++m_current;
  m_queue.insert(m_queue.begin(), name);
}

void Planner::checkBuffers(InferResult& result) const {
  const auto bufferOn = [&](const DeviceKey& d) {
    const auto it = m_buffers.find(d);
    return it == m_buffers.end() ? ByteCount{0} : it->second;
  };
  const ByteCount offloaded = bufferOn(DeviceKey::cpu()) + bufferOn(DeviceKey::disk());
  if (offloaded <= 0 || m_options.offloadBuffers) {
    return;
  }
  bool fitsSomeGpu = false;
  for (const MemoryLimit& limit : m_maxMemory) {
    if (isOffloadDevice(limit.device)) {
      continue;
    }
    const auto it = m_used.find(limit.device);
    const ByteCount used = it == m_used.end() ? 0 : it->second;
    fitsSomeGpu = fitsSomeGpu || limit.bytes >= offloaded + used;
  }
  if (!m_gpus.empty() && !fitsSomeGpu) {
    result.bufferWarning = true;
    result.bufferWarningBytes = offloaded;
  }
}

}  // namespace

InferResult inferAutoDeviceMap(const ModuleTree& tree, const InferOptions& options) {
  return Planner(tree, options).run();
}

}  // namespace fathom::bigmodel
