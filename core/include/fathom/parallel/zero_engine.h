// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/parallel/comm.h>
#include <fathom/parallel/data_parallel_engine.h>
#include <fathom/parallel/zero_bucket_layout.h>
#include <fathom/parallel/zero_options.h>

#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/optim/optimizer.h>

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace fathom::parallel {

/// DeepSpeed's ZeRO stages 1 and 2 for one module over the ranks of `comm` (docs/sharding.md, "ZeRO stages 1
/// and 2"). Parameters stay replicated; the optimizer steps only this rank's partition of them.
///
/// - Construction broadcasts parameters and buffers from rank 0 ("zero.init"), lays the trainable parameters
///   out in flat buckets (ZeroBucketLayout: plan::zeroBuckets over reduceBucketSize, padded per
///   plan::paddedElements) and re-points every parameter's data into its bucket buffer, so the model computes on
///   the flat buffers. Rank r's partition of bucket k is the view [r·S_k, (r+1)·S_k) of its buffer.
/// - bindOptimizer() puts the partitions (one tensor per bucket) in the optimizer in place of the module's
///   parameters. In fp32 the partitions are the parameters themselves: there is no master copy on the device.
///   With offloadOptimizer == Cpu the optimizer steps host copies instead (fp32 master, gradient and state on
///   the CPU, pinned when the compute device is CUDA).
/// - Stage 2 reduce-scatters (average, "zero.bucket.<k>") each bucket's gradients into the partition gradient
///   as soon as the bucket is complete during backward (overlapComm; else at the end of backward), on every
///   synchronized micro-step, accumulating, and releases the parameters' .grad. Stage 1 keeps the full .grad
///   through the backward passes of a step and reduce-scatters every bucket once, at the end of the
///   synchronized backward pass (the accumulation boundary, as DeepSpeed), then releases them.
/// - afterOptimizerStep() all-gathers every bucket's updated partitions into its buffer ("zero.allgather.<k>")
///   so every rank's parameters are equal again, and zeroes the partition gradients (DeepSpeed's step does).
/// - setRequireGradSync(false) (no_sync) keeps full gradients locally for both stages; the next synchronized
///   backward reduces what accumulated. World size 1: no communication; the partition is the whole buffer.
///
/// Requirements (ConfigError at construction, naming the value): stage 1 or 2 (stage 3 is the fully sharded
/// engine's), no Nvme offload, trainable parameters all float32 on one device.
///
/// Threading: gradient hooks and the end-of-backward callback run on autograd's threads and serialize on an
/// internal mutex; one backward pass at a time, and no other collective on `comm` during one. `comm` must
/// outlive this object. Collective methods (construction, afterOptimizerStep, clipGradNorm) run on every rank
/// in the same order.
class ZeroEngine final : public DataParallelEngine {
public:
  /// Validates `options`, broadcasts the module's state from rank 0, builds the buckets and installs the hooks.
  /// The module is kept alive by this object. Collective.
  ZeroEngine(std::shared_ptr<torch::nn::Module> module, Comm& comm, ZeroOptions options);
  /// Removes the gradient hooks. Parameters keep living in the bucket buffers.
  ~ZeroEngine() override;
  ZeroEngine(const ZeroEngine&) = delete;
  ZeroEngine& operator=(const ZeroEngine&) = delete;

  /// "zero1" or "zero2".
  std::string_view strategy() const override;
  std::shared_ptr<torch::nn::Module> module() const override { return m_module; }
  void setRequireGradSync(bool sync) override;
  bool requireGradSync() const override;
  /// Stage 2: true (DeepSpeed reduces on every micro-step); stage 1: false (once per optimizer step).
  bool reducesEveryMicroStep() const override;

  /// Replaces the module's parameters in `optimizer` by the tensors this rank steps (stepped()): the
  /// parameters must all be in one parameter group (ConfigError naming the number of groups otherwise, or the
  /// parameters missing from it), and the optimizer must hold no state for them. Group options stay as they are.
  void bindOptimizer(torch::optim::Optimizer& optimizer) override;
  /// Checks that the gradients to step on are reduced (an Error when the last backward ran under no_sync).
  void beforeOptimizerStep() override;
  /// Copies offloaded partitions back, all-gathers every bucket and zeroes the partition gradients. Collective.
  void afterOptimizerStep() override;
  /// Global `normType`-norm of the partition gradients (one all_reduce, "zero.clip"), scaled in place to at most
  /// `maxNorm`; returns the norm before clipping. Collective.
  double clipGradNorm(double maxNorm, double normType) override;
  /// parameters: Σ padded buckets × 4 (replicated). gradients: stage 1 the full, unsharded buffers (Σ padded
  /// × 4, held from the first backward of a step until its reduction), stage 2 the partitions (Σ S_k × 4).
  /// Optimizer states: the optimizers' state tensors of stepped(). Offloaded: partition gradients, optimizer
  /// states and the fp32 master copy count under `host`.
  ModelStateBytes stateBytes(const std::vector<const torch::optim::Optimizer*>& optimizers) const override;
  /// Clones of the parameters and buffers (every rank holds full parameters; no communication).
  NamedTensors fullStateDict(bool rank0Only) override;
  /// Copies the values into the parameters (the bucket buffers) and refreshes the offloaded host masters.
  void loadFullStateDict(const NamedTensors& tensors) override;
  /// One per bucket ("bucket.<k>"): stepped()[k], the padded bucket, rank·S_k, its parameters in buffer order.
  std::vector<SteppedShard> steppedShards() const override;

  const ZeroOptions& options() const;
  const ZeroBucketLayout& layout() const;
  /// Bucket k's parameter names, in buffer order.
  std::vector<std::string> bucketParameterNames(std::size_t bucket) const;
  /// The tensors the optimizer steps, one per bucket: this rank's partitions, or their host copies when offloaded.
  const std::vector<at::Tensor>& stepped() const;

  struct State;  ///< buffers, partitions, the layout and the gradient reducer

private:
  std::shared_ptr<torch::nn::Module> m_module;
  std::unique_ptr<State> m_state;
};

}  // namespace fathom::parallel
