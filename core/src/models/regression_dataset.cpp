// SPDX-License-Identifier: Apache-2.0
#include "fathom/models/regression_dataset.h"

#include "fathom/common/error.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <cmath>

namespace fathom::models {

void validate(const RegressionDatasetOptions& o) {
  FATHOM_CHECK(o.numSamples >= 1, ConfigError, "regression num_samples must be >= 1, got ", o.numSamples);
  FATHOM_CHECK(o.dim >= 1, ConfigError, "regression dim must be >= 1, got ", o.dim);
  FATHOM_CHECK(std::isfinite(o.noise) && o.noise >= 0.0, ConfigError, "regression noise must be finite and >= 0, got ",
               o.noise);
}

RegressionDataset::RegressionDataset(RegressionDatasetOptions options) : m_options(options) {
  validate(m_options);
  // A private generator: the samples depend on `seed` only, never on torch::manual_seed or on what other code
  // drew before. w first, so the task (w) is the same whatever numSamples is.
  at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(m_options.seed);
  const auto f32 = at::TensorOptions().dtype(at::kFloat);
  m_w = at::randn({m_options.dim}, gen, f32);
  m_x = at::randn({m_options.numSamples, m_options.dim}, gen, f32);
  const at::Tensor eps = at::randn({m_options.numSamples, 1}, gen, f32);
  const double scale = 1.0 / std::sqrt(static_cast<double>(m_options.dim));
  m_y = at::matmul(m_x, m_w).unsqueeze(1).mul(scale).add(eps.mul(m_options.noise));
}

data::Example RegressionDataset::get(std::int64_t index) const {
  FATHOM_CHECK(index >= 0 && index < m_options.numSamples, ConfigError, "regression sample index ", index,
               " is out of range [0, ", m_options.numSamples, ")");
  return {m_x[index].clone(), m_y[index].clone()};
}

data::Batch RegressionDataset::getBatch(const std::vector<std::int64_t>& indices) const {
  FATHOM_CHECK(!indices.empty(), ConfigError, "regression: a batch needs at least one index");
  for (std::int64_t index : indices) {
    FATHOM_CHECK(index >= 0 && index < m_options.numSamples, ConfigError, "regression sample index ", index,
                 " is out of range [0, ", m_options.numSamples, ")");
  }
  const at::Tensor rows = at::tensor(indices, at::kLong);
  return {m_x.index_select(0, rows), m_y.index_select(0, rows), indices};
}

}  // namespace fathom::models
