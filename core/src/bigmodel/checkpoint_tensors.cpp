// SPDX-License-Identifier: Apache-2.0
#include <fathom/bigmodel/checkpoint_tensors.h>

#include <fathom/common/error.h>
#include <fathom/common/terminal_text.h>
#include <fathom/io/safetensors_header.h>
#include <fathom/io/safetensors_index.h>

#include <map>
#include <string_view>
#include <system_error>

namespace fathom::bigmodel {
namespace {

/// The bigmodel dtype of a safetensors dtype; io::readSafetensorsHeader admits only the ones listed here.
Dtype dtypeOf(const std::string& safetensorsDtype, const std::filesystem::path& file, const std::string& tensor) {
  static const std::map<std::string, Dtype, std::less<>> kDtypes{
      {"F64", Dtype::Float64}, {"F32", Dtype::Float32}, {"F16", Dtype::Float16}, {"BF16", Dtype::BFloat16},
      {"I64", Dtype::Int64},   {"I32", Dtype::Int32},   {"I16", Dtype::Int16},   {"I8", Dtype::Int8},
      {"U8", Dtype::UInt8},    {"BOOL", Dtype::Bool}};
  const auto it = kDtypes.find(safetensorsDtype);
  FATHOM_CHECK(it != kDtypes.end(), InternalError, "safetensors dtype ", safetensorsDtype, " of tensor '",
               terminalSafe(tensor), "' in ", file, " has no bigmodel dtype");
  return it->second;
}

CheckpointTensor tensorOf(const io::SafetensorsEntry& e, const std::filesystem::path& file) {
  return {e.name, e.shape, dtypeOf(e.dtype, file, e.name), file.filename().string()};
}

bool isIndexFile(const std::filesystem::path& path) {
  return path.extension() == ".json";
}

CheckpointTensors readOne(const std::filesystem::path& file) {
  const io::SafetensorsHeader header = io::readSafetensorsHeader(file);
  CheckpointTensors out{file, false, {}, 0};
  for (const io::SafetensorsEntry& e : header.entries) {
    out.tensors.push_back(tensorOf(e, file));
    out.bytes += e.bytes();
  }
  return out;
}

CheckpointTensors readSharded(const std::filesystem::path& indexPath) {
  const io::SafetensorsIndex index = io::readSafetensorsIndex(indexPath);
  const std::filesystem::path folder = indexPath.parent_path();
  const auto bad = [&](const std::string& what) {
    throw StorageError(detail::concat("sharded checkpoint ", indexPath, ": ", what));
  };

  // Each shard's header, read once; the first tensor the index places in it names it in a message.
  std::map<std::string, io::SafetensorsHeader> headers;
  std::map<std::string, std::string> firstTensor;
  for (const auto& [tensor, shard] : index.weightMap) {
    firstTensor.emplace(shard, tensor);
  }
  for (const std::string& shard : index.shards) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(folder / shard, ec)) {
      bad(detail::concat("shard '", terminalSafe(shard), "' is missing from ", folder, " (the index puts tensor '",
                         terminalSafe(firstTensor.at(shard)), "' in it)"));
    }
    headers.emplace(shard, io::readSafetensorsHeader(folder / shard));
  }

  CheckpointTensors out{indexPath, true, {}, 0};
  std::map<std::string, std::string, std::less<>> shardOf;
  for (const auto& [tensor, shard] : index.weightMap) {
    const io::SafetensorsEntry* e = headers.at(shard).find(tensor);
    if (e == nullptr) {
      bad(detail::concat("the index puts tensor '", terminalSafe(tensor), "' in shard '", terminalSafe(shard),
                         "', which does not hold it"));
    }
    shardOf.emplace(tensor, shard);
    out.tensors.push_back(tensorOf(*e, folder / shard));
  }
  // And the other way: every tensor a shard holds is one the index places there (so none is in two shards).
  for (const std::string& shard : index.shards) {
    for (const io::SafetensorsEntry& e : headers.at(shard).entries) {
      const auto it = shardOf.find(e.name);
      if (it == shardOf.end()) {
        bad(detail::concat("shard '", terminalSafe(shard), "' holds tensor '", terminalSafe(e.name),
                           "', which the index does not list"));
      }
      if (it->second != shard) {
        bad(detail::concat("shard '", terminalSafe(shard), "' holds tensor '", terminalSafe(e.name),
                           "', which the index puts in shard '", terminalSafe(it->second), "'"));
      }
      out.bytes += e.bytes();
    }
  }
  if (index.totalSize && *index.totalSize != out.bytes) {
    bad(detail::concat("metadata.total_size is ", *index.totalSize, " bytes, but the shards' tensors hold ",
                       out.bytes));
  }
  return out;
}

}  // namespace

CheckpointTensors readCheckpointTensors(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    if (std::filesystem::is_regular_file(path / io::kSafetensorsFile, ec)) {
      return readOne(path / io::kSafetensorsFile);
    }
    if (std::filesystem::is_regular_file(path / io::kSafetensorsIndexFile, ec)) {
      return readSharded(path / io::kSafetensorsIndexFile);
    }
    throw ConfigError(
        detail::concat("folder ", path, " holds neither ", io::kSafetensorsFile, " nor ", io::kSafetensorsIndexFile));
  }
  FATHOM_CHECK(std::filesystem::exists(path, ec), ConfigError, "no such checkpoint file or folder ", path);
  return isIndexFile(path) ? readSharded(path) : readOne(path);
}

}  // namespace fathom::bigmodel
