// SPDX-License-Identifier: Apache-2.0
// model.safetensors.index.json (transformers' save_pretrained with sharding). Nothing in it is trusted: every shard it
// names must be a plain file name, so an index cannot point a reader outside its folder.
#include <fathom/io/safetensors_index.h>

#include <fathom/common/error.h>
#include <fathom/common/json_input.h>
#include <fathom/common/terminal_text.h>

#include <nlohmann/json.hpp>

#include <fstream>
#include <iterator>
#include <set>
#include <system_error>

namespace fathom::io {
namespace {

/// As for safetensors headers: a corrupt or hostile index is not read whole into memory past this.
constexpr std::uintmax_t kMaxIndexBytes = 100'000'000;

[[noreturn]] void throwBad(const std::filesystem::path& origin, const std::string& what) {
  throw StorageError(detail::concat("invalid safetensors index ", origin, ": ", what));
}

bool plainFileName(const std::string& name) {
  return !name.empty() && name != "." && name != ".." && name.find_first_of("/\\") == std::string::npos &&
         name.find('\0') == std::string::npos;
}

}  // namespace

SafetensorsIndex parseSafetensorsIndex(std::string_view text, const std::filesystem::path& origin) {
  if (text.size() > kMaxIndexBytes) {
    throwBad(origin, detail::concat("it is ", text.size(), " bytes, over the limit of ", kMaxIndexBytes));
  }
  // nlohmann keeps one of two duplicate keys silently; the callback sees every key of weight_map (depth 2 inside the
  // top-level key "weight_map"), so a tensor listed twice, perhaps with two shards, is caught.
  std::string topKey;
  std::set<std::string> seen;
  std::optional<std::string> duplicate;
  nlohmann::ordered_json j;
  try {
    j = nlohmann::ordered_json::parse(
        text, [&](int depth, nlohmann::ordered_json::parse_event_t event, nlohmann::ordered_json& parsed) {
          if (event == nlohmann::ordered_json::parse_event_t::key) {
            if (depth == 1) {
              topKey = parsed.get<std::string>();
            } else if (depth == 2 && topKey == "weight_map" && !seen.insert(parsed.get<std::string>()).second &&
                       !duplicate) {
              duplicate = parsed.get<std::string>();
            }
          }
          return true;
        });
  } catch (const nlohmann::json::exception& e) {  // parse_error; out_of_range for a number no double holds (1e400)
    throwBad(origin, detail::concat("not valid JSON: ", e.what()));
  }
  if (!j.is_object()) {
    throwBad(origin, detail::concat("expected a JSON object with 'weight_map', got ", quotedJson(j)));
  }
  if (duplicate) {
    throwBad(origin, detail::concat("weight_map lists tensor '", terminalSafe(*duplicate), "' more than once"));
  }

  SafetensorsIndex index;
  if (const auto metadata = j.find("metadata"); metadata != j.end() && !metadata->is_null()) {
    if (!metadata->is_object()) {
      throwBad(origin, detail::concat("'metadata' must be an object, got ", quotedJson(*metadata)));
    }
    if (const auto total = metadata->find("total_size"); total != metadata->end() && !total->is_null()) {
      const auto bytes = jsonInteger<std::uint64_t>(*total);
      if (!bytes) {
        throwBad(origin,
                 detail::concat("metadata.total_size must be a whole number of bytes >= 0, got ", quotedJson(*total)));
      }
      index.totalSize = *bytes;
    }
  }

  const auto map = j.find("weight_map");
  if (map == j.end() || !map->is_object()) {
    throwBad(origin, map == j.end() ? std::string("it has no 'weight_map'")
                                    : detail::concat("'weight_map' must be an object, got ", quotedJson(*map)));
  }
  if (map->empty()) {
    throwBad(origin, "'weight_map' names no tensor");
  }
  std::set<std::string> shards;
  for (const auto& [tensor, shard] : map->items()) {
    if (tensor.empty()) {
      throwBad(origin, "weight_map has a tensor with an empty name");
    }
    if (!shard.is_string()) {
      throwBad(origin, detail::concat("weight_map: tensor '", terminalSafe(tensor),
                                      "': the shard must be a file name, got ", quotedJson(shard)));
    }
    const std::string file = shard.get<std::string>();
    if (!plainFileName(file)) {
      throwBad(origin, detail::concat("weight_map: tensor '", terminalSafe(tensor), "': shard '", terminalSafe(file),
                                      "' is not a plain file name in the index's folder"));
    }
    if (shards.insert(file).second) {
      index.shards.push_back(file);
    }
    index.weightMap.emplace_back(tensor, file);
  }
  return index;
}

SafetensorsIndex readSafetensorsIndex(const std::filesystem::path& path) {
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) {
    throw StorageError(detail::concat("cannot read safetensors index ", path, ": ", ec.message()));
  }
  if (size > kMaxIndexBytes) {
    throwBad(path, detail::concat("it is ", size, " bytes, over the limit of ", kMaxIndexBytes));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in.is_open()) {
    throw StorageError(detail::concat("cannot read safetensors index ", path, ": cannot open it"));
  }
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad()) {
    throw StorageError(detail::concat("cannot read safetensors index ", path, ": read error"));
  }
  return parseSafetensorsIndex(text, path);
}

}  // namespace fathom::io
