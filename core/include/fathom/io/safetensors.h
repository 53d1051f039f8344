// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <ATen/core/Tensor.h>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fathom::io {

/// The contents of a .safetensors file: tensors in file (data-offset) order, plus the `__metadata__` strings.
struct SafetensorsFile {
  std::vector<std::pair<std::string, at::Tensor>> tensors;
  std::map<std::string, std::string> metadata;
};

/// Writes `tensors` in Hugging Face's safetensors format: an 8-byte little-endian header length N, N bytes of
/// UTF-8 JSON (`{"name": {"dtype": "F32", "shape": [...], "data_offsets": [begin, end]}, ...,
/// "__metadata__": {...}}`, padded with spaces so the data start is 8-byte aligned), then the tensors' raw
/// little-endian bytes, contiguous and in the given order, offsets relative to the data start.
///
/// Supported dtypes: F64 F32 F16 BF16 I64 I32 I16 I8 U8 BOOL. Tensors are detached, moved to the CPU and made
/// contiguous first; the caller's tensors are not changed.
///
/// Invalid input (an undefined, sparse or unsupported-dtype tensor, an empty, duplicate or `__metadata__` name) throws
/// fathom::ConfigError naming the path and the tensor, before anything touches the disk. The write is atomic:
/// the bytes go to `<path>.tmp-<pid>`, which is fsynced and renamed over `path`. On any I/O failure the temporary
/// file is removed, `path` is left as it was, and fathom::StorageError names the path.
void writeSafetensors(const std::filesystem::path& path, const std::vector<std::pair<std::string, at::Tensor>>& tensors,
                      const std::map<std::string, std::string>& metadata = {});

/// Reads a safetensors file into CPU tensors. Validates everything (the header length against the file size, the
/// JSON, each entry's dtype, shape and offsets, that dtype×shape bytes equal the offset span, that the data
/// regions do not overlap and exactly cover the data section, no duplicate names, string-valued metadata) and
/// throws fathom::StorageError naming the path, and the tensor when one is at fault.
SafetensorsFile readSafetensors(const std::filesystem::path& path);

/// The LibTorch type of a safetensors dtype ("F32" → float), or std::nullopt for one Fathom does not read
/// (safetensorsDtypes() lists those it does).
std::optional<at::ScalarType> safetensorsScalarType(std::string_view dtype);

}  // namespace fathom::io
