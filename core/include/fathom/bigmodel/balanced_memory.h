// SPDX-License-Identifier: Apache-2.0
// Accelerate's get_balanced_memory: limits that spread a model evenly over the GPUs instead of filling the first.
#pragma once

#include <fathom/bigmodel/device_key.h>
#include <fathom/bigmodel/module_sizes.h>
#include <fathom/bigmodel/module_tree.h>

#include <optional>
#include <string>
#include <vector>

namespace fathom::bigmodel {

struct BalancedMemoryOptions {
  std::vector<std::string> noSplitModuleClasses;
  std::optional<Dtype> dtype;
  SpecialDtypes specialDtypes;
  /// Keep GPU 0 as empty as the other GPUs allow (it is then free for generation's own tensors). Ignored with one
  /// GPU.
  bool lowZero = false;
};

/// get_balanced_memory, given limits (Accelerate's default of measuring free memory is the caller's job):
/// per_gpu = total // n (n - 1 with lowZero), n counting the GPUs with a limit > 0, plus
/// int(1.25 * max(S, int(mean size of the leaf modules))), S being the size of the first module of each no-split
/// class, the largest of those. Every GPU with a limit > 0 but the last is capped at min(per_gpu, its limit); with
/// lowZero GPU 0 then gets min(its limit, max(0, total - the limits of GPUs 1..n-1)). mps, cpu and disk keep their
/// limits; with no GPU above 0 the limits come back unchanged (in device order). ConfigError for bad limits, and
/// with lowZero when GPU 0 or one of GPUs 1..n-1 is not listed (Accelerate raises KeyError there).
MaxMemory getBalancedMemory(const ModuleTree& tree, const MaxMemory& maxMemory,
                            const BalancedMemoryOptions& options = {});

}  // namespace fathom::bigmodel
