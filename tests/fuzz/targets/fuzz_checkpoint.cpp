// SPDX-License-Identifier: Apache-2.0
// A checkpoint folder as loadState() and `merge-weights` read it: index.json (where each process's slice of a sharded
// model is) through mergeShardedModel(), and manifest.json (what makes a folder a complete checkpoint) through
// readManifest().
//
// Input: index.json, then optionally a NUL byte and a manifest.json. The index is put into a fixed checkpoint: two
// rank files as an FSDP save of two processes writes them (model_rank0/1.safetensors, each with its half of one flat
// unit and rank 0's buffer) and a manifest that lists them and the index with their true sizes and CRC-32s, so the
// index gets past verification and its entries reach the slicing. The manifest part is read from a folder of its own.
// Oracle: StorageError or ConfigError is a good answer; anything else escaping (a c10::Error from LibTorch's narrow or
// view, nlohmann's exception), a sanitizer report, or a merged tensor larger than the files hold is a finding.
#include "fuzz_input.h"

#include <fathom/checkpoint/checkpoint_folder.h>
#include <fathom/common/error.h>
#include <fathom/io/safetensors.h>

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>

namespace {

using namespace fathom;

/// The fixed part of the checkpoint, written once: the rank files and the manifest that lists them, as JSON to which
/// each input's index.json record is added.
struct CheckpointFolder {
  fuzz::InputFile index{"checkpoint/index.json"};
  fuzz::InputFile manifest{"checkpoint/manifest.json"};
  fuzz::InputFile otherManifest{"manifest_only/manifest.json"};
  nlohmann::json manifestJson;

  CheckpointFolder() {
    const std::filesystem::path folder = index.path().parent_path();
    std::filesystem::create_directories(folder);
    std::filesystem::create_directories(otherManifest.path().parent_path());
    checkpoint::Manifest listed;
    listed.fathomVersion = "fuzz";
    listed.worldSize = 2;
    listed.strategy = "fsdp";
    listed.info = {{"fsdp_sharding", "FULL_SHARD"}, {"state_dict_type", "SHARDED_STATE_DICT"}};
    for (int rank = 0; rank < 2; ++rank) {
      std::vector<std::pair<std::string, at::Tensor>> tensors{{"h.0", at::arange(4 * rank, 4 * rank + 4, at::kFloat)}};
      if (rank == 0)
        tensors.emplace_back("buffer.mask", at::ones({2}, at::kFloat));
      const std::string name = "model_rank" + std::to_string(rank) + ".safetensors";
      io::writeSafetensors(folder / name, tensors, {{"format", "pt"}});
      listed.files.push_back(checkpoint::recordFile(folder / name, rank));
    }
    checkpoint::writeManifest(folder, listed);
    std::ifstream in(manifest.path());
    manifestJson = nlohmann::json::parse(in);
  }
  ~CheckpointFolder() {
    std::error_code ec;  // the InputFiles then remove their (already gone) files and the process's folder
    std::filesystem::remove_all(index.path().parent_path(), ec);
    std::filesystem::remove_all(otherManifest.path().parent_path(), ec);
  }
  CheckpointFolder(const CheckpointFolder&) = delete;
  CheckpointFolder& operator=(const CheckpointFolder&) = delete;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static CheckpointFolder checkpoint;
  const fuzz::Parts parts = fuzz::splitAtNul(fuzz::text(data, size));

  // index.json, listed in the manifest with its true size and checksum.
  const std::filesystem::path& index = checkpoint.index.write(parts.head);
  const checkpoint::FileRecord record = checkpoint::recordFile(index, 0);
  nlohmann::json manifest = checkpoint.manifestJson;
  std::array<char, 9> crc{};
  std::snprintf(crc.data(), crc.size(), "%08x", record.crc32);
  manifest["files"][record.name] = {{"bytes", record.bytes}, {"crc32", crc.data()}, {"rank", 0}};
  checkpoint.manifest.write(manifest.dump());
  try {
    const auto merged = checkpoint::mergeShardedModel(index.parent_path());
    std::int64_t elements = 0;
    for (const auto& [name, tensor] : merged)
      elements += tensor.numel();
    // The rank files hold 8 + 2 elements; a merge may repeat them (two parameters over one range) but not invent
    // storage beyond what the index's own shapes ask for: more than this bound means unchecked sizes got through.
    if (elements > (std::int64_t{1} << 24)) {
      std::fprintf(stderr, "mergeShardedModel made %lld elements out of 10\n", static_cast<long long>(elements));
      std::abort();
    }
  } catch (const Error&) {
  }

  if (!parts.tail.empty()) {
    checkpoint.otherManifest.write(parts.tail);
    try {
      checkpoint::readManifest(checkpoint.otherManifest.path().parent_path());
    } catch (const Error&) {
    }
  }
  return 0;
}
