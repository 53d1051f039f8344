// SPDX-License-Identifier: Apache-2.0
#include "fathom/io/mapped_safetensors.h"

#include "fathom/common/error.h"
#include "fathom/io/safetensors.h"

#include <ATen/ATen.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

namespace fathom::io {

/// One mmap of the whole file; unmapped when the last holder (the reader, or a tensor's deleter) goes.
struct MappedSafetensors::Mapping {
  std::byte* base = nullptr;
  std::size_t length = 0;
  Mapping(std::byte* b, std::size_t n) : base(b), length(n) {}
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  ~Mapping() {
    if (base != nullptr) {
      ::munmap(base, length);
    }
  }
};

MappedSafetensors::MappedSafetensors(const std::filesystem::path& path)
    : m_path(path), m_header(readSafetensorsHeader(path)) {
  m_index.reserve(m_header.entries.size());
  for (std::size_t i = 0; i < m_header.entries.size(); ++i) {
    m_index.emplace(m_header.entries[i].name, i);
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    throw StorageError(detail::concat("cannot read safetensors file ", path, ": ", std::strerror(errno)));
  }
  // The size the header was checked against: a file changed since would be caught by the mapping's length.
  const auto length = static_cast<std::size_t>(m_header.fileSize);
  void* base = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  const int mapError = errno;
  ::close(fd);
  if (base == MAP_FAILED) {
    throw StorageError(detail::concat("cannot map safetensors file ", path, ": ", std::strerror(mapError)));
  }
  m_mapping = std::make_shared<Mapping>(static_cast<std::byte*>(base), length);
}

const SafetensorsEntry& MappedSafetensors::entry(std::string_view name) const {
  const auto it = m_index.find(std::string(name));
  FATHOM_CHECK(it != m_index.end(), ConfigError, "safetensors file ", m_path, " has no tensor '", name, "'");
  return m_header.entries[it->second];
}

const std::byte* MappedSafetensors::data(std::string_view name) const {
  const SafetensorsEntry& e = entry(name);
  return e.bytes() == 0 ? nullptr : m_mapping->base + m_header.dataStart + e.begin;
}

at::Tensor MappedSafetensors::tensor(std::string_view name) const {
  const SafetensorsEntry& e = entry(name);
  const auto type = safetensorsScalarType(e.dtype);
  FATHOM_ASSERT(type.has_value(), "every dtype the header reader accepts has a LibTorch type");
  const auto options = at::TensorOptions().dtype(*type).device(at::kCPU);
  if (e.bytes() == 0) {
    return at::empty(e.shape, options);
  }
  auto* bytes = m_mapping->base + m_header.dataStart + e.begin;
  if (*type == at::kBool) {
    for (std::uint64_t i = 0; i < e.bytes(); ++i) {
      FATHOM_CHECK(static_cast<unsigned char>(bytes[i]) <= 1, StorageError, "invalid safetensors file ", m_path,
                   ": tensor '", e.name, "': BOOL element ", i, " has byte value ",
                   static_cast<int>(static_cast<unsigned char>(bytes[i])));
    }
  }
  // The deleter holds the mapping: the tensor may outlive this reader.
  std::shared_ptr<Mapping> keep = m_mapping;
  return at::from_blob(
      bytes, e.shape, [keep](void*) mutable { keep.reset(); }, options);
}

void MappedSafetensors::releasePages(std::string_view name) const {
  const SafetensorsEntry& e = entry(name);
  if (e.bytes() == 0) {
    return;
  }
  static const auto kPage = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<std::uintptr_t>(m_mapping->base + m_header.dataStart + e.begin);
  const auto end = begin + e.bytes();
  const std::uintptr_t first = begin / kPage * kPage;
  const std::uintptr_t last = (end + kPage - 1) / kPage * kPage;
  // Advice only: a failure leaves the pages resident, which costs memory, not correctness.
  (void)::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
}

}  // namespace fathom::io
