// SPDX-License-Identifier: Apache-2.0
// Resharding on load (docs/checkpoint.md, "Resharding"): the pieces Accelerator::loadState uses when a sharded
// checkpoint was saved by another number of processes. Internal to core/train.
#pragma once

#include <fathom/checkpoint/shard_index.h>
#include <fathom/parallel/data_parallel_engine.h>
#include <fathom/parallel/fully_sharded_engine.h>

#include <c10/core/Device.h>

#include <torch/optim/optimizer.h>

#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

namespace fathom::train::resharding {

/// This process's new shard of every flat buffer in `mine` (FSDP / ZeRO-3 units, in layout order), cut from the
/// checkpoint's "<component>/<name>" entries: elements [offset, offset + numel) of the new padded layout, read from
/// whichever old rank files hold them (padding zero). ConfigError naming index.json and the unit when the
/// checkpoint lacks a unit, has one this run does not, or a unit's layout differs (another model or wrapping).
parallel::NamedTensors reshardUnits(checkpoint::ShardIndex& index, const std::string& component,
                                    const std::vector<parallel::SteppedShard>& mine);

/// Reads and checks everything a resharded load of `engine`'s model needs: reshardUnits' shards, and the buffers
/// from `firstFile` (old rank 0's model file, "buffer.<name>"; ConfigError naming it when a buffer's shape differs).
/// Returns what loads them into the engine; it cannot fail (the layout it passes is the engine's own).
std::function<void()> stageReshardedModel(checkpoint::ShardIndex& index, const std::string& component,
                                          const std::string& firstFile, parallel::FullyShardedEngine& engine,
                                          c10::Device device);

/// The optimizer state this process loads after resharding, in optimizerStateDict's layout: the values
/// (optimizer type, param_groups) and 0-dim tensors ("step") of `saved` (the old rank 0's file, every process
/// steps every shard the same number of times) and the state of parameters that are not shards, with `shapes` this
/// optimizer's; for each parameter that is a shard (`shards`, by TensorImpl), every "<component>/state.<i>.<key>"
/// entry re-cut to this process's range. A saved buffer whose parameter index is not a shard here is cut into the
/// parameters of its layout, found by name in `wholeNames` (the module parameters this optimizer steps whole, by
/// TensorImpl: ZeRO-1/2 on one process, DDP), and the groups' "params" renumbered for this optimizer. ConfigError
/// naming index.json when the layout of a buffer differs from the checkpoint's or names a parameter not stepped
/// here. `savedFile` names the file in messages.
checkpoint::StateDict reshardOptimizer(checkpoint::ShardIndex& index, const std::string& component,
                                       const checkpoint::StateDict& saved, const std::string& savedFile,
                                       const torch::optim::Optimizer& optimizer,
                                       const std::unordered_map<const c10::TensorImpl*, parallel::SteppedShard>& shards,
                                       const std::unordered_map<const c10::TensorImpl*, std::string>& wholeNames);

/// The deterministic seed of the CPU (and CUDA) generators of a process that has no random_states_<rank> file in a
/// resharded load (rank >= the saving world size): a fixed mix of the rank and the checkpoint's optimizer steps.
std::uint64_t reshardSeed(int rank, std::int64_t optimizerSteps);

}  // namespace fathom::train::resharding
