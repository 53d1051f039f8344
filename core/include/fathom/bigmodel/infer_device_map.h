// SPDX-License-Identifier: Apache-2.0
// Accelerate's device-map planning (accelerate/utils/modeling.py infer_auto_device_map at commit 16cb6eb8), exactly:
// the same map, in the same order, for the same module tree and limits. docs/bigmodel.md summarises the rules;
// tests/data/device_map/accelerate_asserted_cases.json holds the cases Accelerate's own tests assert.
#pragma once

#include <fathom/bigmodel/device_map.h>
#include <fathom/bigmodel/module_sizes.h>
#include <fathom/bigmodel/module_tree.h>

#include <optional>
#include <string>
#include <vector>

namespace fathom::bigmodel {

struct InferOptions {
  /// The devices to fill, each with its limit, in any order (they are used in Accelerate's order: GPUs ascending,
  /// mps, cpu, disk). Disk is always added last, without limit; a device not listed is not used. Accelerate's
  /// default (the free memory of every device) is not read here: the caller measures and passes it.
  MaxMemory maxMemory;
  /// Class names of modules never split across devices (a block with a residual connection, say).
  std::vector<std::string> noSplitModuleClasses;
  /// The dtype the weights will be loaded in (floating-point tensors only ever shrink to it).
  std::optional<Dtype> dtype;
  SpecialDtypes specialDtypes;
  /// Merge names that share a device into their common prefix (clean_device_map).
  bool cleanResult = true;
  /// Leave the buffers of modules placed on cpu or disk there too; only silences the buffer warning.
  bool offloadBuffers = false;
  /// When a device would stay empty, look further down the queue for something that fits (fallback_allocate).
  bool fallbackAllocation = false;
};

struct InferResult {
  DeviceMap deviceMap;
  /// Accelerate's warning that the buffers of modules placed on cpu and disk (bufferWarningBytes) fit no GPU's
  /// remaining memory: they are moved to the GPU when those modules run, and may not fit there.
  bool bufferWarning = false;
  ByteCount bufferWarningBytes = 0;
  /// Each device that got nothing, with what the first module tried there needed (its size with ties, plus the
  /// space the device keeps for the largest layer): Accelerate's "insufficient memory" log.
  MaxMemory insufficientMemoryMinimums;
};

/// The device map Accelerate's infer_auto_device_map gives. ConfigError for bad options (a negative limit, a device
/// listed twice) and where Accelerate itself fails (a tied parameter whose module is no longer queued).
InferResult inferAutoDeviceMap(const ModuleTree& tree, const InferOptions& options);

}  // namespace fathom::bigmodel
