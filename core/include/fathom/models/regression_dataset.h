// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "fathom/data/dataset.h"

#include <ATen/core/Tensor.h>

#include <cstdint>

namespace fathom::models {

/// Synthetic linear-regression data (`fathom train --dataset regression`).
struct RegressionDatasetOptions {
  std::int64_t numSamples = 4096;  ///< rows; must be >= 1
  std::int64_t dim = 256;          ///< features per row (= the MLP's hidden width); must be >= 1
  std::uint64_t seed = 0;          ///< seeds a private CPU generator; the global torch seed is not touched
  double noise = 0.1;              ///< standard deviation of the label noise; must be finite and >= 0
};

/// Throws fathom::ConfigError naming the offending value.
void validate(const RegressionDatasetOptions& options);

/// y = x·w/√dim + noise·ε with x, ε ~ N(0, 1) and a fixed w ~ N(0, 1), all drawn from one CPU generator seeded
/// with `seed`, in the order w [dim], x [numSamples, dim], ε [numSamples]. The data depend only on the options:
/// every process and every run sees the same samples (no global RNG state is read or changed), which is what
/// data-parallel sharding needs. Everything is generated in the constructor (numSamples·dim floats).
/// get(i) returns clones: input float [dim], target float [1], so callers may modify them freely.
class RegressionDataset : public data::Dataset {
public:
  /// Validates `options` (fathom::ConfigError on a bad value).
  explicit RegressionDataset(RegressionDatasetOptions options = {});

  std::int64_t size() const override { return m_options.numSamples; }
  /// Throws fathom::ConfigError unless 0 <= index < size().
  data::Example get(std::int64_t index) const override;
  /// One index_select per tensor (a copy, as collate's stack), instead of per-sample clones.
  data::Batch getBatch(const std::vector<std::int64_t>& indices) const override;

  const RegressionDatasetOptions& options() const { return m_options; }
  /// The true weight vector w, float [dim].
  const at::Tensor& weights() const { return m_w; }

private:
  RegressionDatasetOptions m_options;
  at::Tensor m_w;  ///< [dim]
  at::Tensor m_x;  ///< [numSamples, dim]
  at::Tensor m_y;  ///< [numSamples, 1]
};

}  // namespace fathom::models
