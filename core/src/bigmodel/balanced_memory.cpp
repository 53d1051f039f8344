// SPDX-License-Identifier: Apache-2.0
#include <fathom/bigmodel/balanced_memory.h>

#include <fathom/common/error.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace fathom::bigmodel {

namespace {

/// Names with no other name below them ("a" has "a.b" below it), "" never one: Accelerate's leaves of a size dict.
std::vector<std::string> leaves(const std::vector<std::pair<std::string, ByteCount>>& entries) {
  std::set<std::string> names;
  for (const auto& [name, size] : entries) {
    names.insert(name);
  }
  std::vector<std::string> out;
  for (const auto& [name, size] : entries) {
    if (name.empty()) {
      continue;
    }
    const std::string below = name + ".";
    const auto next = names.lower_bound(below);
    if (next == names.end() || !next->starts_with(below)) {
      out.push_back(name);
    }
  }
  return out;
}

/// The class Python reports for a name in the sizes dict: a module's class, "Parameter" or "Tensor" for a tensor.
std::string classOf(const ModuleTree& tree, const std::string& name) {
  if (const auto index = tree.findModule(name)) {
    return tree.module(*index).className;
  }
  const std::size_t dot = name.rfind('.');
  const auto owner = tree.findModule(dot == std::string::npos ? std::string() : name.substr(0, dot));
  const std::string local = dot == std::string::npos ? name : name.substr(dot + 1);
  if (owner) {
    const auto& params = tree.module(*owner).parameters;
    if (std::any_of(params.begin(), params.end(), [&](const TensorInfo& t) { return t.name == local; })) {
      return "Parameter";
    }
  }
  return "Tensor";
}

ByteCount& limitRef(MaxMemory& maxMemory, int gpu) {
  const auto it = std::find_if(maxMemory.begin(), maxMemory.end(),
                               [&](const MemoryLimit& l) { return l.device == DeviceKey::gpu(gpu); });
  FATHOM_CHECK(it != maxMemory.end(), ConfigError, "get_balanced_memory with low_zero needs a limit for GPU ", gpu);
  return it->bytes;
}

}  // namespace

MaxMemory getBalancedMemory(const ModuleTree& tree, const MaxMemory& maxMemory, const BalancedMemoryOptions& options) {
  MaxMemory result = normalizeMaxMemory(maxMemory);
  std::vector<int> gpus;  // the GPUs with memory, ascending (result is in device order)
  for (const MemoryLimit& limit : result) {
    if (limit.device.isGpu() && limit.bytes > 0) {
      gpus.push_back(limit.device.index());
    }
  }
  const auto n = static_cast<int>(gpus.size());
  if (n == 0) {
    return result;
  }
  const bool lowZero = options.lowZero && n > 1;

  const ModuleSizes sizes = computeModuleSizes(tree, options.dtype, options.specialDtypes);
  const ByteCount total = sizes[""];
  ByteCount perGpu = std::floor(total / (lowZero ? n - 1 : n));

  // S: the first module of each no-split class in the sizes' key order; the largest of those.
  std::map<std::string, ByteCount> noSplitSizes;
  for (const auto& [name, size] : sizes.entries()) {
    if (name.empty() || options.noSplitModuleClasses.empty()) {
      continue;
    }
    const std::string cls = classOf(tree, name);
    const auto& classes = options.noSplitModuleClasses;
    if (std::find(classes.begin(), classes.end(), cls) != classes.end()) {
      noSplitSizes.emplace(cls, size);
    }
  }
  ByteCount largestNoSplit = 0;
  for (const auto& [cls, size] : noSplitSizes) {
    largestNoSplit = std::max(largestNoSplit, size);
  }

  // The leaves of the sizes are tensors; without them, the leaves are the last modules.
  const std::vector<std::string> tensorLeaves = leaves(sizes.entries());
  const std::set<std::string> dropped(tensorLeaves.begin(), tensorLeaves.end());
  std::vector<std::pair<std::string, ByteCount>> modules;
  std::copy_if(sizes.entries().begin(), sizes.entries().end(), std::back_inserter(modules),
               [&](const auto& entry) { return !dropped.contains(entry.first); });
  const std::vector<std::string> moduleLeaves = leaves(modules);
  ByteCount leafTotal = 0;
  for (const std::string& leaf : moduleLeaves) {
    leafTotal += sizes[leaf];
  }
  const ByteCount meanLeaf =
      std::trunc(leafTotal / static_cast<ByteCount>(std::max<std::size_t>(moduleLeaves.size(), 1)));
  perGpu += std::trunc(1.25 * std::max(largestNoSplit, meanLeaf));

  // Every GPU but the last is capped; the last keeps its limit in case the buffer was not enough.
  for (int i = 0; i + 1 < n; ++i) {
    ByteCount& limit = limitRef(result, gpus[static_cast<std::size_t>(i)]);
    const ByteCount cap = lowZero && gpus[static_cast<std::size_t>(i)] == 0 ? limit : perGpu;
    limit = std::min(cap, limit);
  }
  if (lowZero) {
    // As Accelerate does, GPUs 1..n-1 by index (not the GPUs that have memory).
    ByteCount others = 0;
    for (int i = 1; i < n; ++i) {
      others += limitRef(result, i);
    }
    ByteCount& zero = limitRef(result, 0);
    zero = std::min(std::max(ByteCount{0}, total - others), zero);
  }
  return result;
}

}  // namespace fathom::bigmodel
