// SPDX-License-Identifier: Apache-2.0
// A model's layers, as the `optimal` strategy and the device loads see them: the entries of infer_auto_device_map's
// queue split as far as Accelerate may split them, so that every placement inferAutoDeviceMap can make is a
// contiguous run of these layers on each device.
#pragma once

#include <fathom/bigmodel/module_sizes.h>
#include <fathom/bigmodel/module_tree.h>

#include <string>
#include <vector>

namespace fathom::bigmodel::detail {

/// `names` with every splittable module (children, class not in `noSplitClasses`) replaced, recursively, by its own
/// parameters, its children and its own buffers; "" stands for the root queue (the root's parameters, children,
/// buffers: Accelerate always splits the root). What remains is a layer: a tensor, a module without children, or a
/// no-split module. Unlike Accelerate's split, a module's own buffers are kept (after its children), so the layers
/// under a name hold every tensor under it.
std::vector<std::string> expandToLayers(const ModuleTree& tree, const std::vector<std::string>& names,
                                        const std::vector<std::string>& noSplitClasses);

/// Layers that must share a device: one layer, or every layer holding a member of one tied-parameter group
/// (transitively). Placed where its first layer is.
struct LayerGroup {
  std::vector<std::string> layers;  ///< in planning order, the first one first
  ByteCount bytes = 0;              ///< the sum of the layers' sizes (each tensor counted once, as sizes count it)
  ByteCount largestLayer = 0;       ///< the size of its largest layer: what it needs on the GPU when offloaded
};

/// The model's layers in planning order (the root queue expanded), tied ones grouped: a group sits at the position
/// of its first layer, as inferAutoDeviceMap places tied modules together with the first of them it meets.
std::vector<LayerGroup> layerGroups(const ModuleTree& tree, const ModuleSizes& sizes,
                                    const std::vector<std::string>& noSplitClasses);

}  // namespace fathom::bigmodel::detail
