// SPDX-License-Identifier: Apache-2.0
#include "fathom/models/char_text_dataset.h"

#include "fathom/common/error.h"

#include <ATen/ATen.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <system_error>
#include <utility>
#include <vector>

#ifndef FATHOM_CORPUS_DEFAULT
#define FATHOM_CORPUS_DEFAULT "resources/corpus/kjv_genesis_exodus.txt"
#endif

namespace fathom::models {
namespace {

constexpr const char* kCorpusFile = "kjv_genesis_exodus.txt";

std::filesystem::path executableDir() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path{} : exe.parent_path();
}

std::string readAll(const std::filesystem::path& path) {
  std::error_code ec;
  FATHOM_CHECK(!std::filesystem::is_directory(path, ec), StorageError, "cannot read text file ", path,
               ": it is a directory");
  std::ifstream in(path, std::ios::binary);
  FATHOM_CHECK(in.is_open(), StorageError, "cannot read text file ", path, ": cannot open it");
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  FATHOM_CHECK(!in.bad(), StorageError, "cannot read text file ", path, ": read error");
  return text;
}

}  // namespace

std::filesystem::path defaultCorpusPath() {
  // (place, how the error message describes it)
  std::vector<std::pair<std::filesystem::path, std::string>> candidates;
  if (const char* env = std::getenv("FATHOM_CORPUS"); env != nullptr && *env != '\0') {
    candidates.emplace_back(env, detail::concat("FATHOM_CORPUS=", env));
  } else {
    if (const auto dir = executableDir(); !dir.empty()) {
      const auto installed = (dir / ".." / "share" / "fathom" / "corpus" / kCorpusFile).lexically_normal();
      candidates.emplace_back(installed, installed.string());
    }
    candidates.emplace_back(FATHOM_CORPUS_DEFAULT, FATHOM_CORPUS_DEFAULT);
  }
  std::string tried;
  for (const auto& [candidate, description] : candidates) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(candidate, ec)) {
      return candidate;
    }
    tried += (tried.empty() ? "" : ", ") + description;
  }
  throw StorageError(
      detail::concat("text corpus not found; tried ", tried, " (set FATHOM_CORPUS to the path of a text file)"));
}

void validate(const CharTextDatasetOptions& o) {
  FATHOM_CHECK(o.blockSize >= 1, ConfigError, "text block_size must be >= 1, got ", o.blockSize);
}

CharTextDataset::CharTextDataset(CharTextDatasetOptions options) : m_options(std::move(options)) {
  validate(m_options);
  if (m_options.path.empty()) {
    m_options.path = defaultCorpusPath();
  }
  const std::string text = readAll(m_options.path);
  const auto length = static_cast<std::int64_t>(text.size());
  FATHOM_CHECK(length >= m_options.blockSize + 1, ConfigError, "text file ", m_options.path, " has ", length,
               " characters, fewer than block_size + 1 = ", m_options.blockSize + 1, " (block_size ",
               m_options.blockSize, ")");

  std::array<bool, 256> present{};
  for (const char c : text) {
    present[static_cast<unsigned char>(c)] = true;
  }
  m_idOf.fill(-1);
  for (int byte = 0; byte < 256; ++byte) {
    if (present[byte]) {
      m_idOf[byte] = static_cast<std::int16_t>(m_vocabulary.size());
      m_vocabulary.push_back(static_cast<char>(byte));
    }
  }
  m_tokens = at::empty({length}, at::kLong);
  auto* out = m_tokens.data_ptr<std::int64_t>();
  for (std::int64_t i = 0; i < length; ++i) {
    out[i] = m_idOf[static_cast<unsigned char>(text[i])];
  }
  m_numSamples = (length - 1) / m_options.blockSize;
}

data::Example CharTextDataset::get(std::int64_t index) const {
  FATHOM_CHECK(index >= 0 && index < m_numSamples, ConfigError, "text sample index ", index, " is out of range [0, ",
               m_numSamples, ")");
  const std::int64_t begin = index * m_options.blockSize;
  const at::Tensor window = m_tokens.slice(0, begin, begin + m_options.blockSize + 1);
  return {window.slice(0, 0, m_options.blockSize).clone(), window.slice(0, 1).clone()};
}

std::int64_t CharTextDataset::numTokens() const {
  return m_tokens.numel();
}

std::vector<std::int64_t> CharTextDataset::encode(std::string_view text) const {
  std::vector<std::int64_t> ids;
  ids.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    FATHOM_CHECK(m_idOf[byte] >= 0, ConfigError, "character with byte value ", static_cast<int>(byte), " at offset ", i,
                 " is not in the vocabulary of ", m_options.path);
    ids.push_back(m_idOf[byte]);
  }
  return ids;
}

std::string CharTextDataset::decode(const std::vector<std::int64_t>& ids) const {
  std::string text;
  text.reserve(ids.size());
  for (const std::int64_t id : ids) {
    FATHOM_CHECK(id >= 0 && id < vocabSize(), ConfigError, "token id ", id, " is out of range [0, ", vocabSize(), ")");
    text.push_back(m_vocabulary[static_cast<std::size_t>(id)]);
  }
  return text;
}

std::string CharTextDataset::decode(const at::Tensor& ids) const {
  FATHOM_CHECK(ids.defined() && ids.dim() == 1, ConfigError, "decode needs a 1-D tensor of token ids");
  const at::Tensor flat = ids.to(at::kCPU, at::kLong).contiguous();
  const auto* data = flat.data_ptr<std::int64_t>();
  return decode(std::vector<std::int64_t>(data, data + flat.numel()));
}

}  // namespace fathom::models
