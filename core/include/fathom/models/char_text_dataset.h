// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "fathom/data/dataset.h"

#include <ATen/core/Tensor.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace fathom::models {

/// Where the shipped corpus (resources/corpus/kjv_genesis_exodus.txt) is found, first match wins:
/// 1. the FATHOM_CORPUS environment variable when set and non-empty (then it is the only place tried: an
///    explicit override never falls back silently);
/// 2. `<directory of the running executable>/../share/fathom/corpus/kjv_genesis_exodus.txt` (installed layout);
/// 3. the source tree's `resources/corpus/kjv_genesis_exodus.txt`, compiled in.
/// Throws fathom::StorageError naming every place tried when none exists.
std::filesystem::path defaultCorpusPath();

/// A character-level language-modelling dataset (`fathom train --dataset text`).
struct CharTextDatasetOptions {
  std::filesystem::path path;   ///< text file; empty = defaultCorpusPath()
  std::int64_t blockSize = 64;  ///< tokens per sample (= the GPT's block_size); must be >= 1
};

/// Throws fathom::ConfigError naming the offending value (the file itself is checked by the constructor).
void validate(const CharTextDatasetOptions& options);

/// Bytes of a text file as tokens. The vocabulary is the sorted set of distinct bytes in the file (token id =
/// rank of the byte), so the shipped corpus has 73 tokens. Samples are non-overlapping windows: sample i covers
/// tokens [i·blockSize, i·blockSize + blockSize + 1); its input is the first blockSize tokens and its target the
/// same window shifted by one (next-token prediction), both int64 [blockSize]. size() = (length − 1) / blockSize.
/// The whole file is held in memory (8 bytes per character).
class CharTextDataset : public data::Dataset {
public:
  /// Reads the file. Throws fathom::StorageError naming the path when it cannot be read, and
  /// fathom::ConfigError naming the path, its length and the block size when it is shorter than blockSize + 1.
  explicit CharTextDataset(CharTextDatasetOptions options = {});

  std::int64_t size() const override { return m_numSamples; }
  /// Throws fathom::ConfigError unless 0 <= index < size(). Returns fresh tensors (clones).
  data::Example get(std::int64_t index) const override;

  /// Number of distinct bytes (tokens).
  std::int64_t vocabSize() const { return static_cast<std::int64_t>(m_vocabulary.size()); }
  /// The distinct bytes of the file, sorted: vocabulary()[id] is the byte of token `id`.
  const std::string& vocabulary() const { return m_vocabulary; }
  /// Token ids of `text`; throws fathom::ConfigError for a byte not in the vocabulary, naming it and its offset.
  std::vector<std::int64_t> encode(std::string_view text) const;
  /// Text of token ids; throws fathom::ConfigError for an id outside [0, vocabSize()).
  std::string decode(const std::vector<std::int64_t>& ids) const;
  /// Text of a 1-D int64 tensor of token ids (e.g. an Example's input).
  std::string decode(const at::Tensor& ids) const;

  /// The file that was read (resolved when options.path was empty).
  const std::filesystem::path& path() const { return m_options.path; }
  /// Length of the file in tokens (bytes).
  std::int64_t numTokens() const;

private:
  CharTextDatasetOptions m_options;
  std::string m_vocabulary;                ///< sorted distinct bytes
  std::array<std::int16_t, 256> m_idOf{};  ///< byte → token id, −1 when absent
  at::Tensor m_tokens;                     ///< int64 [length]
  std::int64_t m_numSamples = 0;
};

}  // namespace fathom::models
