// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/checkpoint/state_dict.h>
#include <fathom/data/data_loader.h>
#include <fathom/data/sharding_options.h>
#include <fathom/train/accelerator_options.h>

#include <c10/core/Device.h>

#include <cstdint>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>

namespace fathom::parallel {
class Comm;
}

namespace fathom::train {

class GradientState;

/// How a prepared loader gets its batches (Accelerate's three loader classes).
enum class ShardMode {
  BatchSampler,   ///< map-style: every rank reads its own batches (BatchSamplerShard)
  IterableShard,  ///< iterable: every rank reads the whole stream and keeps its slice (IterableDatasetShard)
  Dispatch,       ///< rank 0 reads, each rank receives its slice by broadcast (DataLoaderDispatcher)
};

/// "batch_sampler", "iterable_shard", "dispatch".
const char* toString(ShardMode mode);

/// What a prepared loader needs from its Accelerator. `comm` is null in a single process; `state` outlives the
/// loader (the Accelerator owns it).
struct ShardContext {
  int processIndex = 0;
  int numProcesses = 1;
  c10::Device device = c10::Device(c10::kCPU);
  parallel::Comm* comm = nullptr;
  GradientState* state = nullptr;
  DataLoaderConfiguration config;
};

/// A prepared data loader: Accelerate's DataLoaderShard / DataLoaderDispatcher. Iterating it yields this rank's
/// batches on the accelerator's device, with exactly Accelerate's sharding (docs/data.md): round-robin batches
/// or split slices, even_batches top-up, drop_last, iterable slicing, dispatch from rank 0, seeded shuffling per
/// epoch, and skipped leading batches.
///
/// While a loop runs the loader is the GradientState's active loader: endOfDataloader() becomes true exactly
/// when the last batch is yielded (it reads one batch ahead), and remainder() tells gather_for_metrics how many
/// samples of the last global batch are real. The iteration ends, and the loader stops being active, when the
/// range-for ends, also by break or exception. Iterate from the training thread only; in Dispatch mode every
/// rank must iterate in lockstep (it communicates).
class DataLoaderShard {
public:
  /// Validates the combination (ConfigError naming the value: split_batches with a batch size that is not a
  /// multiple of the processes, a negative skip, ...). `skipBatches` leading batches of this rank are skipped.
  DataLoaderShard(data::DataLoader loader, ShardContext context, std::int64_t skipBatches = 0);
  ~DataLoaderShard();
  DataLoaderShard(const DataLoaderShard&) = delete;
  DataLoaderShard& operator=(const DataLoaderShard&) = delete;

  class Iterator;
  /// Starts an epoch's iteration (the epoch set by setEpoch()).
  Iterator begin();
  /// The end sentinel.
  Iterator end();

  /// Batches this rank yields in one epoch: exact for BatchSampler mode and for map-style Dispatch (after the
  /// skip); -1 for iterable datasets, whose length is unknown.
  std::int64_t size() const;
  /// Selects the shuffle epoch (Accelerate's set_epoch; also forwarded to the dataset). Selecting another epoch than
  /// a loaded position's drops that position's pending skip.
  void setEpoch(std::int64_t epoch);
  std::int64_t epoch() const { return m_epoch; }
  /// True while the last batch of the current iteration is being processed.
  bool endOfDataloader() const { return m_endOfDataloader; }
  /// Real samples in the last global batch: n % total_batch_size for map-style loaders that keep the last
  /// batch, the observed size of the last dispatched batch, -1 when unknown or dropped (data::remainder).
  std::int64_t remainder() const { return m_remainder; }
  /// Samples one step consumes across all ranks.
  std::int64_t totalBatchSize() const { return m_sharding.totalBatchSize(); }
  /// The sharding the loader applies.
  const data::ShardingOptions& sharding() const { return m_sharding; }
  ShardMode mode() const { return m_mode; }
  /// Leading batches skipped.
  std::int64_t skipBatches() const { return m_skip; }
  /// Batches of the current epoch this rank has consumed: skipped ones plus those yielded by the current (or last)
  /// iteration (after loadStateDict, before iterating: the loaded position). The batch being processed counts as
  /// consumed.
  std::int64_t batchesConsumed() const;
  /// The position for a checkpoint: values "epoch", "batches" (batchesConsumed) and, to refuse another data
  /// setup on load, "seed", "shuffle", "dataset_size", "batch_size", "num_processes", "mode", plus
  /// "total_batch_size" (samples per step) to carry the position to another number of processes.
  checkpoint::StateDict stateDict() const;
  /// Resumes at a saved position: selects its epoch, and the next iteration of that epoch skips its consumed
  /// batches (Accelerate's skip_first_batches, carried by the checkpoint), once. Saved on another number of
  /// processes (a resharded load), the position is carried to the same sample of the epoch: k steps of T samples
  /// become k·T / T' steps of this loader's T' (docs/checkpoint.md, "Resharding"). ConfigError naming `file` and the
  /// value when the data setup differs or the position cannot be carried exactly.
  void loadStateDict(const checkpoint::StateDict& state, const std::string& file);
  /// loadStateDict's checks alone (ConfigError naming `file`); changes nothing.
  void checkStateDict(const checkpoint::StateDict& state, const std::string& file) const;
  /// The loader as the user built it.
  const data::DataLoader& base() const { return m_loader; }
  /// The context it was prepared with.
  const ShardContext& context() const { return m_context; }

  /// An input iterator over this rank's batches. Copies share one iteration.
  class Iterator {
  public:
    using iterator_category = std::input_iterator_tag;
    using value_type = data::Batch;
    using difference_type = std::ptrdiff_t;
    using pointer = const data::Batch*;
    using reference = const data::Batch&;

    Iterator() = default;
    reference operator*() const;
    pointer operator->() const { return &**this; }
    Iterator& operator++();
    /// Equal when both are at the end.
    bool operator==(const Iterator& other) const { return atEnd() == other.atEnd(); }

  private:
    friend class DataLoaderShard;
    struct Run;
    explicit Iterator(std::shared_ptr<Run> run) : m_run(std::move(run)) {}
    bool atEnd() const;
    std::shared_ptr<Run> m_run;
  };

private:
  using Producer = std::function<std::optional<data::Batch>()>;
  Producer makeProducer();
  Producer batchSamplerProducer();
  Producer iterableShardProducer();
  Producer dispatchProducer();
  data::Batch toDevice(data::Batch batch) const;
  void iterationStarted();
  void iterationEnded();

  data::DataLoader m_loader;
  ShardContext m_context;
  data::ShardingOptions m_sharding;
  ShardMode m_mode = ShardMode::BatchSampler;
  std::int64_t m_skip = 0;
  std::int64_t m_resumeSkip = 0;  ///< a loaded position's skip, for the next iteration of m_epoch
  std::int64_t m_activeSkip = 0;  ///< batches the current (or last) iteration skipped
  std::int64_t m_yielded = 0;     ///< batches the current (or last) iteration yielded
  std::int64_t m_epoch = 0;
  bool m_endOfDataloader = false;
  std::int64_t m_remainder = -1;
  bool m_active = false;
};

}  // namespace fathom::train
