// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/parallel/comm.h>
#include <fathom/parallel/ddp_options.h>

#include <ATen/core/Tensor.h>
#include <c10/core/ScalarType.h>
#include <torch/nn/module.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace fathom::parallel {

/// One gradient bucket: parameters whose gradients are all-reduced together, as one flat buffer.
struct DdpBucket {
  /// In the order their gradients are expected (reverse registration order), which is also their order in the
  /// flat buffer.
  std::vector<std::string> parameterNames;
  std::int64_t elements = 0;  ///< Σ numel of the parameters
  std::int64_t bytes = 0;     ///< elements × element size of `dtype`: the all_reduce's bytes without compression
  c10::ScalarType dtype = c10::ScalarType::Undefined;  ///< every parameter of a bucket has this dtype (and device)
};

/// Data-parallel gradient synchronization for one module, in the manner of torch DDP's Reducer: gradients are
/// averaged across the ranks of `comm` in buckets whose all-reduce runs on the backend's threads while the
/// backward pass goes on, and a plain `loss.backward()` returns with every rank holding the same averaged
/// param.grad(). See docs/ddp.md.
///
/// - Construction broadcasts every parameter and buffer from rank 0 (records labelled "ddp.init", after one
///   "ddp.init.verify" all_gather that checks every rank has the same tensors), so all ranks start identical;
///   then assigns buckets and installs a post-hook on each parameter's gradient accumulator.
/// - Buckets: parameters that require grad, in reverse registration order (the order their gradients become
///   ready), grouped by dtype and device, each bucket closed once it reaches its cap: firstBucketCapMb for the
///   first bucket of each dtype/device, bucketCapMb after. Each bucket owns one flat buffer.
/// - Backward: when a parameter's gradient has been accumulated, its (accumulated) param.grad() is copied into
///   its bucket slot; when a bucket is complete it is divided by the world size and its all_reduce is issued
///   ("ddp.bucket.<i>"), strictly in bucket order on every rank (a complete bucket waits for earlier ones).
///   At the end of the backward pass a callback queued on the autograd engine marks unused parameters (an
///   Error naming them unless findUnusedParameters), waits for the buckets in order and copies the averages
///   back into param.grad(); errors from the hooks or the callback surface from backward().
/// - Buffers (broadcastBuffers): torch broadcasts them from rank 0 before each forward; C++ modules have no
///   forward hook, so they are broadcast ("ddp.buffers") at the end of each synchronized backward instead,
///   which gives the next forward the same values on every rank.
/// - setRequireGradSync(false) is torch's no_sync(): hooks do nothing, gradients accumulate locally, and the
///   next synchronized backward reduces the accumulated gradients.
/// - World size 1: no communication at all; hooks and the unused-parameter check still run.
///
/// Threading: hooks and the end-of-backward callback run on autograd's threads and serialize on an internal
/// mutex; one backward pass at a time. `comm` must outlive this object; collectives the caller issues on it
/// must not interleave with a backward pass.
class DdpReducer {
public:
  /// Validates `options` (ConfigError naming the value), broadcasts the module's state from rank 0 and installs
  /// the hooks. Throws ConfigError when `module` is null or has no parameter that requires grad, and
  /// CommError when the ranks' modules differ (names the counts) or a collective fails. The module is kept
  /// alive by this object.
  DdpReducer(std::shared_ptr<torch::nn::Module> module, Comm& comm, DdpOptions options = {});
  /// Removes the hooks; ones already captured by a graph that is still alive become inert.
  ~DdpReducer();
  DdpReducer(const DdpReducer&) = delete;
  DdpReducer& operator=(const DdpReducer&) = delete;

  /// false = torch's no_sync(): backward passes accumulate gradients locally, with no communication.
  void setRequireGradSync(bool sync);
  bool requireGradSync() const;
  /// The buckets, in all-reduce order.
  const std::vector<DdpBucket>& buckets() const;
  /// The buckets' flat buffers, in the same order (allocated at construction; from the first synchronized backward
  /// on, the gradients of contiguous parameters are views of them). For measuring what the reducer holds.
  std::vector<at::Tensor> bucketBuffers() const;
  /// Synchronized backward passes completed (also counted at world size 1).
  std::int64_t syncCount() const;
  const DdpOptions& options() const;
  std::shared_ptr<torch::nn::Module> module() const;

  struct State;  ///< shared with the autograd hooks, which hold it weakly

private:
  std::shared_ptr<torch::nn::Module> m_module;
  std::shared_ptr<State> m_state;
};

}  // namespace fathom::parallel
