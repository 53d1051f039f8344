// SPDX-License-Identifier: Apache-2.0
// Resharding on load: a sharded checkpoint saved by N processes re-cut for this run's M (docs/checkpoint.md).
//
// Invariant used throughout: a flat buffer's data elements [0, numel) and the order of its parameters do not depend
// on the number of processes (only the zero padding at its end does, plan::paddedElements), so element e of the
// buffer saved on N processes is element e of the buffer on M processes. Each process reads exactly its new range
// [offset, offset + shard numel) from the old slices that overlap it.
#include "reshard_load.h"

#include <fathom/common/error.h>
#include <fathom/common/terminal_text.h>

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

#include <map>
#include <set>

namespace fathom::train::resharding {

namespace {

/// "state.<i>.<key>" → i, or -1 for another name.
long long stateIndex(const std::string& name) {
  if (name.rfind("state.", 0) != 0)
    return -1;
  const auto dot = name.find('.', 6);
  if (dot == std::string::npos || dot == 6 || name.find_first_not_of("0123456789", 6) != dot)
    return -1;
  try {
    return std::stoll(name.substr(6, dot - 6));
  } catch (const std::exception&) {
    return -1;
  }
}

}  // namespace

parallel::NamedTensors reshardUnits(checkpoint::ShardIndex& index, const std::string& component,
                                    const std::vector<parallel::SteppedShard>& mine) {
  const std::string prefix = component + "/";
  std::set<std::string> here;
  parallel::NamedTensors out;
  for (const parallel::SteppedShard& shard : mine) {
    const std::string key = prefix + shard.name;
    here.insert(key);
    const checkpoint::ShardedTensor* saved = index.find(key);
    FATHOM_CHECK(saved != nullptr, ConfigError, index.path(), ": the checkpoint has no unit '", shard.name, "' of ",
                 component, " (saved with another model or wrapping)");
    const std::string difference = checkpoint::layoutDifference(saved->layout, shard.layout);
    FATHOM_CHECK(difference.empty(), ConfigError, index.path(), ": unit '", shard.name, "' of ", component,
                 " differs: ", difference, " (another model or wrapping)");
    out.emplace_back(shard.name, index.readRange(key, shard.offset, shard.tensor.numel()));
  }
  for (const std::string& key : index.keysWithPrefix(prefix)) {
    FATHOM_CHECK(here.count(key) > 0, ConfigError, index.path(), ": the checkpoint's unit '",
                 terminalSafe(key.substr(prefix.size())), "' of ", component,
                 " is not a unit of this run (another model or wrapping)");
  }
  return out;
}

std::function<void()> stageReshardedModel(checkpoint::ShardIndex& index, const std::string& component,
                                          const std::string& firstFile, parallel::FullyShardedEngine& engine,
                                          c10::Device device) {
  parallel::NamedTensors shards = reshardUnits(index, component, engine.steppedShards());
  std::map<std::string, std::string> layout;
  engine.shardedStateDict(layout);  // this run's own layout: loadShardedStateDict compares against it
  std::vector<std::pair<at::Tensor, at::Tensor>> buffers;  // (the module's buffer, its saved value)
  for (const auto& item : engine.module()->named_buffers(/*recurse=*/true)) {
    const at::Tensor* saved = index.file(firstFile).tensor("buffer." + item.key());
    if (saved == nullptr)
      continue;  // as a same-layout load: a buffer the checkpoint lacks keeps its value
    FATHOM_CHECK(saved->sizes() == item.value().sizes(), ConfigError, (index.folder() / firstFile).string(),
                 ": buffer '", item.key(), "' has shape ", saved->sizes(), ", the model's is ", item.value().sizes());
    buffers.emplace_back(item.value(), saved->to(device));
  }
  return [&engine, shards = std::move(shards), layout = std::move(layout), buffers = std::move(buffers)] {
    engine.loadShardedStateDict(shards, layout);
    const at::NoGradGuard noGrad;
    for (const auto& [buffer, value] : buffers)
      buffer.copy_(value);
  };
}

checkpoint::StateDict reshardOptimizer(checkpoint::ShardIndex& index, const std::string& component,
                                       const checkpoint::StateDict& saved, const std::string& savedFile,
                                       const torch::optim::Optimizer& optimizer,
                                       const std::unordered_map<const c10::TensorImpl*, parallel::SteppedShard>& shards,
                                       const std::unordered_map<const c10::TensorImpl*, std::string>& wholeNames) {
  checkpoint::StateDict out;
  out.values = saved.values;
  std::vector<std::vector<std::int64_t>> shapes;
  std::map<long long, const parallel::SteppedShard*> shardOf;  // parameter index → its shard
  std::map<std::string, long long> wholeIndex;                 // module parameter name → parameter index
  nlohmann::json groupSizes = nlohmann::json::array();
  for (const auto& group : optimizer.param_groups()) {
    groupSizes.push_back(group.params().size());
    for (const at::Tensor& param : group.params()) {
      const auto it = shards.find(param.unsafeGetTensorImpl());
      if (it != shards.end())
        shardOf[static_cast<long long>(shapes.size())] = &it->second;
      if (const auto named = wholeNames.find(param.unsafeGetTensorImpl()); named != wholeNames.end())
        wholeIndex[named->second] = static_cast<long long>(shapes.size());
      shapes.push_back(param.sizes().vec());
    }
  }
  out.values["shapes"] = nlohmann::json(shapes).dump();
  // The saved buffers: parameter index in the saved optimizer → the layout of its flat buffer.
  const std::string prefix = component + "/";
  std::map<long long, const checkpoint::ShardedTensor*> savedBuffer;
  for (const std::string& key : index.keysWithPrefix(prefix))
    savedBuffer[stateIndex(key.substr(prefix.size()))] = index.find(key);
  // A saved buffer this run does not step as a shard is cut into the parameters of its layout, stepped whole here
  // (ZeRO-1/2 on one process, a sharded checkpoint in a DDP run). The saved parameter numbering then no longer
  // applies: every saved state must belong to a buffer, and the groups are renumbered for this optimizer.
  bool unflatten = false;
  for (const auto& [i, buffer] : savedBuffer)
    unflatten = unflatten || shardOf.count(i) == 0;
  // The parameters of saved buffer i (each within its data elements, checked by ShardIndex), with their index here.
  const auto layoutParameters = [&](long long i) {
    std::vector<std::pair<long long, const checkpoint::LayoutParameter*>> out;
    for (const checkpoint::LayoutParameter& p : savedBuffer.at(i)->parameters) {
      const auto it = wholeIndex.find(p.name);
      FATHOM_CHECK(it != wholeIndex.end(), ConfigError, index.path(), ": parameter '", terminalSafe(p.name),
                   "' of a saved buffer is not a parameter this run's optimizer steps (another model)");
      out.emplace_back(it->second, &p);
    }
    return out;
  };
  if (unflatten) {
    nlohmann::json groups = nlohmann::json::parse(saved.values.at("param_groups"));
    FATHOM_CHECK(groups.is_array() && groups.size() == groupSizes.size(), ConfigError, savedFile, ": ", groups.size(),
                 " parameter group(s) saved, the optimizer has ", groupSizes.size());
    std::int64_t next = 0;
    for (std::size_t g = 0; g < groups.size(); ++g) {
      nlohmann::json params = nlohmann::json::array();
      for (std::size_t k = 0; k < groupSizes[g].get<std::size_t>(); ++k)
        params.push_back(next++);
      groups[g]["params"] = std::move(params);
    }
    out.values["param_groups"] = groups.dump();
  }
  for (const auto& [name, t] : saved.tensors) {
    const long long i = stateIndex(name);
    FATHOM_CHECK(i >= 0, ConfigError, savedFile, ": unexpected tensor '", terminalSafe(name),
                 "' (state.<i>.<key> expected)");
    const bool buffer = savedBuffer.count(i) > 0;
    FATHOM_CHECK(buffer || !unflatten, ConfigError, savedFile, ": holds the state of parameter ", i,
                 ", which is not part of a sharded buffer; it cannot be matched to this run's parameters");
    if (!buffer) {
      out.tensors.emplace_back(name, t);  // replicated state of a parameter that is not a shard
    } else if (t.dim() == 0 && shardOf.count(i) > 0) {
      out.tensors.emplace_back(name, t);  // a shard's 0-dim state (AdamW's step), the same on every process
    } else if (t.dim() == 0) {
      const std::string key = name.substr(name.find('.', 6) + 1);
      for (const auto& [j, parameter] : layoutParameters(i))
        out.tensors.emplace_back("state." + std::to_string(j) + "." + key, t.clone());
    }
  }
  std::set<long long> cut;
  for (const std::string& key : index.keysWithPrefix(prefix)) {
    const std::string name = key.substr(prefix.size());
    const long long i = stateIndex(name);
    const checkpoint::ShardedTensor* entry = index.find(key);
    cut.insert(i);
    const auto it = shardOf.find(i);
    if (it == shardOf.end()) {
      const std::string stateKey = name.substr(name.find('.', 6) + 1);
      for (const auto& [j, parameter] : layoutParameters(i))
        out.tensors.emplace_back("state." + std::to_string(j) + "." + stateKey,
                                 index.readRange(key, parameter->offset, parameter->numel).view(parameter->shape));
      continue;
    }
    const std::string difference = checkpoint::layoutDifference(entry->layout, it->second->layout);
    FATHOM_CHECK(difference.empty(), ConfigError, index.path(), ": '", terminalSafe(key), "' belongs to buffer '",
                 it->second->name, "', which differs: ", difference, " (another model or wrapping)");
    out.tensors.emplace_back(
        name,
        index.readRange(key, it->second->offset, it->second->tensor.numel()).to(it->second->tensor.scalar_type()));
  }
  for (const auto& [name, t] : saved.tensors) {
    const long long i = stateIndex(name);
    FATHOM_CHECK(savedBuffer.count(i) == 0 || t.dim() == 0 || cut.count(i) > 0, ConfigError, index.path(),
                 ": has no entry for ", component, "/", terminalSafe(name), " (", savedFile, " holds it)");
  }
  return out;
}

std::uint64_t reshardSeed(int rank, std::int64_t optimizerSteps) {
  // splitmix64 of (steps, rank): distinct, fixed, and unlike any small seed a user picks.
  std::uint64_t z = static_cast<std::uint64_t>(optimizerSteps) * 0x9E3779B97F4A7C15ULL +
                    static_cast<std::uint64_t>(rank) + 0x5EED'0000'0000ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return (z ^ (z >> 31)) & 0x7FFF'FFFF'FFFF'FFFFULL;
}

}  // namespace fathom::train::resharding
