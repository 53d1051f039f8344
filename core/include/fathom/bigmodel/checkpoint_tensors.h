// SPDX-License-Identifier: Apache-2.0
// The tensors a safetensors checkpoint holds (names, shapes, dtypes), read from headers alone: one
// model.safetensors, or the shards a model.safetensors.index.json names, checked against each other.
#pragma once

#include <fathom/bigmodel/dtype.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace fathom::bigmodel {

/// One tensor as a checkpoint stores it.
struct CheckpointTensor {
  std::string name;                 ///< the full dotted name, as the file writes it
  std::vector<std::int64_t> shape;  ///< empty for a 0-dim tensor
  Dtype dtype = Dtype::Float32;     ///< the stored dtype
  std::string file;                 ///< the file holding it (its name; the shard for a sharded checkpoint)
};

/// A checkpoint's tensors. Invariant: every tensor once; for a sharded checkpoint, in the index's order, and the index
/// and the shards' headers agree (below); for one file, in the order of its data.
struct CheckpointTensors {
  std::filesystem::path file;  ///< what was read: the .safetensors file or the index
  bool sharded = false;        ///< whether `file` is an index
  std::vector<CheckpointTensor> tensors;
  std::uint64_t bytes = 0;  ///< the bytes of every tensor's data
};

/// Reads the checkpoint at `path`: a .safetensors file, a model.safetensors.index.json (any file ending in .json is
/// read as an index), or a folder holding model.safetensors or, failing that, model.safetensors.index.json (the order
/// transformers looks for them in). Reads headers only, never tensor data.
/// ConfigError naming the path when it is neither. StorageError naming the file, and the tensor where one is at
/// fault, for a header or index that breaks its format (io::readSafetensorsHeader, io::readSafetensorsIndex), a
/// shard the index names that is not there, a tensor the index names that its shard does not hold, a tensor a shard
/// holds that the index maps elsewhere or not at all, and an index whose metadata.total_size is not the bytes the
/// shards hold.
CheckpointTensors readCheckpointTensors(const std::filesystem::path& path);

}  // namespace fathom::bigmodel
