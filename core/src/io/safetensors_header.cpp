// SPDX-License-Identifier: Apache-2.0
// The safetensors header (https://github.com/huggingface/safetensors, "Format"): u64 LE header length, then a JSON
// object of name -> {dtype, shape, data_offsets} plus "__metadata__". Nothing in it is trusted: every size and offset
// is checked before a caller reads a byte of tensor data. No LibTorch here: module trees are read from headers alone.
#include "fathom/io/safetensors_header.h"

#include "fathom/common/error.h"
#include <fathom/common/json_input.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <fstream>
#include <limits>
#include <set>

namespace fathom::io {
namespace {

/// The reference implementation refuses headers above 100 MB; so do we (a corrupt length would otherwise make
/// us allocate whatever the first 8 bytes say).
constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;
constexpr const char* kMetadataKey = "__metadata__";

struct DtypeSize {
  std::string_view name;
  std::size_t bytes;
};

constexpr std::array<DtypeSize, 10> kDtypes = {{{"F64", 8},
                                                {"F32", 4},
                                                {"F16", 2},
                                                {"BF16", 2},
                                                {"I64", 8},
                                                {"I32", 4},
                                                {"I16", 2},
                                                {"I8", 1},
                                                {"U8", 1},
                                                {"BOOL", 1}}};

[[noreturn]] void throwBad(const std::filesystem::path& path, const std::string& what) {
  throw StorageError(detail::concat("invalid safetensors file ", path, ": ", what));
}

[[noreturn]] void throwBadTensor(const std::filesystem::path& path, const std::string& name, const std::string& what) {
  throw StorageError(detail::concat("invalid safetensors file ", path, ": tensor '", name, "': ", what));
}

std::uint64_t unsignedField(const nlohmann::json& value, const std::filesystem::path& path, const std::string& name,
                            const char* what) {
  if (!value.is_number_unsigned()) {
    throwBadTensor(path, name, detail::concat(what, " must be non-negative integers, got ", quotedJson(value)));
  }
  return value.get<std::uint64_t>();
}

SafetensorsEntry parseEntry(const std::string& name, const nlohmann::json& info, const std::filesystem::path& path) {
  if (!info.is_object()) {
    throwBadTensor(path, name, "entry must be an object");
  }
  SafetensorsEntry e;
  e.name = name;
  const auto dtype = info.find("dtype");
  if (dtype == info.end() || !dtype->is_string()) {
    throwBadTensor(path, name, "missing string 'dtype'");
  }
  e.dtype = dtype->get<std::string>();
  const auto elementSize = safetensorsElementSize(e.dtype);
  if (!elementSize) {
    throwBadTensor(path, name,
                   detail::concat("unsupported dtype '", e.dtype, "' (supported: ", safetensorsDtypes(), ")"));
  }

  const auto shape = info.find("shape");
  if (shape == info.end() || !shape->is_array()) {
    throwBadTensor(path, name, "missing array 'shape'");
  }
  // numel·itemsize must not overflow: every dimension is bounded by the file size anyway (a zero dimension aside).
  std::uint64_t bytes = *elementSize;
  bool empty = false;
  for (const auto& dim : *shape) {
    const std::uint64_t d = unsignedField(dim, path, name, "shape entries");
    if (d > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      throwBadTensor(path, name, detail::concat("shape entry ", d, " is too large"));
    }
    e.shape.push_back(static_cast<std::int64_t>(d));
    if (d == 0) {
      empty = true;
    } else if (!empty && bytes > std::numeric_limits<std::uint64_t>::max() / d) {
      throwBadTensor(path, name, "shape is too large");
    } else if (!empty) {
      bytes *= d;
    }
  }
  if (empty) {
    bytes = 0;
  }

  const auto offsets = info.find("data_offsets");
  if (offsets == info.end() || !offsets->is_array() || offsets->size() != 2) {
    throwBadTensor(path, name, "missing 'data_offsets' [begin, end]");
  }
  e.begin = unsignedField((*offsets)[0], path, name, "data_offsets");
  e.end = unsignedField((*offsets)[1], path, name, "data_offsets");
  if (e.end < e.begin) {
    throwBadTensor(path, name, detail::concat("data_offsets [", e.begin, ", ", e.end, "] end before they begin"));
  }
  if (e.end - e.begin != bytes) {
    throwBadTensor(path, name,
                   detail::concat("data_offsets [", e.begin, ", ", e.end, "] span ", e.end - e.begin,
                                  " bytes but dtype ", e.dtype, " and shape ", quotedJson(*shape), " need ", bytes));
  }
  return e;
}

}  // namespace

std::optional<std::size_t> safetensorsElementSize(std::string_view dtype) {
  for (const auto& d : kDtypes) {
    if (d.name == dtype) {
      return d.bytes;
    }
  }
  return std::nullopt;
}

std::string safetensorsDtypes() {
  std::string out;
  for (const auto& d : kDtypes) {
    if (!out.empty()) {
      out += ' ';
    }
    out += d.name;
  }
  return out;
}

const SafetensorsEntry* SafetensorsHeader::find(std::string_view name) const {
  for (const SafetensorsEntry& e : entries) {
    if (e.name == name) {
      return &e;
    }
  }
  return nullptr;
}

SafetensorsHeader readSafetensorsHeader(const std::filesystem::path& path) {
  std::error_code ec;
  const std::uintmax_t fileSize = std::filesystem::file_size(path, ec);
  if (ec) {
    throw StorageError(detail::concat("cannot read safetensors file ", path, ": ", ec.message()));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in.is_open()) {
    throw StorageError(detail::concat("cannot read safetensors file ", path, ": cannot open it"));
  }
  if (fileSize < 8) {
    throwBad(path, detail::concat("file is ", fileSize, " bytes, too short for the 8-byte header length"));
  }
  std::array<unsigned char, 8> length{};
  in.read(reinterpret_cast<char*>(length.data()), 8);
  std::uint64_t headerSize = 0;
  for (std::size_t i = 0; i < 8; ++i) {
    headerSize |= static_cast<std::uint64_t>(length[i]) << (8 * i);
  }
  if (headerSize > fileSize - 8) {
    throwBad(path, detail::concat("header length ", headerSize, " exceeds the ", fileSize - 8,
                                  " bytes after the length field"));
  }
  if (headerSize > kMaxHeaderBytes) {
    throwBad(path, detail::concat("header length ", headerSize, " exceeds the limit of ", kMaxHeaderBytes));
  }
  std::string text(headerSize, '\0');
  in.read(text.data(), static_cast<std::streamsize>(headerSize));
  if (!in) {
    throw StorageError(detail::concat("cannot read safetensors file ", path, ": read error in the header"));
  }
  if (text.empty() || text.front() != '{') {
    throwBad(path, "header does not start with '{'");
  }

  // nlohmann keeps one of two duplicate keys silently; the callback sees every key so duplicates are caught.
  std::set<std::string> seen;
  std::optional<std::string> duplicate;
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(text, [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
      if (event == nlohmann::json::parse_event_t::key && depth == 1 && !seen.insert(parsed.get<std::string>()).second &&
          !duplicate) {
        duplicate = parsed.get<std::string>();
      }
      return true;
    });
  } catch (const nlohmann::json::exception& e) {
    throwBad(path, detail::concat("header is not valid JSON: ", e.what()));
  }
  if (duplicate) {
    throwBadTensor(path, *duplicate, "name appears more than once in the header");
  }
  if (!header.is_object()) {
    throwBad(path, "header is not a JSON object");
  }

  SafetensorsHeader result;
  result.fileSize = fileSize;
  result.dataStart = 8 + headerSize;
  for (const auto& [key, value] : header.items()) {
    if (key == kMetadataKey) {
      if (!value.is_object()) {
        throwBad(path, "'__metadata__' must be an object of strings");
      }
      for (const auto& [mk, mv] : value.items()) {
        if (!mv.is_string()) {
          throwBad(path, detail::concat("'__metadata__' value of '", mk, "' must be a string, got ", quotedJson(mv)));
        }
        result.metadata[mk] = mv.get<std::string>();
      }
      continue;
    }
    result.entries.push_back(parseEntry(key, value, path));
  }

  // Data regions, in file order, must tile [0, dataSize) exactly: no gap, no overlap, nothing past the end.
  const std::uint64_t dataSize = fileSize - result.dataStart;
  std::stable_sort(result.entries.begin(), result.entries.end(),
                   [](const SafetensorsEntry& a, const SafetensorsEntry& b) {
                     return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
                   });
  std::uint64_t expected = 0;
  for (const auto& e : result.entries) {
    if (e.end > dataSize) {
      throwBadTensor(
          path, e.name,
          detail::concat("data_offsets [", e.begin, ", ", e.end, "] run past the ", dataSize, "-byte data section"));
    }
    if (e.begin < expected) {
      throwBadTensor(path, e.name,
                     detail::concat("data_offsets [", e.begin, ", ", e.end,
                                    "] overlap the previous tensor, which ends at ", expected));
    }
    if (e.begin > expected) {
      throwBadTensor(path, e.name,
                     detail::concat("data_offsets [", e.begin, ", ", e.end, "] leave a gap after byte ", expected));
    }
    expected = e.end;
  }
  if (expected != dataSize) {
    throwBad(path, detail::concat("tensors cover ", expected, " bytes but the data section has ", dataSize));
  }
  return result;
}

}  // namespace fathom::io
