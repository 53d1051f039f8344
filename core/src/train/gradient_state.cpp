// SPDX-License-Identifier: Apache-2.0
#include <fathom/common/error.h>
#include <fathom/train/data_loader_shard.h>
#include <fathom/train/gradient_state.h>

#include <algorithm>

namespace fathom::train {

GradientState::GradientState(int accumulationSteps, bool syncWithDataloader)
    : m_syncWithDataloader(syncWithDataloader) {
  setAccumulationSteps(accumulationSteps);
}

void GradientState::setAccumulationSteps(int steps) {
  FATHOM_CHECK(steps >= 1, ConfigError, "gradient_accumulation_steps must be >= 1 (got ", steps, ")");
  m_accumulationSteps = steps;
}

void GradientState::advance() {
  if (m_syncWithDataloader && endOfDataloader()) {
    m_step = 0;
    m_syncGradients = true;
    return;
  }
  m_step += 1;
  m_syncGradients = m_step % m_accumulationSteps == 0;
}

bool GradientState::endOfDataloader() const {
  const DataLoaderShard* loader = activeDataloader();
  return loader != nullptr && loader->endOfDataloader();
}

std::int64_t GradientState::remainder() const {
  const DataLoaderShard* loader = activeDataloader();
  return loader != nullptr ? loader->remainder() : -1;
}

void GradientState::pushLoader(const DataLoaderShard* loader) {
  m_loaders.push_back(loader);
}

void GradientState::popLoader(const DataLoaderShard* loader) {
  // Normally the innermost; an outer loop that ends first (iterators kept alive elsewhere) is removed where it is.
  auto it = std::find(m_loaders.rbegin(), m_loaders.rend(), loader);
  if (it != m_loaders.rend())
    m_loaders.erase(std::next(it).base());
}

}  // namespace fathom::train
