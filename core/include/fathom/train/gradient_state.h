// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <vector>

namespace fathom::train {

class DataLoaderShard;

/// Accelerate's GradientState: whether this batch synchronizes gradients, and what the data loader being
/// iterated knows about the end of the data. Shared by an Accelerator and the loaders it prepared; used on the
/// training thread only.
///
/// Invariants: syncGradients() is true outside accumulate(); the active loader is the innermost loader being
/// iterated (nested loops restore the outer one when the inner loop ends, also by `break`).
class GradientState {
public:
  explicit GradientState(int accumulationSteps = 1, bool syncWithDataloader = true);

  /// Accelerate's `_do_sync()`, run on entry to accumulate(): at the last batch of the active loader (when
  /// syncing with the loader) the counter resets and this batch syncs; otherwise the counter advances and the
  /// batch syncs when it reaches a multiple of the accumulation steps.
  void advance();

  /// Whether this batch's backward all-reduces gradients and the optimizer steps.
  bool syncGradients() const { return m_syncGradients; }
  /// Sets it directly (Accelerate's settable `sync_gradients`).
  void setSyncGradients(bool sync) { m_syncGradients = sync; }
  /// Batches per optimizer step.
  int accumulationSteps() const { return m_accumulationSteps; }
  /// Changes the accumulation steps (>= 1; ConfigError otherwise).
  void setAccumulationSteps(int steps);
  /// The accumulation counter (Accelerate's `accelerator.step`).
  std::int64_t step() const { return m_step; }
  /// Restores the counter (resuming a checkpoint).
  void setStep(std::int64_t step) { m_step = step; }

  /// Whether the active loader is yielding its last batch. False outside a prepared loader.
  bool endOfDataloader() const;
  /// Real samples in the active loader's last global batch (see data::remainder): -1 when unknown or dropped.
  std::int64_t remainder() const;
  /// The innermost loader being iterated, or nullptr.
  const DataLoaderShard* activeDataloader() const { return m_loaders.empty() ? nullptr : m_loaders.back(); }

  /// Called by a DataLoaderShard when an iteration starts / ends.
  void pushLoader(const DataLoaderShard* loader);
  void popLoader(const DataLoaderShard* loader);

private:
  int m_accumulationSteps = 1;
  bool m_syncWithDataloader = true;
  bool m_syncGradients = true;
  std::int64_t m_step = 0;
  std::vector<const DataLoaderShard*> m_loaders;  ///< innermost last
};

}  // namespace fathom::train
