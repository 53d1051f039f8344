// SPDX-License-Identifier: Apache-2.0
// A model's weights as Hugging Face stores them (safetensors, sharded with an index past a size), and loading such a
// checkpoint into a built model, one tensor at a time, before dispatching it (Accelerate's save_model,
// load_checkpoint_in_model, load_checkpoint_and_dispatch).
#pragma once

#include <fathom/bigmodel/dispatched_model.h>

#include <torch/nn/module.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <vector>

namespace fathom::bigmodel {

struct SaveModelOptions {
  /// The largest shard in bytes (Accelerate's save_model: max_shard_size="10GB"). A tensor larger than it gets a
  /// shard of its own. Must be > 0.
  std::uint64_t maxShardSize = 10'000'000'000;
};

struct SavedModel {
  std::vector<std::filesystem::path> files;  ///< the safetensors files, in shard order
  std::filesystem::path index;               ///< model.safetensors.index.json; empty for a single file
  std::uint64_t bytes = 0;                   ///< the tensors' bytes (the index's total_size)
};

/// Writes `model`'s state (its parameters and buffers in state_dict order, a tied tensor once under its first name)
/// into `folder` as transformers and Accelerate do: `model.safetensors` when it fits in one shard, else
/// `model-00001-of-0000N.safetensors` ... filled in order as huggingface_hub's split_state_dict_into_shards fills them,
/// plus `model.safetensors.index.json` ({"metadata": {"total_size"}, "weight_map": name -> file, sorted by name}).
/// Each file is written whole or not at all (the index last, so it never names a missing shard); files a previous
/// save left (other shards, the index or the single file) are removed afterwards. Python reads the result with
/// safetensors / transformers. ConfigError for a bad option; StorageError naming the file on an I/O failure.
SavedModel saveModel(const torch::nn::Module& model, const std::filesystem::path& folder,
                     const SaveModelOptions& options = {});

struct LoadedCheckpoint {
  std::size_t files = 0;    ///< safetensors files read
  std::uint64_t bytes = 0;  ///< tensor bytes copied in
  std::size_t tensors = 0;
};

/// Copies the checkpoint at `checkpoint` (a .safetensors file, an index, or a folder with either:
/// readCheckpointTensors) into `model`'s tensors, on whatever device each is (a dtype the checkpoint stores otherwise
/// is converted). Every file is memory-mapped and each tensor's pages are dropped once it is copied, so the host
/// memory it takes beyond the model stays near one tensor's size.
/// Everything is checked before the first tensor is touched (ConfigError naming the tensor and the file; nothing is
/// half-loaded): each checkpoint tensor names a parameter or buffer of the model, each of the model's tensors is in
/// the checkpoint (a tied one under any of its names), shapes agree. The checkpoint's own faults (a missing shard, an
/// index that disagrees with its shards) are StorageErrors naming the file.
LoadedCheckpoint loadCheckpointInModel(torch::nn::Module& model, const std::filesystem::path& checkpoint);

/// loadCheckpointInModel, then a DispatchedModel per `map` (Accelerate's load_checkpoint_and_dispatch).
std::unique_ptr<DispatchedModel> loadCheckpointAndDispatch(const std::shared_ptr<torch::nn::Module>& model,
                                                           const std::filesystem::path& checkpoint,
                                                           const DeviceMap& map, DispatchOptions options = {});

}  // namespace fathom::bigmodel
