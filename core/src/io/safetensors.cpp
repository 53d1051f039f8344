// SPDX-License-Identifier: Apache-2.0
// Hugging Face safetensors (https://github.com/huggingface/safetensors, "Format"): u64 LE header length, JSON
// header, raw little-endian data. The reader trusts nothing in the file: every size and offset is checked before
// a byte of tensor data is read.
#include "fathom/io/safetensors.h"

#include "fathom/common/atomic_file.h"
#include "fathom/common/error.h"
#include "fathom/profile/annotations.h"
#include <fathom/common/json_input.h>

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <fstream>
#include <limits>
#include <optional>
#include <set>
#include <string_view>
#include <unistd.h>

namespace fathom::io {
namespace {

static_assert(std::endian::native == std::endian::little,
              "safetensors data is little-endian; this code copies tensor bytes as they are in memory");

/// The reference implementation refuses headers above 100 MB; so do we (a corrupt length would otherwise make
/// us allocate whatever the first 8 bytes say).
constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;
constexpr const char* kMetadataKey = "__metadata__";

struct DtypeInfo {
  std::string_view name;
  at::ScalarType type;
};

constexpr std::array<DtypeInfo, 10> kDtypes = {{{"F64", at::kDouble},
                                                {"F32", at::kFloat},
                                                {"F16", at::kHalf},
                                                {"BF16", at::kBFloat16},
                                                {"I64", at::kLong},
                                                {"I32", at::kInt},
                                                {"I16", at::kShort},
                                                {"I8", at::kChar},
                                                {"U8", at::kByte},
                                                {"BOOL", at::kBool}}};

std::optional<std::string_view> dtypeName(at::ScalarType type) {
  for (const auto& d : kDtypes) {
    if (d.type == type) {
      return d.name;
    }
  }
  return std::nullopt;
}

std::optional<at::ScalarType> dtypeOf(std::string_view name) {
  for (const auto& d : kDtypes) {
    if (d.name == name) {
      return d.type;
    }
  }
  return std::nullopt;
}

std::string knownDtypes() {
  std::string out;
  for (const auto& d : kDtypes) {
    if (!out.empty()) {
      out += ' ';
    }
    out += d.name;
  }
  return out;
}

// ---- writing ----------------------------------------------------------------------------------------------------

// ---- reading ----------------------------------------------------------------------------------------------------

[[noreturn]] void throwBad(const std::filesystem::path& path, const std::string& what) {
  throw StorageError(detail::concat("invalid safetensors file ", path, ": ", what));
}

[[noreturn]] void throwBadTensor(const std::filesystem::path& path, const std::string& name, const std::string& what) {
  throw StorageError(detail::concat("invalid safetensors file ", path, ": tensor '", name, "': ", what));
}

struct Entry {
  std::string name;
  at::ScalarType type;
  std::vector<std::int64_t> shape;
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
};

std::uint64_t unsignedField(const nlohmann::json& value, const std::filesystem::path& path, const std::string& name,
                            const char* what) {
  if (!value.is_number_unsigned()) {
    throwBadTensor(path, name, detail::concat(what, " must be non-negative integers, got ", quotedJson(value)));
  }
  return value.get<std::uint64_t>();
}

Entry parseEntry(const std::string& name, const nlohmann::json& info, const std::filesystem::path& path) {
  if (!info.is_object()) {
    throwBadTensor(path, name, "entry must be an object");
  }
  Entry e;
  e.name = name;
  const auto dtype = info.find("dtype");
  if (dtype == info.end() || !dtype->is_string()) {
    throwBadTensor(path, name, "missing string 'dtype'");
  }
  const auto type = dtypeOf(dtype->get<std::string>());
  if (!type) {
    throwBadTensor(
        path, name,
        detail::concat("unsupported dtype '", dtype->get<std::string>(), "' (supported: ", knownDtypes(), ")"));
  }
  e.type = *type;

  const auto shape = info.find("shape");
  if (shape == info.end() || !shape->is_array()) {
    throwBadTensor(path, name, "missing array 'shape'");
  }
  // numel·itemsize must not overflow: every dimension is bounded by the file size anyway (a zero dimension aside).
  std::uint64_t bytes = c10::elementSize(e.type);
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
                                  " bytes but dtype ", dtype->get<std::string>(), " and shape ", quotedJson(*shape),
                                  " need ", bytes));
  }
  return e;
}

}  // namespace

void writeSafetensors(const std::filesystem::path& path, const std::vector<std::pair<std::string, at::Tensor>>& tensors,
                      const std::map<std::string, std::string>& metadata) {
  profile::RecordFunction span("fathom::checkpoint_write");
  // Front door: every input problem is reported before the disk is touched.
  std::set<std::string> names;
  std::vector<at::Tensor> prepared;
  prepared.reserve(tensors.size());
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!metadata.empty()) {
    header[kMetadataKey] = metadata;  // first, as the reference writer puts it
  }
  std::uint64_t offset = 0;
  for (const auto& [name, tensor] : tensors) {
    FATHOM_CHECK(!name.empty(), ConfigError, "cannot write safetensors file ", path, ": a tensor has an empty name");
    FATHOM_CHECK(name != kMetadataKey, ConfigError, "cannot write safetensors file ", path, ": '", kMetadataKey,
                 "' is reserved and cannot name a tensor");
    FATHOM_CHECK(names.insert(name).second, ConfigError, "cannot write safetensors file ", path,
                 ": duplicate tensor name '", name, "'");
    FATHOM_CHECK(tensor.defined(), ConfigError, "cannot write safetensors file ", path, ": tensor '", name,
                 "' is undefined");
    FATHOM_CHECK(tensor.layout() == at::kStrided, ConfigError, "cannot write safetensors file ", path, ": tensor '",
                 name, "' is not dense (layout ", tensor.layout(), ")");
    const auto dtype = dtypeName(tensor.scalar_type());
    FATHOM_CHECK(dtype.has_value(), ConfigError, "cannot write safetensors file ", path, ": tensor '", name,
                 "' has unsupported dtype ", tensor.scalar_type(), " (supported: ", knownDtypes(), ")");
    at::Tensor cpu = tensor.detach().to(at::kCPU).resolve_conj().resolve_neg().contiguous();
    const auto bytes = static_cast<std::uint64_t>(cpu.numel()) * cpu.element_size();
    header[name] = {
        {"dtype", std::string(*dtype)}, {"shape", cpu.sizes().vec()}, {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
    prepared.push_back(std::move(cpu));
  }
  std::string json;
  try {
    json = header.dump();
  } catch (const nlohmann::json::exception& e) {
    throw ConfigError(detail::concat("cannot write safetensors file ", path,
                                     ": a tensor name or metadata string is not valid UTF-8 (", e.what(), ")"));
  }
  // Pad with spaces (valid JSON whitespace) so the data section starts 8-byte aligned.
  json.append((8 - json.size() % 8) % 8, ' ');
  std::array<unsigned char, 8> length{};
  for (std::size_t i = 0; i < 8; ++i) {
    length[i] = static_cast<unsigned char>((static_cast<std::uint64_t>(json.size()) >> (8 * i)) & 0xff);
  }

  // Written atomically: into an unnamed file, synced, named "<path>.tmp-<pid>" and renamed; a failure (a full disk,
  // the file size limit, SIGKILL) leaves the previous file and nothing else.
  AtomicFile file(path, {.temporarySuffix = ".tmp-" + std::to_string(::getpid()),
                         .what = "safetensors file",
                         .unnamedWhileWriting = true});
  file.write(length.data(), length.size());
  file.write(json);
  for (const auto& t : prepared) {
    file.write(t.data_ptr(), static_cast<std::size_t>(t.numel()) * t.element_size());
  }
  file.commit();
}

SafetensorsFile readSafetensors(const std::filesystem::path& path) {
  profile::RecordFunction span("fathom::checkpoint_read");
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

  SafetensorsFile result;
  std::vector<Entry> entries;
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
    entries.push_back(parseEntry(key, value, path));
  }

  // Data regions, in file order, must tile [0, dataSize) exactly: no gap, no overlap, nothing past the end.
  const std::uint64_t dataStart = 8 + headerSize;
  const std::uint64_t dataSize = fileSize - dataStart;
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  std::uint64_t expected = 0;
  for (const auto& e : entries) {
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

  result.tensors.reserve(entries.size());
  for (const auto& e : entries) {
    at::Tensor t = at::empty(e.shape, at::TensorOptions().dtype(e.type));
    if (e.end > e.begin) {
      in.seekg(static_cast<std::streamoff>(dataStart + e.begin));
      in.read(static_cast<char*>(t.data_ptr()), static_cast<std::streamsize>(e.end - e.begin));
      if (!in) {
        throw StorageError(
            detail::concat("cannot read safetensors file ", path, ": read error in tensor '", e.name, "'"));
      }
    }
    if (e.type == at::kBool) {
      // Any byte other than 0 and 1 would be an invalid C++ bool.
      const auto* bytes = static_cast<const unsigned char*>(t.data_ptr());
      for (std::int64_t i = 0; i < t.numel(); ++i) {
        if (bytes[i] > 1) {
          throwBadTensor(path, e.name, detail::concat("BOOL element ", i, " has byte value ", int(bytes[i])));
        }
      }
    }
    result.tensors.emplace_back(e.name, std::move(t));
  }
  return result;
}

}  // namespace fathom::io
