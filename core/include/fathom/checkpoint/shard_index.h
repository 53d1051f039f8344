// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/checkpoint/checkpoint_folder.h>
#include <fathom/checkpoint/state_dict.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace fathom::checkpoint {

/// One process's slice of a sharded tensor, as index.json lists it.
struct ShardSlice {
  int rank = 0;
  std::string file;  ///< the rank file holding it (a plain name in the checkpoint folder)
  std::string key;   ///< the tensor's name in that file
  std::int64_t offset = 0;
  std::int64_t numel = 0;
};

/// One parameter's place in a sharded tensor's data elements, as its layout lists it.
struct LayoutParameter {
  std::string name;
  std::int64_t offset = 0;
  std::vector<std::int64_t> shape;
  std::int64_t numel = 0;  ///< the product of shape; offset + numel <= the tensor's numel
};

/// One sharded tensor of index.json ("model/<unit>", "optimizer/state.<i>.exp_avg", ...): a flat buffer of
/// `globalNumel` elements (padding included) whose first `numel` are data, cut into the saving processes' slices.
struct ShardedTensor {
  std::int64_t globalNumel = 0;
  std::int64_t numel = 0;                   ///< the layout's "numel": elements that are data (the rest is zero padding)
  std::string layout;                       ///< the layout as saved (JSON text: numel, padded, parameters)
  std::vector<LayoutParameter> parameters;  ///< the layout's parameters, each within [0, numel)
  std::vector<ShardSlice> slices;           ///< sorted by offset; together they cover [0, globalNumel)
};

/// A checkpoint's index.json, read and checked (every number an integer in range, every slice within its tensor and
/// the slices covering it without a gap, every layout parameter within the data elements, file names plain): reads
/// any element range of a sharded tensor's flat buffer from whichever rank files hold it, each file verified against
/// the manifest and read once. The one reader of index.json: resharding on load and mergeShardedModel use it.
class ShardIndex {
public:
  /// Reads `folder`/index.json, verified against `manifest`. ConfigError when the manifest does not list it (nothing
  /// in the checkpoint is sharded); StorageError naming the file when it is malformed.
  ShardIndex(std::filesystem::path folder, Manifest manifest);

  /// The entry `key`, or nullptr.
  const ShardedTensor* find(const std::string& key) const;
  /// The keys starting with `prefix`, in index order (sorted).
  std::vector<std::string> keysWithPrefix(const std::string& prefix) const;
  /// Elements [begin, begin + count) of `key`'s flat buffer as a 1-D fp32 tensor: data elements (below numel) from
  /// the slices that hold them, the padding beyond numel zero. Every slice needed is checked against its file before
  /// anything is allocated. ConfigError naming the file when a slice's tensor is missing or does not fit; StorageError
  /// when a rank file is missing or fails verification (naming it).
  at::Tensor readRange(const std::string& key, std::int64_t begin, std::int64_t count);
  /// A rank file of the checkpoint, read and verified once (kept for later reads).
  const StateDict& file(const std::string& name);
  /// Drops the files read so far (their memory).
  void releaseFiles() { m_files.clear(); }

  const std::filesystem::path& folder() const { return m_folder; }
  const Manifest& manifest() const { return m_manifest; }
  /// "<folder>/index.json", for messages.
  std::string path() const { return (m_folder / "index.json").string(); }

private:
  std::filesystem::path m_folder;
  Manifest m_manifest;
  std::map<std::string, ShardedTensor> m_tensors;
  std::map<std::string, StateDict> m_files;
};

/// The first difference between two layouts of the same flat buffer (ShardedTensor::layout, SteppedShard::layout)
/// that matters for resharding: the data elements ("numel") and each parameter's name, offset and shape. "padded"
/// is ignored (it depends on the number of processes). Empty when they agree; otherwise a sentence naming the
/// difference ("parameter 2 is 'h.0.w' [16, 16] at 0 in the checkpoint, 'h.0.b' [16] at 0 here").
std::string layoutDifference(const std::string& saved, const std::string& here);

}  // namespace fathom::checkpoint
