// SPDX-License-Identifier: Apache-2.0
#include <fathom/common/error.h>
#include <fathom/data/batch_sampler_shard.h>
#include <fathom/data/data_loader.h>
#include <fathom/data/seedable_random_sampler.h>

#include <numeric>

namespace fathom::data {

namespace {

void checkOptions(const DataLoaderOptions& options) {
  FATHOM_CHECK(options.batchSize >= 1, ConfigError, "batch_size must be >= 1 (got ", options.batchSize, ")");
}

}  // namespace

DataLoader::DataLoader(std::shared_ptr<Dataset> dataset, DataLoaderOptions options)
    : m_dataset(std::move(dataset)), m_options(options) {
  FATHOM_CHECK(m_dataset != nullptr, ConfigError, "DataLoader: the dataset is null");
  checkOptions(m_options);
}

DataLoader::DataLoader(std::shared_ptr<IterableDataset> dataset, DataLoaderOptions options)
    : m_iterable(std::move(dataset)), m_options(options) {
  FATHOM_CHECK(m_iterable != nullptr, ConfigError, "DataLoader: the iterable dataset is null");
  checkOptions(m_options);
  FATHOM_CHECK(!m_options.shuffle, ConfigError,
               "DataLoader: shuffle=true is not allowed with an IterableDataset (it has no indices to permute)");
}

std::vector<std::int64_t> DataLoader::sampleOrder(std::int64_t epoch) const {
  FATHOM_CHECK(m_dataset != nullptr, ConfigError, "DataLoader::sampleOrder: an iterable dataset has no indices");
  if (m_options.shuffle) {
    SeedableRandomSampler sampler(m_dataset->size(), m_options.seed);
    sampler.setEpoch(epoch);
    return sampler.indices();
  }
  std::vector<std::int64_t> order(static_cast<std::size_t>(m_dataset->size()));
  std::iota(order.begin(), order.end(), std::int64_t{0});
  return order;
}

std::int64_t DataLoader::size() const {
  if (!m_dataset)
    return -1;
  const std::int64_t n = m_dataset->size();
  return m_options.dropLast ? n / m_options.batchSize : (n + m_options.batchSize - 1) / m_options.batchSize;
}

std::vector<Batch> DataLoader::batches(std::int64_t epoch) const {
  std::vector<Batch> out;
  if (m_dataset) {
    m_dataset->setEpoch(epoch);
    for (const IndexBatch& indices : makeBatches(sampleOrder(epoch), m_options.batchSize, m_options.dropLast)) {
      out.push_back(m_dataset->getBatch(indices));
    }
    return out;
  }
  m_iterable->setEpoch(epoch);
  m_iterable->reset();
  std::vector<Example> pending;
  while (auto example = m_iterable->next()) {
    pending.push_back(std::move(*example));
    if (static_cast<std::int64_t>(pending.size()) == m_options.batchSize) {
      out.push_back(collate(pending));
      pending.clear();
    }
  }
  if (!pending.empty() && !m_options.dropLast)
    out.push_back(collate(pending));
  return out;
}

}  // namespace fathom::data
