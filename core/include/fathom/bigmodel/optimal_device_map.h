// SPDX-License-Identifier: Apache-2.0
// The `optimal` device-map strategy, Fathom's own (Accelerate has none like it): the model's layers, in the order
// infer_auto_device_map walks them, cut into contiguous runs over the GPUs, then cpu, then disk, so that the largest
// GPU load (device_load.h) is as small as the limits allow. docs/bigmodel.md, "The optimal strategy".
#pragma once

#include <fathom/bigmodel/infer_device_map.h>
#include <fathom/bigmodel/layer_cuts.h>
#include <fathom/bigmodel/module_tree.h>

#include <cstddef>

namespace fathom::bigmodel {

struct OptimalDeviceMap {
  /// The map, in the form inferAutoDeviceMap gives (cleaned with cleanResult), and the buffer warning by the same
  /// rule; insufficientMemoryMinimums stays empty (no device is tried and left).
  InferResult result;
  /// The cuts over the model's layer groups; cuts.maxGpuLoad is deviceLoads(result.deviceMap).maxGpuLoad.
  LayerCuts cuts;
  std::size_t layerGroups = 0;
};

/// The optimal map for `tree` under options.maxMemory. The layers: the root queue split as far as Accelerate may
/// split it (down to tensors, modules without children and no-split modules; a split module's own buffers kept),
/// layers holding one tied parameter grouped at the first of them. The devices: every limit but cpu and disk is a
/// GPU (mps included, after the GPUs), then cpu when listed, then disk, without limit. Layers go to the GPUs
/// whenever the GPUs can hold them; see optimalLayerCuts for what is optimal. ConfigError for bad limits, and with
/// fallbackAllocation (layers are placed in order here, so it does not apply).
OptimalDeviceMap optimalDeviceMap(const ModuleTree& tree, const InferOptions& options);

}  // namespace fathom::bigmodel
