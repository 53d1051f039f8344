// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <optional>
#include <vector>

namespace fathom::data {

/// One sample: the model's input and the target its loss compares against. Both are CPU tensors without a
/// batch dimension; a loader stacks them into a Batch.
struct Example {
  at::Tensor input;   ///< e.g. float [hidden] for regression, int64 [block_size] for text
  at::Tensor target;  ///< e.g. float [1], int64 [block_size]
};

/// A stack of Examples along a new first dimension, plus the dataset indices they came from (empty for
/// iterable datasets and dispatched batches, where the loader does not know them).
struct Batch {
  at::Tensor input;                   ///< [B, ...]
  at::Tensor target;                  ///< [B, ...]
  std::vector<std::int64_t> indices;  ///< dataset index of each row, when known
  /// Rows in the batch (0 for an empty batch).
  std::int64_t size() const { return input.defined() ? input.size(0) : 0; }
};

/// Stacks examples (which must agree in shape and dtype) into one Batch. Throws fathom::ConfigError for an
/// empty list or mismatched shapes, naming the first example that differs.
Batch collate(const std::vector<Example>& examples, std::vector<std::int64_t> indices = {});

/// A map-style dataset (torch.utils.data.Dataset): `size()` samples addressed 0..size()-1. get() must be
/// deterministic and callable from the thread that iterates the loader; it may be called again for the same
/// index (even_batches tops up the tail from the start of the data).
class Dataset {
public:
  virtual ~Dataset() = default;
  /// Number of samples (>= 0).
  virtual std::int64_t size() const = 0;
  /// Sample `index`, 0 <= index < size().
  virtual Example get(std::int64_t index) const = 0;
  /// The samples `indices` as one batch (torch's `__getitems__`): the default collates get(i) for each index; a
  /// dataset held in memory overrides it with one gather per tensor, which loaders then use instead of
  /// `indices.size()` separate samples. Must equal collate(get(i)...) with `indices` recorded.
  virtual Batch getBatch(const std::vector<std::int64_t>& indices) const;
  /// Called by a loader before each epoch (Accelerate forwards set_epoch to the dataset). Default: nothing.
  virtual void setEpoch(std::int64_t /*epoch*/) {}
};

/// An iterable dataset (torch.utils.data.IterableDataset): a stream read front to back. Every rank reads the
/// whole stream and keeps its slice (see IterableDatasetShard), so the stream must be the same on every rank.
class IterableDataset {
public:
  virtual ~IterableDataset() = default;
  /// Restarts the stream (called at the start of every pass).
  virtual void reset() = 0;
  /// The next element, or std::nullopt at the end of the stream.
  virtual std::optional<Example> next() = 0;
  /// Called before each epoch. Default: nothing.
  virtual void setEpoch(std::int64_t /*epoch*/) {}
};

}  // namespace fathom::data
