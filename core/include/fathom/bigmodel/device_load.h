// SPDX-License-Identifier: Apache-2.0
// What each device holds under a device map, any map (Accelerate's strategies' or `optimal`'s), so strategies can be
// compared by one measure: the largest GPU load. docs/bigmodel.md ("What load means") defines it.
#pragma once

#include <fathom/bigmodel/device_map.h>
#include <fathom/bigmodel/infer_device_map.h>
#include <fathom/bigmodel/module_tree.h>

#include <vector>

namespace fathom::bigmodel {

/// One device's share of a map.
struct DeviceLoad {
  DeviceKey device;
  /// The sizes (compute_module_sizes, with the options' dtypes) of the names mapped to the device, summed. A name
  /// stands for everything under it, and sizes count a tied tensor once, so nothing is counted twice.
  ByteCount bytes = 0;
  /// On the main GPU only (the first GPU, or mps, that holds anything: where dispatch runs what is offloaded), when
  /// anything is on cpu or disk: the size of the largest layer there, which must be brought in to run.
  ByteCount reserved = 0;

  ByteCount load() const { return bytes + reserved; }
};

struct DeviceLoads {
  std::vector<DeviceLoad> devices;  ///< every device the map names, in device order
  ByteCount maxGpuLoad = 0;         ///< the largest load() among the GPUs and mps; 0 when the map names none
  ByteCount offloadedBytes = 0;     ///< the bytes on cpu and disk together
};

/// The loads of `map` for `tree`. Reads the options' dtype, specialDtypes and noSplitModuleClasses (the latter
/// decide what a layer is: the names on cpu and disk are split as Accelerate may split them, their own buffers
/// kept); the limits are not read and not checked. A name that is not in the tree counts 0 bytes.
DeviceLoads deviceLoads(const ModuleTree& tree, const DeviceMap& map, const InferOptions& sizing);

}  // namespace fathom::bigmodel
