// SPDX-License-Identifier: Apache-2.0
#include <fathom/bigmodel/optimal_device_map.h>

#include "layer_units.h"

#include <fathom/common/error.h>

namespace fathom::bigmodel {

OptimalDeviceMap optimalDeviceMap(const ModuleTree& tree, const InferOptions& options) {
  FATHOM_CHECK(!options.fallbackAllocation, ConfigError,
               "the optimal strategy places every layer in order; fallback_allocation does not apply to it");
  const MaxMemory limits = normalizeMaxMemory(options.maxMemory);
  const ModuleSizes sizes = computeModuleSizes(tree, options.dtype, options.specialDtypes);
  const std::vector<detail::LayerGroup> groups = detail::layerGroups(tree, sizes, options.noSplitModuleClasses);

  LayerCutProblem problem;
  std::vector<DeviceKey> gpus;
  for (const MemoryLimit& limit : limits) {
    if (limit.device == DeviceKey::cpu()) {
      problem.cpuLimit = limit.bytes;
    } else if (limit.device != DeviceKey::disk()) {  // disk has no limit, as in inferAutoDeviceMap
      gpus.push_back(limit.device);
      problem.gpuLimits.push_back(limit.bytes);
    }
  }
  for (const detail::LayerGroup& group : groups) {
    problem.sizes.push_back(group.bytes);
    problem.reserves.push_back(group.largestLayer);
  }

  OptimalDeviceMap out;
  out.cuts = optimalLayerCuts(problem);
  out.layerGroups = groups.size();
  DeviceMap map;
  ByteCount offloadedBuffers = 0;
  std::size_t gpu = 0;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    while (gpu < gpus.size() && i >= out.cuts.gpuEnds[gpu]) {
      ++gpu;
    }
    const DeviceKey device = gpu < gpus.size() ? gpus[gpu] : i < out.cuts.cpuEnd ? DeviceKey::cpu() : DeviceKey::disk();
    for (const std::string& layer : groups[i].layers) {
      assignDevice(map, layer, device);
      if (gpu == gpus.size() && !options.offloadBuffers && tree.findModule(layer)) {
        offloadedBuffers += computeModuleTotalBufferSize(tree, options.dtype, options.specialDtypes, layer);
      }
    }
  }
  out.result.deviceMap = options.cleanResult ? cleanDeviceMap(std::move(map)) : std::move(map);

  // The buffer warning, by inferAutoDeviceMap's rule: the buffers of the modules on cpu and disk fit no GPU beside
  // what it holds.
  bool fitsSomeGpu = false;
  for (std::size_t j = 0; j < gpus.size(); ++j) {
    fitsSomeGpu = fitsSomeGpu || problem.gpuLimits[j] >= offloadedBuffers + out.cuts.gpuLoads[j];
  }
  if (offloadedBuffers > 0 && !gpus.empty() && !fitsSomeGpu) {
    out.result.bufferWarning = true;
    out.result.bufferWarningBytes = offloadedBuffers;
  }
  return out;
}

}  // namespace fathom::bigmodel
