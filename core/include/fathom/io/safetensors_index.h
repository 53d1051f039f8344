// SPDX-License-Identifier: Apache-2.0
// The index of a sharded safetensors checkpoint, as Hugging Face writes it beside the shards
// (model.safetensors.index.json, transformers' save_pretrained):
//   {"metadata": {"total_size": 16060522496}, "weight_map": {"lm_head.weight": "model-00002-of-00002.safetensors",
//   ...}}
// LibTorch-free: module trees are read from the index and the shards' headers alone.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fathom::io {

/// The file name Hugging Face gives the index of a sharded checkpoint, and the one a single-file checkpoint has.
inline constexpr const char* kSafetensorsIndexFile = "model.safetensors.index.json";
inline constexpr const char* kSafetensorsFile = "model.safetensors";

/// A sharded checkpoint's index, read and checked. Invariants (StorageError naming the file, and the tensor when one
/// is at fault, otherwise): the text is one JSON object no larger than 100 MB; `weight_map` is a non-empty object of
/// tensor name -> shard file name, no name listed twice; a tensor name is non-empty; a shard is a plain file name in
/// the index's folder (not empty, not "." or "..", no '/' or '\\'); `metadata`, when present, is an object, and its
/// `total_size`, when present, a whole number >= 0. Other keys are ignored, as transformers ignores them.
struct SafetensorsIndex {
  std::optional<std::uint64_t> totalSize;  ///< metadata.total_size: the bytes of every tensor over all shards
  /// Tensor name -> shard file name, in the order the file lists them (Hugging Face writes them sorted by name).
  std::vector<std::pair<std::string, std::string>> weightMap;
  std::vector<std::string> shards;  ///< every shard file the index names, in order of first mention
};

/// Parses an index's text; `origin` (the file's path) starts every message.
SafetensorsIndex parseSafetensorsIndex(std::string_view text, const std::filesystem::path& origin);

/// Reads and parses the index at `path`. StorageError naming it when it cannot be read or breaks an invariant.
SafetensorsIndex readSafetensorsIndex(const std::filesystem::path& path);

}  // namespace fathom::io
