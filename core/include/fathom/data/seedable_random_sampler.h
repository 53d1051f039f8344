// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <vector>

namespace fathom::data {

/// A shuffling sampler whose order depends only on (seed + epoch), like Accelerate's SeedableRandomSampler
/// (accelerate/data_loader.py), so every rank computes the same permutation without communicating and a resumed
/// run sees the same order again.
///
/// The permutation is Fathom's own, not torch.randperm's: a Fisher-Yates shuffle driven by std::mt19937_64 (whose
/// output sequence the C++ standard fixes) seeded with seed + epoch, drawing bounded integers by rejection
/// sampling rather than std::uniform_int_distribution (whose algorithm is implementation-defined). The order is
/// therefore identical across compilers, standard libraries, LibTorch versions and machines; it is not the order
/// Python's RandomSampler would produce for the same seed.
class SeedableRandomSampler {
public:
  /// Samples 0..numSamples-1 shuffled with `seed` (ConfigError if numSamples < 0).
  SeedableRandomSampler(std::int64_t numSamples, std::uint64_t seed);

  /// Selects the epoch; the next indices() uses seed + epoch (Accelerate's set_epoch).
  void setEpoch(std::int64_t epoch) { m_epoch = epoch; }

  /// The epoch indices() shuffles for.
  std::int64_t epoch() const { return m_epoch; }

  /// The initial seed.
  std::uint64_t seed() const { return m_seed; }

  /// Number of samples.
  std::int64_t size() const { return m_numSamples; }

  /// The permutation of 0..numSamples-1 for the current epoch; the same value on every call and every rank.
  std::vector<std::int64_t> indices() const;

private:
  std::int64_t m_numSamples = 0;
  std::uint64_t m_seed = 0;
  std::int64_t m_epoch = 0;
};

}  // namespace fathom::data
