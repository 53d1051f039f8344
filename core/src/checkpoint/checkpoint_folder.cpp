// SPDX-License-Identifier: Apache-2.0
// Checkpoint folders: numbering, listing, rotation, manifest.json and verified reads.
#include <fathom/checkpoint/checkpoint_folder.h>
#include <fathom/checkpoint/shard_index.h>
#include <fathom/common/atomic_file.h>
#include <fathom/common/checked_number.h>
#include <fathom/common/error.h>
#include <fathom/common/json_input.h>
#include <fathom/common/terminal_text.h>
#include <fathom/io/safetensors.h>

#include <nlohmann/json.hpp>
#include <zlib.h>

#include <ATen/ATen.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <system_error>

namespace fathom::checkpoint {

namespace {

std::string hex32(std::uint32_t value) {
  std::array<char, 9> text{};
  std::snprintf(text.data(), text.size(), "%08x", value);
  return text.data();
}

std::uint32_t parseHex32(const std::string& text, const std::filesystem::path& manifest, const std::string& file) {
  FATHOM_CHECK(text.size() == 8 && text.find_first_not_of("0123456789abcdef") == std::string::npos, StorageError,
               manifest.string(), ": file '", file, "' has crc32 '", text, "', expected 8 lowercase hex digits");
  return static_cast<std::uint32_t>(std::stoul(text, nullptr, 16));
}

/// The integer `object[key]` of a manifest or index `file`, in [low, T's maximum]; StorageError naming the file and the
/// key otherwise (a missing key throws nlohmann's out_of_range, which the callers report as a malformed file).
template <std::integral T>
T integerAt(const nlohmann::json& object, const char* key, const std::filesystem::path& file,
            T low = std::numeric_limits<T>::min()) {
  const nlohmann::json& value = object.at(key);
  const std::optional<T> v = jsonInteger<T>(value);
  FATHOM_CHECK(v.has_value() && *v >= low, StorageError, file.string(), ": \"", key, "\" must be an integer from ",
               std::to_string(low), " to ", std::to_string(std::numeric_limits<T>::max()), ", got ", quotedJson(value));
  return *v;
}

}  // namespace

bool isPlainFileName(const std::string& name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos &&
         name.find('\0') == std::string::npos;
}

const FileRecord* Manifest::find(const std::string& name) const {
  const auto it = std::find_if(files.begin(), files.end(), [&](const FileRecord& f) { return f.name == name; });
  return it == files.end() ? nullptr : &*it;
}

std::optional<std::int64_t> checkpointNumber(const std::filesystem::path& folder) {
  const std::string name = folder.filename().string();
  static const std::string prefix = "checkpoint_";
  if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0)
    return std::nullopt;
  const std::string digits = name.substr(prefix.size());
  if (digits.size() > 18 || digits.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  return std::stoll(digits);
}

std::vector<std::filesystem::path> listCheckpoints(const std::filesystem::path& parent) {
  std::vector<std::pair<std::int64_t, std::filesystem::path>> found;
  std::error_code ec;
  if (!std::filesystem::is_directory(parent, ec))
    return {};
  for (const auto& entry : std::filesystem::directory_iterator(parent, ec)) {
    const auto number = checkpointNumber(entry.path());
    // Only published folders count: a folder without its manifest is not a checkpoint (and is never taken).
    if (number && entry.is_directory() && std::filesystem::exists(entry.path() / kManifestFile))
      found.emplace_back(*number, entry.path());
  }
  FATHOM_CHECK(!ec, StorageError, "cannot list checkpoints in ", parent.string(), ": ", ec.message());
  std::sort(found.begin(), found.end());
  std::vector<std::filesystem::path> out;
  for (auto& [n, path] : found)
    out.push_back(std::move(path));
  return out;
}

std::vector<std::filesystem::path> rotateCheckpoints(const std::filesystem::path& parent, int totalLimit) {
  FATHOM_CHECK(totalLimit >= 1, ConfigError, "total_limit must be >= 1, got ", totalLimit);
  const std::vector<std::filesystem::path> all = listCheckpoints(parent);
  std::vector<std::filesystem::path> removed;
  for (std::size_t i = 0; i + static_cast<std::size_t>(totalLimit) < all.size(); ++i) {
    // The manifest goes first: a folder whose deletion is interrupted is no longer taken for a checkpoint.
    std::error_code ec;
    std::filesystem::remove(all[i] / kManifestFile, ec);
    if (!ec)
      std::filesystem::remove_all(all[i], ec);
    FATHOM_CHECK(!ec, StorageError, "cannot delete old checkpoint ", all[i].string(), ": ", ec.message());
    removed.push_back(all[i]);
  }
  // A numbered folder without its manifest below the oldest one kept is a deletion interrupted between the manifest
  // and the rest (publishing renames a folder that already holds its manifest, so it is nothing else): finished here.
  const std::vector<std::filesystem::path> kept = listCheckpoints(parent);
  if (kept.empty())
    return removed;
  const std::int64_t oldest = checkpointNumber(kept.front()).value_or(0);
  std::error_code ec;
  std::vector<std::filesystem::path> interrupted;
  for (const auto& entry : std::filesystem::directory_iterator(parent, ec)) {
    const auto number = checkpointNumber(entry.path());
    if (number && *number < oldest && entry.is_directory() && !std::filesystem::exists(entry.path() / kManifestFile))
      interrupted.push_back(entry.path());
  }
  for (const std::filesystem::path& folder : interrupted) {
    std::filesystem::remove_all(folder, ec);
    FATHOM_CHECK(!ec, StorageError, "cannot delete ", folder.string(), " (an interrupted deletion): ", ec.message());
    removed.push_back(folder);
  }
  return removed;
}

FileRecord recordFile(const std::filesystem::path& file, int rank) {
  std::ifstream in(file, std::ios::binary);
  FATHOM_CHECK(in.is_open(), StorageError, "cannot read checkpoint file ", file.string());
  FileRecord record;
  record.name = file.filename().string();
  record.rank = rank;
  uLong crc = crc32(0L, Z_NULL, 0);
  std::vector<char> buffer(std::size_t{1} << 20);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    const std::streamsize n = in.gcount();
    if (n <= 0)
      break;
    crc = crc32_z(crc, reinterpret_cast<const Bytef*>(buffer.data()), static_cast<z_size_t>(n));
    record.bytes += n;
  }
  FATHOM_CHECK(in.eof(), StorageError, "cannot read checkpoint file ", file.string());
  record.crc32 = static_cast<std::uint32_t>(crc);
  return record;
}

Manifest readManifest(const std::filesystem::path& folder) {
  const std::filesystem::path path = folder / kManifestFile;
  std::error_code ec;
  FATHOM_CHECK(std::filesystem::is_directory(folder, ec), StorageError, "checkpoint folder ", folder.string(),
               " does not exist");
  std::ifstream in(path);
  FATHOM_CHECK(in.is_open(), StorageError, path.string(),
               " is missing: the folder is not a complete checkpoint (a save that did not finish, or not a "
               "checkpoint folder)");
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::exception& e) {
    throw StorageError(detail::concat(path.string(), ": not valid JSON: ", e.what()));
  }
  Manifest manifest;
  try {
    FATHOM_CHECK(json.value("format", std::string()) == "fathom.checkpoint", StorageError, path.string(),
                 ": \"format\" is not \"fathom.checkpoint\"");
    manifest.version = integerAt<int>(json, "version", path);
    manifest.fathomVersion = json.value("fathom_version", std::string());
    FATHOM_CHECK(manifest.version <= kFormatVersion, ConfigError, path.string(), ": the checkpoint has layout version ",
                 manifest.version, " (written by Fathom ", manifest.fathomVersion,
                 "); this Fathom reads versions up to ", kFormatVersion);
    manifest.worldSize = integerAt<int>(json, "world_size", path, 1);
    manifest.strategy = json.at("strategy").get<std::string>();
    for (const auto& [key, value] : json.at("info").items())
      manifest.info[key] = value.get<std::string>();
    for (const auto& [name, record] : json.at("files").items()) {
      FATHOM_CHECK(isPlainFileName(name), StorageError, path.string(), ": file '", terminalSafe(name),
                   "' is not a plain file name in the checkpoint folder");
      FileRecord file;
      file.name = name;
      file.bytes = integerAt<std::int64_t>(record, "bytes", path, 0);
      file.crc32 = parseHex32(record.at("crc32").get<std::string>(), path, name);
      file.rank = integerAt<int>(record, "rank", path, 0);
      manifest.files.push_back(std::move(file));
    }
  } catch (const nlohmann::json::exception& e) {
    throw StorageError(detail::concat(path.string(), ": malformed manifest: ", e.what()));
  }
  return manifest;
}

void writeManifest(const std::filesystem::path& folder, const Manifest& manifest) {
  nlohmann::json files = nlohmann::json::object();
  for (const FileRecord& f : manifest.files)
    files[f.name] = {{"bytes", f.bytes}, {"crc32", hex32(f.crc32)}, {"rank", f.rank}};
  nlohmann::json info = nlohmann::json::object();
  for (const auto& [key, value] : manifest.info)
    info[key] = value;
  const nlohmann::json json{{"format", "fathom.checkpoint"},
                            {"version", manifest.version},
                            {"fathom_version", manifest.fathomVersion},
                            {"world_size", manifest.worldSize},
                            {"strategy", manifest.strategy},
                            {"info", info},
                            {"files", files}};
  AtomicFile file(folder / kManifestFile, {.temporarySuffix = ".partial", .what = "checkpoint manifest"});
  file.write(json.dump(2) + "\n");
  file.commit();
}

void verifyFile(const std::filesystem::path& folder, const FileRecord& record) {
  const std::filesystem::path path = folder / record.name;
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  FATHOM_CHECK(!ec, StorageError, path.string(), " is missing (", kManifestFile, " lists it, written by rank ",
               record.rank, ")");
  FATHOM_CHECK(static_cast<std::int64_t>(size) == record.bytes, StorageError, path.string(), " has ", size, " bytes, ",
               kManifestFile, " says ", record.bytes, " (truncated or replaced)");
  const FileRecord actual = recordFile(path, record.rank);
  FATHOM_CHECK(actual.crc32 == record.crc32, StorageError, path.string(), " is corrupted: CRC-32 ", hex32(actual.crc32),
               ", ", kManifestFile, " says ", hex32(record.crc32));
}

StateDict readVerified(const std::filesystem::path& folder, const Manifest& manifest, const std::string& name) {
  const FileRecord* record = manifest.find(name);
  FATHOM_CHECK(record != nullptr, StorageError, (folder / name).string(), " is not part of the checkpoint (",
               kManifestFile, " does not list it; saved by ", manifest.worldSize, " process(es) with strategy ",
               manifest.strategy, ")");
  verifyFile(folder, *record);
  io::SafetensorsFile file = io::readSafetensors(folder / name);
  return StateDict{std::move(file.tensors), std::move(file.metadata)};
}

std::vector<std::pair<std::string, at::Tensor>> mergeShardedModel(const std::filesystem::path& folder,
                                                                  const std::string& component) {
  ShardIndex index(folder, readManifest(folder));
  std::vector<std::pair<std::string, at::Tensor>> out;
  std::string rank0File;
  for (const std::string& key : index.keysWithPrefix(component + "/")) {
    const ShardedTensor& unit = *index.find(key);
    const at::Tensor data = index.readRange(key, 0, unit.numel);
    for (const LayoutParameter& p : unit.parameters)
      out.emplace_back(p.name, data.narrow(0, p.offset, p.numel).view(p.shape).clone());
    for (const ShardSlice& slice : unit.slices) {
      if (slice.rank == 0)
        rank0File = slice.file;
    }
  }
  FATHOM_CHECK(!out.empty(), ConfigError, index.path(), ": the checkpoint has no sharded '", component, "'");
  // Buffers are not sharded: every process saved the same ones, rank 0's are taken.
  if (!rank0File.empty()) {
    for (const auto& [name, t] : index.file(rank0File).tensors) {
      if (name.rfind("buffer.", 0) == 0)
        out.emplace_back(name.substr(7), t);
    }
  }
  return out;
}

}  // namespace fathom::checkpoint
