// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/parallel/comm.h>
#include <fathom/parallel/data_parallel_engine.h>
#include <fathom/parallel/fsdp_options.h>
#include <fathom/parallel/zero_options.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace fathom::parallel {

/// What FullyShardedEngine runs: FSDP's strategies, or DeepSpeed ZeRO-3 (the same mechanism with DeepSpeed's
/// timing: the root is freed after forward too, and gradients are reduced on every micro-step).
struct FullyShardedConfig {
  bool zero3 = false;  ///< DeepSpeed ZeRO-3 semantics (else FSDP)
  FsdpShardingStrategy sharding = FsdpShardingStrategy::FullShard;
  FsdpWrapPolicy wrapPolicy = FsdpWrapPolicy::TransformerBased;
  /// Class names of the unit candidates (the last `::` component of torch::nn::Module::name()). Required for
  /// TransformerBased and SizeBased (Accelerator fills in the model's block type).
  std::vector<std::string> unitClassNames;
  std::int64_t minNumParams = 100'000'000;  ///< SizeBased: a candidate holding fewer stays in its parent unit
  FsdpBackwardPrefetch backwardPrefetch = FsdpBackwardPrefetch::BackwardPre;
  bool forwardPrefetch = false;
  int limitAllGathers = 2;                     ///< units gathered ahead of the one running, at most
  std::optional<c10::ScalarType> reduceDtype;  ///< gradients are reduce-scattered in this dtype (then fp32 again)
  bool offloadParams = false;                  ///< shards, their gradients, the optimizer step in host memory
  bool offloadOptimizer = false;               ///< ZeRO-3 offload_optimizer: a host fp32 master of the shard is stepped
  bool syncModuleStates = true;                ///< broadcast rank 0's parameters and buffers before sharding
  /// Overlap communication with computation, as torch FSDP and DeepSpeed do: prefetch all-gathers are issued
  /// asynchronously (waited for by the unit's forward or backward), and post-backward reductions too (waited for,
  /// in issue order, at the end of backward). false: every collective is synchronous. The same collectives run
  /// in the same order either way, and the results are identical.
  bool overlapComm = true;
  /// The model's own forward opens a UnitScope (the built-in models::Model do): the root unit is then sharded
  /// like the others, gathered when the forward starts and freed after backward. Otherwise the root stays
  /// gathered, and is gathered again after every optimizer step.
  bool rootOpensScope = false;

  /// The FSDP configuration for `options` (validated; ConfigError for what Fathom does not run, named).
  static FullyShardedConfig fromFsdp(const FsdpOptions& options);
  /// The ZeRO-3 configuration for `options` (stage must be 3).
  static FullyShardedConfig fromZero3(const ZeroOptions& options);
};

/// Fully sharded data parallelism on c10d collectives: FSDP FULL_SHARD / SHARD_GRAD_OP / HYBRID_SHARD /
/// HYBRID_SHARD_ZERO2 / NO_SHARD and DeepSpeed ZeRO-3, for one module. See docs/sharding.md.
///
/// - Units: the modules of the wrap policy (outermost matches, registration order) each become a unit; every
///   other parameter belongs to the root unit. Each unit's parameters become one FlatParam sharded across the
///   shard group. Units must open a UnitScope in their forward (the built-in models' blocks do); see
///   unit_scope.h.
/// - Forward: a unit is all-gathered when its scope opens ("fsdp.forward.<unit>") and, for FULL_SHARD /
///   HYBRID_SHARD / ZeRO-3, freed when it closes; the root stays gathered through backward under FSDP, and every
///   unit under SHARD_GRAD_OP / HYBRID_SHARD_ZERO2 (so backward gathers nothing).
/// - Backward: a hook on each unit output gathers the unit again before its gradients are computed
///   ("fsdp.backward.<unit>"), prefetching the next unit per backwardPrefetch; once every parameter of a unit
///   has its gradient, the flat gradient is reduce-scattered (average; "fsdp.reduce_scatter.<unit>") into the
///   shard's gradient, the parameters' gradients are dropped and the unit is freed. NO_SHARD all-reduces
///   ("fsdp.all_reduce.<unit>"). The hybrid strategies then all-reduce the shard gradient across replicas.
/// - Overlap (overlapComm): prefetches are asynchronous all-gathers, waited for by whoever needs the unit next;
///   reductions are asynchronous and complete, in issue order, in the end-of-backward callback, so the shard
///   gradients are final when backward() returns. Every collective is still issued at the same point, in the
///   same order on every rank.
/// - no_sync (FSDP): gradients accumulate unsharded in the parameters until a synchronized backward. ZeRO-3
///   reduces on every backward and accumulates in the shard gradient.
/// - The optimizer steps on the shards (bindOptimizer). Construction broadcasts rank 0's state (syncModuleStates;
///   "fsdp.init") and shards.
///
/// `shardComm` is the group parameters are sharded over (the world; one node's ranks for the hybrid strategies)
/// and may be null for a single process; `replicaComm` (hybrid strategies only) joins the ranks holding the same
/// shard.
/// Both must outlive the engine. Collectives run on the thread that runs forward and backward (CPU autograd
/// runs backward on the calling thread; CUDA's device threads are serialized by an internal mutex).
class FullyShardedEngine : public DataParallelEngine {
public:
  FullyShardedEngine(std::shared_ptr<torch::nn::Module> module, Comm* shardComm, Comm* replicaComm,
                     FullyShardedConfig config);
  ~FullyShardedEngine() override;
  FullyShardedEngine(const FullyShardedEngine&) = delete;
  FullyShardedEngine& operator=(const FullyShardedEngine&) = delete;

  std::string_view strategy() const override;
  std::shared_ptr<torch::nn::Module> module() const override { return m_module; }
  void setRequireGradSync(bool sync) override;
  bool requireGradSync() const override;
  bool reducesEveryMicroStep() const override { return m_config.zero3; }
  void bindOptimizer(torch::optim::Optimizer& optimizer) override;
  void beforeOptimizerStep() override;
  void afterOptimizerStep() override;
  double clipGradNorm(double maxNorm, double normType) override;
  ModelStateBytes stateBytes(const std::vector<const torch::optim::Optimizer*>& optimizers) const override;
  NamedTensors fullStateDict(bool rank0Only) override;

  /// This rank's SHARDED_STATE_DICT: one flat fp32 tensor per unit, named by its label (its shard, padding
  /// included), and the layout in `metadata` (format, world, rank, and per unit its numel and the name, offset
  /// and shape of every parameter), so that loadShardedStateDict can refuse a different layout. Local.
  NamedTensors shardedStateDict(std::map<std::string, std::string>& metadata) const;
  /// Loads what shardedStateDict saved on the same rank of the same layout; ConfigError naming the first
  /// difference (world size, rank, a unit's size or a parameter) otherwise. Frees what was gathered. Local.
  void loadShardedStateDict(const NamedTensors& tensors, const std::map<std::string, std::string>& metadata);
  /// Loads a full state dict (fullStateDict's names and shapes; buffers included): each rank keeps its shards.
  /// ConfigError naming a missing parameter or a shape mismatch. Local.
  void loadFullStateDict(const NamedTensors& tensors) override;
  /// One per unit, in layout order: its shard (or host master), padded numel, this rank's offset, the layout.
  std::vector<SteppedShard> steppedShards() const override;

  /// Unit labels in layout order (root first when it has parameters) and their flat sizes, for tests and docs.
  std::vector<std::pair<std::string, std::int64_t>> unitSizes() const;
  const FullyShardedConfig& config() const { return m_config; }

  struct State;  ///< shared with the hooks, which hold it weakly

private:
  std::shared_ptr<torch::nn::Module> m_module;
  FullyShardedConfig m_config;
  std::shared_ptr<State> m_state;
};

}  // namespace fathom::parallel
