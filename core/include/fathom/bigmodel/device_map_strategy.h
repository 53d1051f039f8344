// SPDX-License-Identifier: Apache-2.0
// Device maps by strategy name, as transformers' from_pretrained(device_map="...") and Accelerate's
// load_checkpoint_and_dispatch take them ("auto", "balanced", "balanced_low_0", "sequential"), plus Fathom's own
// "optimal" (optimal_device_map.h). LibTorch-free, like the rest of core/bigmodel.
#pragma once

#include <fathom/bigmodel/device_load.h>
#include <fathom/bigmodel/infer_device_map.h>
#include <fathom/bigmodel/module_tree.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fathom::bigmodel {

enum class DeviceMapStrategy {
  Auto,          ///< "auto": Accelerate treats it as "balanced"
  Balanced,      ///< "balanced": get_balanced_memory's limits, then infer_auto_device_map
  BalancedLow0,  ///< "balanced_low_0": the same with low_zero (GPU 0 kept as empty as the others allow)
  Sequential,    ///< "sequential": infer_auto_device_map on the limits as given (fill GPU 0, then 1, ...)
  Optimal,       ///< "optimal": Fathom's; the smallest largest GPU load (optimalDeviceMap)
};

/// "auto", "balanced", "balanced_low_0", "sequential", "optimal".
std::string_view strategyName(DeviceMapStrategy strategy);
/// The strategy a name stands for (exactly as strategyName writes it), or std::nullopt.
std::optional<DeviceMapStrategy> strategyFromName(std::string_view name);
/// The same, or a ConfigError naming the value and the choices.
DeviceMapStrategy parseStrategy(std::string_view name);
/// Every name, in the enum's order.
std::vector<std::string> strategyNames();

struct StrategyResult {
  DeviceMapStrategy strategy = DeviceMapStrategy::Sequential;
  /// The limits the map was planned with, in device order: get_balanced_memory's for auto, balanced and
  /// balanced_low_0; the given ones otherwise.
  MaxMemory maxMemory;
  InferResult result;
  /// What each device holds under the map (device_load.h), for comparing strategies.
  DeviceLoads loads;
};

/// The map `strategy` gives for `tree`. auto, balanced and balanced_low_0 first replace options.maxMemory by
/// getBalancedMemory(tree, maxMemory, {noSplitModuleClasses, dtype, specialDtypes, lowZero: balanced_low_0}), then
/// all but optimal call inferAutoDeviceMap with the other options unchanged, as load_checkpoint_and_dispatch does
/// (it passes no special dtypes; transformers passes them to both calls). ConfigError for bad options, and what
/// getBalancedMemory, inferAutoDeviceMap and optimalDeviceMap refuse.
StrategyResult planDeviceMap(const ModuleTree& tree, DeviceMapStrategy strategy, const InferOptions& options);

/// optimal against balanced on the same model and options: each one's largest GPU load and offloaded bytes.
struct StrategyGain {
  ByteCount optimalMaxGpuLoad = 0;
  ByteCount balancedMaxGpuLoad = 0;
  ByteCount optimalOffloadedBytes = 0;
  ByteCount balancedOffloadedBytes = 0;
  /// (balanced - optimal) / balanced largest GPU load: the relative reduction optimal gives; 0 when balanced's is 0.
  /// Below 0 only when optimal keeps more on the GPUs (fewer offloaded bytes) than balanced does.
  double gain = 0;
};

/// Both plans' loads; fallbackAllocation is not used for either (optimal refuses it).
StrategyGain optimalGainOverBalanced(const ModuleTree& tree, const InferOptions& options);
/// The same from two plans made already (`balanced` as planDeviceMap gave it for balanced, `optimal` for optimal).
StrategyGain strategyGain(const StrategyResult& optimal, const StrategyResult& balanced);

}  // namespace fathom::bigmodel
