// SPDX-License-Identifier: Apache-2.0
#include <fathom/bigmodel/device_load.h>

#include "layer_units.h"

#include <algorithm>
#include <map>

namespace fathom::bigmodel {

namespace {

bool isOffloaded(const DeviceKey& device) {
  return device == DeviceKey::cpu() || device == DeviceKey::disk();
}

}  // namespace

DeviceLoads deviceLoads(const ModuleTree& tree, const DeviceMap& map, const InferOptions& sizing) {
  const ModuleSizes sizes = computeModuleSizes(tree, sizing.dtype, sizing.specialDtypes);
  std::map<DeviceKey, DeviceLoad> byDevice;
  std::vector<std::string> offloaded;
  for (const DeviceMapEntry& entry : map) {
    DeviceLoad& load = byDevice.try_emplace(entry.device, DeviceLoad{entry.device}).first->second;
    load.bytes += sizes[entry.module];
    if (isOffloaded(entry.device)) {
      offloaded.push_back(entry.module);
    }
  }

  DeviceLoads out;
  // Device order puts GPUs first, then mps: the first one is the main GPU.
  const auto main = std::find_if(byDevice.begin(), byDevice.end(), [](const auto& d) { return !isOffloaded(d.first); });
  if (main != byDevice.end() && !offloaded.empty()) {
    for (const std::string& layer : detail::expandToLayers(tree, offloaded, sizing.noSplitModuleClasses)) {
      main->second.reserved = std::max(main->second.reserved, sizes[layer]);
    }
  }
  for (const auto& [device, load] : byDevice) {
    out.devices.push_back(load);
    if (isOffloaded(device)) {
      out.offloadedBytes += load.bytes;
    } else {
      out.maxGpuLoad = std::max(out.maxGpuLoad, load.load());
    }
  }
  return out;
}

}  // namespace fathom::bigmodel
