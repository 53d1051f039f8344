// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/io/safetensors_header.h>

#include <ATen/core/Tensor.h>

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

namespace fathom::io {

/// A safetensors file mapped into memory: its tensors as CPU tensors over the mapping, no byte read until one is
/// touched (safetensors' safe_open, Accelerate's disk offload). The header is checked as readSafetensorsHeader
/// checks it; BOOL tensors are checked byte by byte when first asked for.
///
/// The mapping is private and writable (MAP_PRIVATE, PROT_READ | PROT_WRITE): a tensor written to in place changes
/// this process's copy of its pages, never the file. Each tensor() keeps the mapping alive, so the object may go
/// before the tensors it handed out. Thread-safe for concurrent reads.
class MappedSafetensors {
public:
  /// Maps `path`. StorageError naming the file when it cannot be opened or mapped or its header is invalid.
  explicit MappedSafetensors(const std::filesystem::path& path);

  const SafetensorsHeader& header() const { return m_header; }
  const std::filesystem::path& path() const { return m_path; }

  /// The tensor `name` as a CPU tensor viewing the mapping (no copy). ConfigError naming the file when there is no
  /// such tensor; StorageError for a BOOL tensor holding a byte other than 0 and 1.
  at::Tensor tensor(std::string_view name) const;
  /// The address of `name`'s first byte in the mapping (nullptr for an empty tensor); ConfigError as tensor().
  const std::byte* data(std::string_view name) const;
  /// Drops the pages holding `name` from this process's resident memory (madvise MADV_DONTNEED; pages it shares
  /// with its neighbours included): a later read faults them in again from the file, so only pages nobody wrote to
  /// keep their contents. Releasing the pages of a tensor someone wrote to in place discards those writes.
  void releasePages(std::string_view name) const;

private:
  struct Mapping;
  const SafetensorsEntry& entry(std::string_view name) const;

  std::filesystem::path m_path;
  SafetensorsHeader m_header;
  /// Name -> index into m_header.entries: every forward of a dispatched model and every tensor of a load looks its
  /// tensors up by name, so the lookup must not walk the header (thousands of tensors in a large checkpoint).
  std::unordered_map<std::string, std::size_t> m_index;
  std::shared_ptr<Mapping> m_mapping;
};

}  // namespace fathom::io
