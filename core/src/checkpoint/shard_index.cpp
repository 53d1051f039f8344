// SPDX-License-Identifier: Apache-2.0
// index.json for resharding on load: any element range of a sharded flat buffer, from the rank files that hold it.
#include <fathom/checkpoint/shard_index.h>
#include <fathom/common/checked_number.h>
#include <fathom/common/error.h>
#include <fathom/common/json_input.h>
#include <fathom/common/terminal_text.h>

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <limits>

namespace fathom::checkpoint {

namespace {

constexpr const char* kIndexFile = "index.json";

/// `object[key]` as a whole number from 0 to int64's maximum (or `limit`); StorageError naming the index and the key.
std::int64_t count(const nlohmann::json& object, const char* key, const std::string& where, const std::string& path,
                   std::int64_t limit = std::numeric_limits<std::int64_t>::max()) {
  const auto it = object.find(key);
  FATHOM_CHECK(it != object.end(), StorageError, path, ": ", where, " has no \"", key, "\"");
  const std::optional<std::int64_t> v = jsonInteger<std::int64_t>(*it);
  FATHOM_CHECK(v && *v >= 0 && *v <= limit, StorageError, path, ": ", where, " has \"", key, "\" ", quotedJson(*it),
               ", expected a whole number from 0 to ", limit);
  return *v;
}

}  // namespace

ShardIndex::ShardIndex(std::filesystem::path folder, Manifest manifest)
    : m_folder(std::move(folder)), m_manifest(std::move(manifest)) {
  const FileRecord* record = m_manifest.find(kIndexFile);
  FATHOM_CHECK(record != nullptr, ConfigError, path(), " is not part of the checkpoint: nothing in it is sharded");
  verifyFile(m_folder, *record);
  nlohmann::json index;
  try {
    std::ifstream in(m_folder / kIndexFile);
    index = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw StorageError(detail::concat(path(), ": not valid JSON: ", e.what()));
  }
  const std::string where = path();
  try {
    for (const auto& [key, entry] : index.at("tensors").items()) {
      const std::string name = "tensor '" + terminalSafe(key) + "'";
      ShardedTensor t;
      const nlohmann::json& shape = entry.at("global_shape");
      FATHOM_CHECK(shape.is_array() && shape.size() == 1, StorageError, where, ": ", name, " has global_shape ",
                   quotedJson(shape), ", expected [elements]");
      const std::optional<std::int64_t> global = jsonInteger<std::int64_t>(shape[0]);
      FATHOM_CHECK(global && *global >= 0, StorageError, where, ": ", name, " has global_shape ", quotedJson(shape));
      t.globalNumel = *global;
      const nlohmann::json& layout = entry.at("layout");
      t.numel = count(layout, "numel", name, where, t.globalNumel);
      t.layout = layout.dump();
      if (const auto parameters = layout.find("parameters"); parameters != layout.end()) {
        for (const auto& p : *parameters) {
          LayoutParameter parameter;
          parameter.name = p.at("name").get<std::string>();
          const std::string what = "parameter '" + terminalSafe(parameter.name) + "' of " + name;
          CheckedInt64 elements{1};
          for (const auto& d : p.at("shape")) {
            const std::optional<std::int64_t> size = jsonInteger<std::int64_t>(d);
            FATHOM_CHECK(size && *size >= 0, StorageError, where, ": ", what, " has a bad shape ",
                         quotedJson(p.at("shape")));
            parameter.shape.push_back(*size);
            elements *= CheckedInt64{*size};
          }
          parameter.offset = count(p, "offset", what, where);
          const std::optional<std::int64_t> n = elements.value();
          FATHOM_CHECK(n && *n <= t.numel && parameter.offset <= t.numel - *n, StorageError, where, ": ", what,
                       " does not lie within its ", t.numel, " data elements");
          parameter.numel = *n;
          t.parameters.push_back(std::move(parameter));
        }
      }
      for (const auto& shard : entry.at("shards")) {
        ShardSlice s;
        s.rank = static_cast<int>(count(shard, "rank", name, where, std::numeric_limits<int>::max()));
        s.file = shard.at("file").get<std::string>();
        FATHOM_CHECK(isPlainFileName(s.file), StorageError, where, ": ", name, " names file '", terminalSafe(s.file),
                     "', not a plain file name in the checkpoint folder");
        s.key = shard.at("key").get<std::string>();
        s.numel = count(shard, "numel", name, where, t.globalNumel);
        s.offset = count(shard, "offset", name, where, t.globalNumel - s.numel);
        t.slices.push_back(std::move(s));
      }
      std::sort(t.slices.begin(), t.slices.end(),
                [](const ShardSlice& a, const ShardSlice& b) { return a.offset < b.offset; });
      // The processes' slices partition the whole padded buffer (hybrid strategies save a slice on several
      // processes): a gap or a shorter reach means the index does not describe what was saved.
      std::int64_t reached = 0;
      for (const ShardSlice& s : t.slices) {
        FATHOM_CHECK(s.offset <= reached, StorageError, where, ": ", name, " has no slice for elements [", reached,
                     ", ", s.offset, ")");
        reached = std::max(reached, s.offset + s.numel);
      }
      FATHOM_CHECK(reached == t.globalNumel, StorageError, where, ": ", name, " has slices up to element ", reached,
                   " of a global shape of ", t.globalNumel);
      m_tensors.emplace(key, std::move(t));
    }
  } catch (const nlohmann::json::exception& e) {
    throw StorageError(detail::concat(where, ": malformed shard index: ", e.what()));
  }
}

const ShardedTensor* ShardIndex::find(const std::string& key) const {
  const auto it = m_tensors.find(key);
  return it == m_tensors.end() ? nullptr : &it->second;
}

std::vector<std::string> ShardIndex::keysWithPrefix(const std::string& prefix) const {
  std::vector<std::string> keys;
  for (auto it = m_tensors.lower_bound(prefix); it != m_tensors.end() && it->first.rfind(prefix, 0) == 0; ++it)
    keys.push_back(it->first);
  return keys;
}

const StateDict& ShardIndex::file(const std::string& name) {
  auto it = m_files.find(name);
  if (it == m_files.end())
    it = m_files.emplace(name, readVerified(m_folder, m_manifest, name)).first;
  return it->second;
}

at::Tensor ShardIndex::readRange(const std::string& key, std::int64_t begin, std::int64_t count) {
  const ShardedTensor* t = find(key);
  FATHOM_CHECK(t != nullptr, ConfigError, path(), ": has no sharded tensor '", terminalSafe(key), "'");
  FATHOM_CHECK(begin >= 0 && count >= 0 && begin <= std::numeric_limits<std::int64_t>::max() - count, ConfigError,
               path(), ": bad range [", begin, ", +", count, ") of '", terminalSafe(key), "'");
  // Only the data elements are read; what lies beyond numel is padding, zero in every layout. The slices cover
  // [0, globalNumel) (checked when the index was read), so every data element has one.
  struct Piece {
    const at::Tensor* stored;
    std::int64_t from;    ///< the first element of the range this slice provides
    std::int64_t to;      ///< one past the last
    std::int64_t offset;  ///< the slice's first element
  };
  std::vector<Piece> pieces;
  const std::int64_t end = std::min(begin + count, t->numel);
  for (const ShardSlice& s : t->slices) {
    const std::int64_t from = std::max(begin, s.offset);
    const std::int64_t to = std::min(end, s.offset + s.numel);
    if (from >= to)
      continue;
    const at::Tensor* stored = file(s.file).tensor(s.key);
    FATHOM_CHECK(stored != nullptr, ConfigError, (m_folder / s.file).string(), ": has no tensor '", terminalSafe(s.key),
                 "' (index.json says it does)");
    FATHOM_CHECK(stored->numel() == s.numel, ConfigError, (m_folder / s.file).string(), ": tensor '",
                 terminalSafe(s.key), "' has ", stored->numel(), " elements, index.json says ", s.numel);
    pieces.push_back({stored, from, to, s.offset});
  }
  // Allocated only now: the data part of the range is backed by the files' tensors just checked.
  at::Tensor out = at::zeros({count}, at::kFloat);
  for (const Piece& p : pieces)
    out.narrow(0, p.from - begin, p.to - p.from)
        .copy_(p.stored->reshape({-1}).narrow(0, p.from - p.offset, p.to - p.from));
  return out;
}

std::string layoutDifference(const std::string& saved, const std::string& here) {
  nlohmann::json a;
  nlohmann::json b;
  try {
    a = nlohmann::json::parse(saved);
    b = nlohmann::json::parse(here);
  } catch (const nlohmann::json::exception& e) {
    return detail::concat("the layout is not valid JSON (", e.what(), ")");
  }
  const auto numel = [](const nlohmann::json& j) { return j.is_object() ? j.value("numel", nlohmann::json()) : j; };
  if (numel(a) != numel(b))
    return detail::concat("it holds ", quotedJson(numel(a)), " elements in the checkpoint, ", quotedJson(numel(b)),
                          " here");
  const nlohmann::json none = nlohmann::json::array();
  const nlohmann::json& pa = a.is_object() && a.contains("parameters") ? a.at("parameters") : none;
  const nlohmann::json& pb = b.is_object() && b.contains("parameters") ? b.at("parameters") : none;
  const auto describe = [](const nlohmann::json& p) {
    if (!p.is_object())
      return quotedJson(p);
    return detail::concat(quotedJson(p.value("name", nlohmann::json())), " ", p.value("shape", nlohmann::json()).dump(),
                          " at ", p.value("offset", nlohmann::json()).dump());
  };
  for (std::size_t i = 0; i < std::max(pa.size(), pb.size()); ++i) {
    if (i >= pa.size())
      return detail::concat("parameter ", i, " (", describe(pb[i]), ") is not in the checkpoint");
    if (i >= pb.size())
      return detail::concat("parameter ", i, " (", describe(pa[i]), ") of the checkpoint is not here");
    if (describe(pa[i]) != describe(pb[i]))
      return detail::concat("parameter ", i, " is ", describe(pa[i]), " in the checkpoint, ", describe(pb[i]), " here");
  }
  return {};
}

}  // namespace fathom::checkpoint
