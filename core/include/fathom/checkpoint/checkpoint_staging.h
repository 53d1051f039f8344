// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/checkpoint/checkpoint_folder.h>

#include <filesystem>
#include <string>
#include <vector>

namespace fathom::checkpoint {

/// Written by publish() when any process recorded shards: every sharded tensor's global shape and where each
/// process's slice of it is.
inline constexpr const char* kShardIndexFile = "index.json";

/// One process's slice of a tensor sharded across the processes' files (an entry of index.json).
struct ShardRecord {
  std::string tensor;  ///< global name "<component>/<key>": "model/h.0", "optimizer/state.0.exp_avg"
  std::string file;    ///< the file holding the slice
  std::string key;     ///< the slice's tensor name in that file
  std::vector<std::int64_t> globalShape;
  std::int64_t offset = 0;  ///< first element of the slice in the flattened global tensor
  std::int64_t numel = 0;   ///< elements of the slice
  std::string layout;       ///< JSON (optional): the parameters laid out in a flat buffer
};

/// One process's part of writing a checkpoint atomically. Every process writes its files into the same staging
/// folder next to the final one (`.<name>.staging`, never listed as a checkpoint), each file fsynced; each then
/// lists what it wrote (size, CRC-32) in a rank file list. After all processes agree that every write succeeded,
/// the main process merges the lists into manifest.json (written last, fsynced), fsyncs the folder and publishes
/// it with one rename (an exchange with an existing folder of that name, whose old contents are then deleted),
/// then fsyncs the parent. A reader therefore sees no folder, or the old one, or the complete new one.
///
/// The collective part (agreeing, who publishes) is the caller's (Accelerator::saveState); this class does the
/// file-system part. Not thread-safe.
class CheckpointStaging {
public:
  /// The staging folder of `final`.
  static std::filesystem::path stagingPath(const std::filesystem::path& final);
  /// Main process, before anyone writes: removes a stale staging folder (a save killed earlier) and creates a fresh
  /// one, and the parent folders. StorageError naming the folder.
  static void prepare(const std::filesystem::path& final);
  /// Removes the staging folder (after a failed save); never throws.
  static void discard(const std::filesystem::path& final) noexcept;
  /// Main process, after every process finished writing: merges the rank file lists into `header.files`, writes
  /// manifest.json, fsyncs and publishes. StorageError naming what failed; then nothing was published (the
  /// staging folder is removed) and any previous folder of that name is unchanged.
  static void publish(const std::filesystem::path& final, Manifest header, int worldSize);

  CheckpointStaging(std::filesystem::path final, int rank);

  /// Writes `state` as the safetensors file `name` into the staging folder and records it.
  void write(const std::string& name, const StateDict& state);
  /// Records a slice this process wrote (for index.json).
  void addShard(ShardRecord shard) { m_shards.push_back(std::move(shard)); }
  /// Writes this process's file list (what publish() merges). Call once, after the last write().
  void finish();
  const std::vector<FileRecord>& files() const { return m_files; }
  const std::filesystem::path& folder() const { return m_staging; }

private:
  std::filesystem::path m_final;
  std::filesystem::path m_staging;
  int m_rank = 0;
  std::vector<FileRecord> m_files;
  std::vector<ShardRecord> m_shards;
};

}  // namespace fathom::checkpoint
