// SPDX-License-Identifier: Apache-2.0
// The problem behind the `optimal` device-map strategy, on plain numbers: a sequence of layers, in order, is cut into
// contiguous runs, one per GPU (ascending), then one for cpu, then the rest for disk, so that the largest GPU load is
// as small as it can be. docs/bigmodel.md ("The optimal strategy") states it with its proof; optimal_device_map.h
// turns a module tree into such a sequence and the cuts back into a device map.
#pragma once

#include <fathom/bigmodel/dtype.h>

#include <cstddef>
#include <optional>
#include <vector>

namespace fathom::bigmodel {

/// Layers and devices. Invariants (ConfigError otherwise): sizes, reserves and limits are finite and >= 0, and
/// reserves is empty or as long as sizes.
struct LayerCutProblem {
  /// The bytes of each layer, in planning order.
  std::vector<ByteCount> sizes;
  /// What each layer asks the main GPU to keep free when it is offloaded (the size of its largest single layer: a
  /// group of tied layers runs one at a time). Empty: the sizes themselves.
  std::vector<ByteCount> reserves;
  /// Each GPU's limit (max_memory), in device order; a GPU may stay empty.
  std::vector<ByteCount> gpuLimits;
  /// cpu's limit; std::nullopt when cpu is not listed (offloaded layers then all go to disk, which has no limit).
  std::optional<ByteCount> cpuLimit;
};

/// Where the cuts fall. GPU j holds layers [begin_j, gpuEnds[j]) with begin_0 = 0 and begin_j = gpuEnds[j - 1]; cpu
/// holds [offloadBegin(), cpuEnd), disk [cpuEnd, n).
struct LayerCuts {
  std::vector<std::size_t> gpuEnds;
  std::size_t cpuEnd = 0;
  /// Per GPU: its bytes, plus, on the main GPU (the first that holds anything) when any layer is offloaded, the
  /// largest reserve among the offloaded layers. Each is <= its limit.
  std::vector<ByteCount> gpuLoads;
  /// The largest of gpuLoads; 0 without GPUs.
  ByteCount maxGpuLoad = 0;

  /// The first offloaded layer: every layer before it is on a GPU.
  std::size_t offloadBegin() const { return gpuEnds.empty() ? 0 : gpuEnds.back(); }
};

/// The optimal cuts, lexicographically: (1) as many layers on the GPUs as their limits allow (the GPUs' run is a
/// prefix; offloading starts only where the GPUs cannot hold the next layer); (2) for that prefix, the smallest
/// possible largest GPU load (dynamic programming over the cut points, O(GPUs x n^2) at worst, pruned); (3) the
/// cuts themselves are those of a greedy fill up to that load, so each GPU holds as much as the load allows, in
/// order; (4) as many of the offloaded layers on cpu as its limit allows, where cpu keeps room for the largest
/// reserve among the layers on disk. Deterministic.
LayerCuts optimalLayerCuts(const LayerCutProblem& problem);

/// The loads of given cuts, by the rules above (each GPU's bytes, the main GPU's reserve); no limit is checked.
/// ConfigError when the cuts do not fit the problem (not ascending, past the end, a GPU count that differs).
LayerCuts evaluateLayerCuts(const LayerCutProblem& problem, std::vector<std::size_t> gpuEnds, std::size_t cpuEnd);

}  // namespace fathom::bigmodel
