// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/common/memory_category.h>

#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/optim/optimizer.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fathom::parallel {

/// Bytes of each model-state category one rank holds in one place.
struct StateCategoryBytes {
  std::int64_t parameters = 0;       ///< parameters at rest (this rank's flat shards for sharded strategies)
  std::int64_t gradients = 0;        ///< gradients the optimizer steps on (shards) and full ones kept between steps
  std::int64_t optimizerStates = 0;  ///< optimizer state tensors (Adam's exp_avg/exp_avg_sq, momentum buffers)
  std::int64_t masterWeights = 0;    ///< a separate fp32 copy of the parameters (0 when the stepped tensors are them)
  bool operator==(const StateCategoryBytes&) const = default;
};

/// StateCategoryBytes' fields by memory category (the model states, as plan::kOffloadedFields): metric keys,
/// --stats_json and sums iterate this instead of naming the fields.
inline constexpr std::array<MemoryCategoryField<StateCategoryBytes, std::int64_t>, 4> kStateCategoryFields{{
    {MemoryCategory::Parameters, &StateCategoryBytes::parameters},
    {MemoryCategory::Gradients, &StateCategoryBytes::gradients},
    {MemoryCategory::OptimizerStates, &StateCategoryBytes::optimizerStates},
    {MemoryCategory::MasterWeights, &StateCategoryBytes::masterWeights},
}};

/// What one rank holds for a prepared model, as a strategy accounts it: `device` on the compute device (the
/// planner's MemoryBreakdown categories), `host` what offloading keeps in host memory instead (the planner's
/// offloaded bytes). Flat shards count with their padding, because that is what is allocated.
struct ModelStateBytes {
  StateCategoryBytes device;
  StateCategoryBytes host;
  /// Largest number of bytes of gathered (unsharded) parameters held at once so far (FSDP / ZeRO-3 units in
  /// flight); 0 for replicated strategies.
  std::int64_t peakGatheredParameters = 0;
  /// Device bytes of the buffers the engine keeps for its collectives between steps that no category above holds
  /// (DDP's gradient buckets until the gradients alias them, ZeRO-1/2's bucket staging and scratch buffers),
  /// measured from the live tensors like the categories: with them, the categories account for every byte the
  /// engine keeps (tests/core/tst_state_bytes_allocator checks it against the allocator). Transient buffers of a
  /// collective in flight are not included.
  std::int64_t communicationBuffers = 0;
};

/// A named tensor of a state dict, in the module's registration order.
using NamedTensors = std::vector<std::pair<std::string, at::Tensor>>;

/// One tensor the optimizer steps under a sharded strategy, and its place in the unsharded flat buffer it is a
/// slice of: what a checkpoint's shard index records, so sharded files can be read without the engine.
struct SteppedShard {
  std::string name;              ///< "root", "h.0", ... (FSDP / ZeRO-3 units), "bucket.<k>" (ZeRO-1/2)
  at::Tensor tensor;             ///< what the optimizer steps: this rank's shard, or its host master copy
  std::int64_t globalNumel = 0;  ///< elements of the padded flat buffer
  std::int64_t offset = 0;       ///< this rank's first element in it
  /// JSON: {"numel": n, "padded": p, "parameters": [{"name", "offset", "shape"}, ...]}: the parameters laid end to
  /// end in the flat buffer.
  std::string layout;
};

/// The part of a data-parallel strategy (DDP, FSDP, ZeRO 1-3) that fathom::Accelerator drives: one engine per
/// prepared model. The engine owns the gradient synchronization and, for sharded strategies, where parameters,
/// gradients and optimizer states live; the training loop keeps calling model->forward, accelerator.backward,
/// optimizer->step and zeroGrad as in a single process.
///
/// Collective methods (marked) must be called on every rank in the same order.
class DataParallelEngine {
public:
  virtual ~DataParallelEngine() = default;

  /// "ddp", "fsdp", "zero1", "zero2", "zero3": the planner's strategy label (plan::strategyLabel without the
  /// FSDP flavour).
  virtual std::string_view strategy() const = 0;
  /// The prepared module (kept alive by the engine).
  virtual std::shared_ptr<torch::nn::Module> module() const = 0;

  /// false = torch's no_sync(): gradients accumulate locally, unsynchronized, until a backward with sync on.
  virtual void setRequireGradSync(bool sync) = 0;
  virtual bool requireGradSync() const = 0;
  /// DeepSpeed ZeRO-2/3 reduce gradients on every micro-step: accumulate() leaves them synchronizing.
  virtual bool reducesEveryMicroStep() const { return false; }

  /// Replaces, in `optimizer`'s parameter groups, this module's parameters by the tensors this rank steps (its
  /// shards; nothing changes for DDP). Must run before the optimizer's first step (its state is keyed by
  /// tensor). ConfigError when the optimizer already holds state for them or mixes them with other modules'
  /// parameters in a way the strategy cannot shard.
  virtual void bindOptimizer(torch::optim::Optimizer& optimizer) { (void)optimizer; }
  /// Runs around a synchronized optimizer step (offload copies, ZeRO's all-gather of updated partitions).
  virtual void beforeOptimizerStep() {}
  virtual void afterOptimizerStep() {}

  /// Clips the total `normType`-norm of the gradients the optimizer will step on to `maxNorm`, across all ranks
  /// for sharded strategies (one all_reduce of the local norm term); returns the norm before clipping.
  /// Collective for sharded strategies.
  virtual double clipGradNorm(double maxNorm, double normType) = 0;

  /// Bytes held now, by category; `optimizers` are the prepared optimizers (their state tensors that belong to
  /// this module are counted).
  virtual ModelStateBytes stateBytes(const std::vector<const torch::optim::Optimizer*>& optimizers) const = 0;

  /// The module's full state (parameters and buffers, unflattened, unpadded, fp32, in registration order).
  /// With rank0Only, ranks other than 0 get an empty list. Collective.
  virtual NamedTensors fullStateDict(bool rank0Only) = 0;
  /// Loads a full state dict (fullStateDict's names and shapes): every rank gets the values, a sharded
  /// strategy keeps its shards of them. ConfigError naming a missing parameter or a shape mismatch; extra
  /// entries are ignored. The default copies into the module's parameters and buffers. Local.
  virtual void loadFullStateDict(const NamedTensors& tensors);
  /// The tensors the optimizer steps for this module when they are shards of flat buffers (FSDP, ZeRO 1-3), in
  /// the order the engine put them in the optimizer; empty when the optimizer steps the module's own parameters
  /// (DDP, NO_SHARD-free single process). Local.
  virtual std::vector<SteppedShard> steppedShards() const { return {}; }
};

}  // namespace fathom::parallel
