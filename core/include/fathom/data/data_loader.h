// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/data/dataset.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace fathom::data {

/// torch.utils.data.DataLoader's arguments that sharding depends on.
struct DataLoaderOptions {
  std::int64_t batchSize = 1;  ///< samples per batch (>= 1); per process once prepared, as in Accelerate
  bool shuffle = false;        ///< draw samples in a seeded random order (SeedableRandomSampler), else 0..n-1
  bool dropLast = false;       ///< drop the final short batch
  std::uint64_t seed = 0;      ///< the shuffle seed; epoch e shuffles with seed + e
};

/// What a user writes before distributing anything: a dataset and how to batch it. Iterating it directly
/// gives the single-process batches (CPU tensors); `Accelerator::prepare` turns it into a DataLoaderShard that
/// yields only this rank's share, on the accelerator's device. Exactly one of the two dataset kinds is set.
/// Cheap to copy (the dataset is shared).
class DataLoader {
public:
  /// A map-style loader. Throws ConfigError for a null dataset or batchSize < 1.
  DataLoader(std::shared_ptr<Dataset> dataset, DataLoaderOptions options = {});
  /// An iterable-dataset loader (shuffle is not allowed, as for torch's DataLoader: ConfigError).
  DataLoader(std::shared_ptr<IterableDataset> dataset, DataLoaderOptions options = {});

  /// The map-style dataset, or nullptr.
  const std::shared_ptr<Dataset>& dataset() const { return m_dataset; }
  /// The iterable dataset, or nullptr.
  const std::shared_ptr<IterableDataset>& iterableDataset() const { return m_iterable; }
  /// Whether this loader reads an IterableDataset.
  bool isIterable() const { return m_iterable != nullptr; }
  /// The options it was built with.
  const DataLoaderOptions& options() const { return m_options; }

  /// The sample order of epoch `epoch` (map-style only): 0..n-1, or the seeded permutation when shuffling.
  std::vector<std::int64_t> sampleOrder(std::int64_t epoch) const;
  /// Number of batches (map-style: ceil or floor of n / batchSize; iterable: unknown, -1).
  std::int64_t size() const;

  /// Every batch of epoch `epoch` in order, on the CPU: the single-process view (tests and small data).
  std::vector<Batch> batches(std::int64_t epoch = 0) const;

private:
  std::shared_ptr<Dataset> m_dataset;
  std::shared_ptr<IterableDataset> m_iterable;
  DataLoaderOptions m_options;
};

}  // namespace fathom::data
