// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fathom::io {

/// One tensor of a safetensors header: its name, dtype ("F32", as the format spells it), shape and byte range in the
/// data section.
struct SafetensorsEntry {
  std::string name;
  std::string dtype;
  std::vector<std::int64_t> shape;  ///< empty for a 0-dim tensor
  std::uint64_t begin = 0;          ///< offsets relative to the data section's start
  std::uint64_t end = 0;
  std::uint64_t bytes() const { return end - begin; }
};

/// A safetensors file's header, read and checked without reading any tensor data. Invariants (StorageError naming
/// the path, and the tensor when one is at fault, otherwise): the header length fits the file and the 100 MB limit
/// the reference implementation keeps; the header is one JSON object with no duplicate name; every entry has a
/// supported dtype, a shape of non-negative dimensions, and data_offsets spanning exactly dtype × shape bytes; the
/// entries' ranges tile the data section [0, fileSize - dataStart) with no gap or overlap; `__metadata__` holds
/// strings only.
struct SafetensorsHeader {
  std::vector<SafetensorsEntry> entries;  ///< in data (offset) order
  std::map<std::string, std::string> metadata;
  std::uint64_t dataStart = 0;  ///< 8 + the header length: where the data section begins in the file
  std::uint64_t fileSize = 0;

  /// The entry named `name`, or nullptr.
  const SafetensorsEntry* find(std::string_view name) const;
};

/// Reads and checks the header of the safetensors file at `path` (see SafetensorsHeader). Reads 8 + header-length
/// bytes, whatever the file's size.
SafetensorsHeader readSafetensorsHeader(const std::filesystem::path& path);

/// The bytes one element of a safetensors dtype takes ("F32" → 4), or std::nullopt for a dtype Fathom does not read.
/// Supported: F64 F32 F16 BF16 I64 I32 I16 I8 U8 BOOL.
std::optional<std::size_t> safetensorsElementSize(std::string_view dtype);

/// The supported dtypes, space-separated, for messages.
std::string safetensorsDtypes();

}  // namespace fathom::io
