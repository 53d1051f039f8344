// SPDX-License-Identifier: Apache-2.0
// Internal to core/parallel: ZeroEngine's gradient path (hooks, per-pass state, reduce-scatter of buckets).
#pragma once

#include <fathom/parallel/comm.h>
#include <fathom/parallel/zero_bucket_layout.h>
#include <fathom/parallel/zero_options.h>

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace fathom::parallel {

/// Moves ZeRO stage 1-2 gradients from the parameters' .grad into the partition gradients, for ZeroEngine.
///
/// For bucket k, "reducing" copies the gradients of its parameters (zeros for one without a gradient) into a flat
/// staging buffer of the largest padded bucket, zeroes the padding, reduce-scatters the average into this rank's
/// partition gradient (`targets[k].mutable_grad()`: created by the first reduction, accumulated into afterwards;
/// a target on another device, the offloaded host copy, receives a copy at once) and releases the parameters'
/// .grad. Buckets are reduced strictly in index order on every rank within a backward pass.
///
/// - Stage 2: a bucket's reduce-scatter is issued asynchronously from the gradient hook that completes it
///   (overlapComm; the bucket is copied into its own buffer and its .grad released at once), else the bucket is
///   reduced at the end of the backward pass; the end-of-backward callback (queued on the autograd engine) waits
///   for the issued ones in bucket order, accumulates them, then reduces what is left (buckets of unused
///   parameters) synchronously, on every synchronized pass. The partition gradients are final when backward()
///   returns.
/// - Stage 1: the callback reduces every bucket, once per synchronized backward pass.
/// - requireSync false (no_sync): hooks do nothing, .grad accumulates; hasUnreducedGradients() turns true until
///   the next synchronized pass has reduced them.
///
/// Errors in a hook are kept and rethrown by the callback, so they surface from backward() with the per-pass
/// state reset. Hooks and callback serialize on an internal mutex. `comm`, `layout` and the tensors must outlive
/// this object.
class ZeroGradReducer {
public:
  /// A trainable parameter, by layout tensor index (registration order).
  struct Param {
    std::string name;
    at::Tensor tensor;
  };

  /// Installs a post-hook on every parameter's gradient accumulator. `targets` are the tensors the optimizer
  /// steps, one per bucket; `device` the options of the flat gradient buffers (the parameters' device).
  ZeroGradReducer(Comm& comm, const ZeroOptions& options, const ZeroBucketLayout& layout, std::vector<Param> params,
                  std::vector<at::Tensor> targets, const at::TensorOptions& device);
  /// Removes the hooks; ones captured by a graph still alive become inert.
  ~ZeroGradReducer();
  ZeroGradReducer(const ZeroGradReducer&) = delete;
  ZeroGradReducer& operator=(const ZeroGradReducer&) = delete;

  void setRequireSync(bool sync);
  bool requireSync() const;
  /// A backward pass ran with sync off and no synchronized pass has reduced its gradients yet.
  bool hasUnreducedGradients() const;
  /// The bytes of the parameters' gradient storages (each once) when the last synchronized pass began reducing:
  /// what stage 1 holds from a step's first backward to its reduction, measured from the live tensors (0 before the
  /// first reduction). Stage 2 releases buckets as it goes, so this is meaningful for stage 1 only.
  std::int64_t gradientBytesAtLastReduction() const;
  /// Bytes of the buffers kept between passes for the reductions (the staging buffer of the largest padded bucket
  /// and, with more than one rank, the scratch partition), measured from their storages.
  std::int64_t workspaceBytes() const;

  struct State;  ///< shared with the hooks, which hold it weakly

private:
  std::shared_ptr<State> m_state;
};

}  // namespace fathom::parallel
