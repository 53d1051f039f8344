// SPDX-License-Identifier: Apache-2.0
#include <fathom/data/seedable_random_sampler.h>

#include <fathom/common/error.h>

#include <limits>
#include <numeric>
#include <random>
#include <utility>

namespace fathom::data {
namespace {

/// Uniform integer in [0, bound] from raw 64-bit draws, by rejection of the biased top range (portable, unlike
/// std::uniform_int_distribution).
std::uint64_t drawAtMost(std::mt19937_64& engine, std::uint64_t bound) {
  if (bound == std::numeric_limits<std::uint64_t>::max()) {
    return engine();
  }
  const std::uint64_t range = bound + 1;
  const std::uint64_t limit =
      std::numeric_limits<std::uint64_t>::max() - std::numeric_limits<std::uint64_t>::max() % range;
  std::uint64_t x = engine();
  while (x >= limit) {
    x = engine();
  }
  return x % range;
}

}  // namespace

SeedableRandomSampler::SeedableRandomSampler(std::int64_t numSamples, std::uint64_t seed)
    : m_numSamples(numSamples), m_seed(seed) {
  FATHOM_CHECK(numSamples >= 0, ConfigError, "num_samples must be >= 0, got ", numSamples);
}

std::vector<std::int64_t> SeedableRandomSampler::indices() const {
  std::vector<std::int64_t> order(static_cast<std::size_t>(m_numSamples));
  std::iota(order.begin(), order.end(), std::int64_t{0});
  // seed + epoch as Accelerate does; unsigned wrap-around keeps negative epochs well defined.
  std::mt19937_64 engine(m_seed + static_cast<std::uint64_t>(m_epoch));
  for (std::size_t i = order.size(); i > 1; --i) {
    const auto j = static_cast<std::size_t>(drawAtMost(engine, i - 1));
    std::swap(order[i - 1], order[j]);
  }
  return order;
}

}  // namespace fathom::data
