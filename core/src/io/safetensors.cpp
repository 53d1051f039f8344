// SPDX-License-Identifier: Apache-2.0
// Hugging Face safetensors (https://github.com/huggingface/safetensors, "Format"): u64 LE header length, JSON
// header, raw little-endian data. The reader trusts nothing in the file: readSafetensorsHeader checks every size and
// offset before a byte of tensor data is read.
#include "fathom/io/safetensors.h"
#include "fathom/io/safetensors_header.h"

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

[[noreturn]] void throwBadTensor(const std::filesystem::path& path, const std::string& name, const std::string& what) {
  throw StorageError(detail::concat("invalid safetensors file ", path, ": tensor '", name, "': ", what));
}

}  // namespace

std::optional<at::ScalarType> safetensorsScalarType(std::string_view dtype) {
  for (const auto& d : kDtypes) {
    if (d.name == dtype) {
      return d.type;
    }
  }
  return std::nullopt;
}

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
                 "' has unsupported dtype ", tensor.scalar_type(), " (supported: ", safetensorsDtypes(), ")");
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
  const SafetensorsHeader header = readSafetensorsHeader(path);
  std::ifstream in(path, std::ios::binary);
  if (!in.is_open()) {
    throw StorageError(detail::concat("cannot read safetensors file ", path, ": cannot open it"));
  }
  SafetensorsFile result;
  result.metadata = header.metadata;
  result.tensors.reserve(header.entries.size());
  for (const SafetensorsEntry& e : header.entries) {
    const auto type = safetensorsScalarType(e.dtype);
    FATHOM_ASSERT(type.has_value(), "every dtype the header reader accepts has a LibTorch type");
    at::Tensor t = at::empty(e.shape, at::TensorOptions().dtype(*type));
    if (e.end > e.begin) {
      in.seekg(static_cast<std::streamoff>(header.dataStart + e.begin));
      in.read(static_cast<char*>(t.data_ptr()), static_cast<std::streamsize>(e.bytes()));
      if (!in) {
        throw StorageError(
            detail::concat("cannot read safetensors file ", path, ": read error in tensor '", e.name, "'"));
      }
    }
    if (*type == at::kBool) {
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
