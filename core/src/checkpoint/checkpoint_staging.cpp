// SPDX-License-Identifier: Apache-2.0
// Writing a checkpoint into a staging folder and publishing it with one rename.
#include <fathom/checkpoint/checkpoint_staging.h>
#include <fathom/common/atomic_file.h>
#include <fathom/common/error.h>
#include <fathom/io/safetensors.h>

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <system_error>

namespace fathom::checkpoint {

namespace {

std::filesystem::path rankListPath(const std::filesystem::path& staging, int rank) {
  std::string name = ".rank";  // built by appending: GCC 12 warns falsely on "literal" + std::string
  name += std::to_string(rank);
  name += ".files.json";
  return staging / name;
}

/// rename(2) that never silently replaces: RENAME_NOREPLACE onto a free name, RENAME_EXCHANGE onto an existing
/// folder (both atomic). Returns errno, 0 on success.
int publishRename(const std::filesystem::path& from, const std::filesystem::path& to, bool exchange) {
  const unsigned flags = exchange ? RENAME_EXCHANGE : RENAME_NOREPLACE;
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), flags) == 0)
    return 0;
  const int error = errno;
  // File systems without renameat2 flags: a plain rename onto a free name is still atomic.
  if (error == EINVAL && !exchange)
    return ::rename(from.c_str(), to.c_str()) == 0 ? 0 : errno;
  return error;
}

}  // namespace

std::filesystem::path CheckpointStaging::stagingPath(const std::filesystem::path& final) {
  std::string name = ".";
  name += final.filename().string();
  name += ".staging";
  return final.parent_path() / name;
}

void CheckpointStaging::prepare(const std::filesystem::path& final) {
  const std::filesystem::path staging = stagingPath(final);
  std::error_code ec;
  std::filesystem::remove_all(staging, ec);
  FATHOM_CHECK(!ec, StorageError, "save_state: cannot remove the stale staging folder ", staging.string(), ": ",
               ec.message());
  std::filesystem::create_directories(staging, ec);
  FATHOM_CHECK(!ec, StorageError, "save_state: cannot create ", staging.string(), ": ", ec.message());
}

void CheckpointStaging::discard(const std::filesystem::path& final) noexcept {
  std::error_code ec;
  std::filesystem::remove_all(stagingPath(final), ec);
}

CheckpointStaging::CheckpointStaging(std::filesystem::path final, int rank)
    : m_final(std::move(final)), m_staging(stagingPath(m_final)), m_rank(rank) {}

void CheckpointStaging::write(const std::string& name, const StateDict& state) {
  const std::filesystem::path path = m_staging / name;
  io::writeSafetensors(path, state.tensors, state.values);  // fsynced, atomic per file
  m_files.push_back(recordFile(path, m_rank));
}

void CheckpointStaging::finish() {
  nlohmann::json files = nlohmann::json::array();
  for (const FileRecord& f : m_files)
    files.push_back({{"name", f.name}, {"bytes", f.bytes}, {"crc32", f.crc32}});
  nlohmann::json shards = nlohmann::json::array();
  for (const ShardRecord& r : m_shards) {
    shards.push_back({{"tensor", r.tensor},
                      {"file", r.file},
                      {"key", r.key},
                      {"global_shape", r.globalShape},
                      {"offset", r.offset},
                      {"numel", r.numel},
                      {"layout", r.layout}});
  }
  const nlohmann::json list{{"files", files}, {"shards", shards}};
  AtomicFile file(rankListPath(m_staging, m_rank), {.temporarySuffix = ".partial", .what = "checkpoint file list"});
  file.write(list.dump());
  file.commit();
}

void CheckpointStaging::publish(const std::filesystem::path& final, Manifest header, int worldSize) {
  const std::filesystem::path staging = stagingPath(final);
  try {
    header.files.clear();
    nlohmann::json index = nlohmann::json::object();
    for (int rank = 0; rank < worldSize; ++rank) {
      const std::filesystem::path listPath = rankListPath(staging, rank);
      std::ifstream in(listPath);
      FATHOM_CHECK(in.is_open(), StorageError, "save_state: rank ", rank, " left no file list (", listPath.string(),
                   ")");
      std::stringstream text;
      text << in.rdbuf();
      const nlohmann::json list = nlohmann::json::parse(text.str());
      for (const auto& r : list.at("shards")) {
        nlohmann::json& entry = index[r.at("tensor").get<std::string>()];
        entry["global_shape"] = r.at("global_shape");
        if (!r.at("layout").get<std::string>().empty())
          entry["layout"] = nlohmann::json::parse(r.at("layout").get<std::string>());
        entry["shards"].push_back({{"rank", rank},
                                   {"file", r.at("file")},
                                   {"key", r.at("key")},
                                   {"offset", r.at("offset")},
                                   {"numel", r.at("numel")}});
      }
      for (const auto& f : list.at("files")) {
        FileRecord record{f.at("name").get<std::string>(), f.at("bytes").get<std::int64_t>(),
                          f.at("crc32").get<std::uint32_t>(), rank};
        FATHOM_CHECK(header.find(record.name) == nullptr, InternalError, "save_state: two ranks wrote ", record.name);
        header.files.push_back(std::move(record));
      }
      in.close();
      std::filesystem::remove(listPath);
    }
    if (!index.empty()) {
      const nlohmann::json json{{"format", "fathom.shard_index.v1"}, {"world_size", worldSize}, {"tensors", index}};
      AtomicFile file(staging / kShardIndexFile, {.temporarySuffix = ".partial", .what = "checkpoint shard index"});
      file.write(json.dump(1) + "\n");
      file.commit();
      header.files.push_back(recordFile(staging / kShardIndexFile, 0));
    }
    writeManifest(staging, header);
    syncDirectory(staging, "checkpoint staging folder");
    std::error_code ec;
    const bool exists = std::filesystem::exists(final, ec);
    const int error = publishRename(staging, final, exists);
    FATHOM_CHECK(error == 0, StorageError, "save_state: cannot publish ", staging.string(), " as ", final.string(),
                 ": ", std::strerror(error));
    // After an exchange the staging path holds the previous folder of that name.
    if (exists)
      std::filesystem::remove_all(staging, ec);
    syncDirectory(final.parent_path().empty() ? std::filesystem::path(".") : final.parent_path(),
                  "checkpoint parent folder");
  } catch (const nlohmann::json::exception& e) {
    discard(final);
    throw StorageError(
        detail::concat("save_state: a rank file list in ", staging.string(), " is malformed: ", e.what()));
  } catch (...) {
    // Before the rename the staging folder holds the new, unpublished files, after it (an exchange) the previous
    // folder: either way it goes, and `final` is the previous folder or the complete new one.
    discard(final);
    throw;
  }
}

}  // namespace fathom::checkpoint
