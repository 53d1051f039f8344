// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/checkpoint/state_dict.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace fathom::checkpoint {

/// The checkpoint layout version this Fathom writes and the newest it reads (manifest.json "version").
inline constexpr int kFormatVersion = 1;
/// Written last into a checkpoint folder: its presence, and every listed file matching its size and CRC-32, is
/// what makes a folder a complete checkpoint.
inline constexpr const char* kManifestFile = "manifest.json";

/// One file of a checkpoint as manifest.json lists it.
struct FileRecord {
  std::string name;         ///< file name inside the checkpoint folder
  std::int64_t bytes = 0;   ///< its size
  std::uint32_t crc32 = 0;  ///< zlib's CRC-32 of its bytes (Python: zlib.crc32(data))
  int rank = 0;             ///< the process that wrote it
};

/// manifest.json: what was saved, by whom, and every file with its size and checksum.
struct Manifest {
  int version = kFormatVersion;
  std::string fathomVersion;
  int worldSize = 1;
  /// "ddp", "fsdp", "zero1", "zero2", "zero3".
  std::string strategy;
  /// Further facts that must match on load (e.g. "fsdp_sharding", "state_dict_type", "models"), and facts
  /// reported only ("optimizer_steps").
  std::map<std::string, std::string> info;
  std::vector<FileRecord> files;

  /// The record of `name`, or nullptr.
  const FileRecord* find(const std::string& name) const;
};

/// "checkpoint_<n>" → n; std::nullopt for any other name (staging folders are never taken for checkpoints).
std::optional<std::int64_t> checkpointNumber(const std::filesystem::path& folder);
/// The published checkpoint folders (`checkpoint_<n>` holding a manifest.json) under `parent`, by ascending n.
/// Nothing when `parent` does not exist.
std::vector<std::filesystem::path> listCheckpoints(const std::filesystem::path& parent);
/// Deletes the oldest published checkpoints under `parent` so that at most `totalLimit` remain (manifest.json first,
/// so a deletion cut short leaves no checkpoint behind), and finishes such cut-short deletions (numbered folders
/// without a manifest below the oldest kept); returns the deleted folders. StorageError naming the folder that could
/// not be deleted.
std::vector<std::filesystem::path> rotateCheckpoints(const std::filesystem::path& parent, int totalLimit);

/// The size and CRC-32 of a written file. StorageError naming the file when it cannot be read.
FileRecord recordFile(const std::filesystem::path& file, int rank);
/// Reads and validates `folder/manifest.json`. StorageError naming the file when it is missing (the folder is
/// not a complete checkpoint), unreadable or malformed; ConfigError when its version is newer than kFormatVersion.
Manifest readManifest(const std::filesystem::path& folder);
/// Writes `folder/manifest.json` atomically (fsynced).
void writeManifest(const std::filesystem::path& folder, const Manifest& manifest);
/// Checks that `folder/record.name` exists with the listed size and CRC-32; StorageError naming the file and the
/// difference otherwise.
void verifyFile(const std::filesystem::path& folder, const FileRecord& record);
/// Reads the manifest-listed safetensors file `name` after verifying it: StorageError naming the file when the
/// manifest does not list it (for a rank file: saved with another number of processes) or it fails verification.
StateDict readVerified(const std::filesystem::path& folder, const Manifest& manifest, const std::string& name);
/// Accelerate's merge-weights, without the processes that saved it: the full state dict of a sharded model of the
/// checkpoint in `folder` (FSDP SHARDED_STATE_DICT, ZeRO-3; `component` "model", "model_1", ...), put together from
/// every process's file through index.json: each unit's slices at their offsets, cut into the parameters of its
/// layout (fp32, module names), plus the buffers of rank 0's file. Files are verified against the manifest. Loads with
/// any number of processes and any strategy (Accelerator::loadModel's model.safetensors, loadFullStateDict).
/// StorageError naming the file, ConfigError when the checkpoint has no such sharded component or a slice is
/// missing (naming the unit and the uncovered range).
std::vector<std::pair<std::string, at::Tensor>> mergeShardedModel(const std::filesystem::path& folder,
                                                                  const std::string& component = "model");
/// Whether `name` may name a file of a checkpoint in its manifest or index: a plain name inside the folder. Anything
/// else ("../x", "/etc/passwd", "a/b") would make loading read, and verification checksum, files outside it.
bool isPlainFileName(const std::string& name);
/// Whether the manifest lists `name`.
inline bool lists(const Manifest& manifest, const std::string& name) {
  return manifest.find(name) != nullptr;
}

}  // namespace fathom::checkpoint
