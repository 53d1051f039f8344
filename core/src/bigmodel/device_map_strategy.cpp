// SPDX-License-Identifier: Apache-2.0
#include <fathom/bigmodel/device_map_strategy.h>

#include <fathom/bigmodel/balanced_memory.h>
#include <fathom/bigmodel/optimal_device_map.h>
#include <fathom/common/error.h>

#include <array>
#include <utility>

namespace fathom::bigmodel {

namespace {

constexpr std::array<std::pair<DeviceMapStrategy, std::string_view>, 5> kNames{{
    {DeviceMapStrategy::Auto, "auto"},
    {DeviceMapStrategy::Balanced, "balanced"},
    {DeviceMapStrategy::BalancedLow0, "balanced_low_0"},
    {DeviceMapStrategy::Sequential, "sequential"},
    {DeviceMapStrategy::Optimal, "optimal"},
}};

}  // namespace

std::string_view strategyName(DeviceMapStrategy strategy) {
  for (const auto& [s, name] : kNames) {
    if (s == strategy) {
      return name;
    }
  }
  FATHOM_ASSERT(false, "a DeviceMapStrategy without a name");
  return {};
}

std::optional<DeviceMapStrategy> strategyFromName(std::string_view name) {
  for (const auto& [s, n] : kNames) {
    if (n == name) {
      return s;
    }
  }
  return std::nullopt;
}

DeviceMapStrategy parseStrategy(std::string_view name) {
  if (const auto s = strategyFromName(name)) {
    return *s;
  }
  std::string choices;
  for (const auto& [s, n] : kNames) {
    choices += (choices.empty() ? "" : ", ") + std::string(n);
  }
  throw ConfigError(detail::concat("unknown device-map strategy '", name, "' (expected one of ", choices, ")"));
}

std::vector<std::string> strategyNames() {
  std::vector<std::string> out;
  for (const auto& [s, n] : kNames) {
    out.emplace_back(n);
  }
  return out;
}

StrategyResult planDeviceMap(const ModuleTree& tree, DeviceMapStrategy strategy, const InferOptions& options) {
  StrategyResult out;
  out.strategy = strategy;
  if (strategy == DeviceMapStrategy::Optimal) {
    out.maxMemory = normalizeMaxMemory(options.maxMemory);
    out.result = optimalDeviceMap(tree, options).result;
    out.loads = deviceLoads(tree, out.result.deviceMap, options);
    return out;
  }
  // load_checkpoint_and_dispatch (accelerate/big_modeling.py at commit 2671c40c, lines 490-506): a name other than
  // the four is refused; every one but "sequential" first calls get_balanced_memory(model, max_memory,
  // no_split_module_classes, dtype, low_zero=(device_map == "balanced_low_0")); then infer_auto_device_map(model,
  // max_memory, no_split_module_classes, dtype) with those limits. "auto" and "balanced" are thus one strategy.
  InferOptions planned = options;
  if (strategy != DeviceMapStrategy::Sequential) {
    planned.maxMemory = getBalancedMemory(tree, options.maxMemory,
                                          {.noSplitModuleClasses = options.noSplitModuleClasses,
                                           .dtype = options.dtype,
                                           .specialDtypes = options.specialDtypes,
                                           .lowZero = strategy == DeviceMapStrategy::BalancedLow0});
  }
  out.maxMemory = normalizeMaxMemory(planned.maxMemory);
  out.result = inferAutoDeviceMap(tree, planned);
  out.loads = deviceLoads(tree, out.result.deviceMap, options);
  return out;
}

StrategyGain strategyGain(const StrategyResult& optimal, const StrategyResult& balanced) {
  StrategyGain g;
  g.optimalMaxGpuLoad = optimal.loads.maxGpuLoad;
  g.balancedMaxGpuLoad = balanced.loads.maxGpuLoad;
  g.optimalOffloadedBytes = optimal.loads.offloadedBytes;
  g.balancedOffloadedBytes = balanced.loads.offloadedBytes;
  g.gain = g.balancedMaxGpuLoad > 0 ? (g.balancedMaxGpuLoad - g.optimalMaxGpuLoad) / g.balancedMaxGpuLoad : 0.0;
  return g;
}

StrategyGain optimalGainOverBalanced(const ModuleTree& tree, const InferOptions& options) {
  InferOptions plain = options;
  plain.fallbackAllocation = false;
  return strategyGain(planDeviceMap(tree, DeviceMapStrategy::Optimal, plain),
                      planDeviceMap(tree, DeviceMapStrategy::Balanced, plain));
}

}  // namespace fathom::bigmodel
