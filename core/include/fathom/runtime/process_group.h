// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/runtime/async_work.h>

#include <ATen/core/Tensor.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace fathom::runtime {

/// The c10d backend that carries collectives: Gloo on CPU, NCCL on CUDA devices.
enum class CommBackend { Gloo, Nccl };

/// Who runs the rendezvous TCPStore server.
enum class StoreRole {
  RankZeroHosts,  ///< rank 0 starts the server on masterAddr:masterPort, as torch.distributed does by default
  ClientOnly,     ///< an agent (the launcher, a test) already runs it; every rank connects as a client
};

enum class ReduceOp { Sum, Avg, Max, Min, Product };

/// How ProcessGroup::reduceScatter ran: c10d's own reduce_scatter, or (where the backend lacks one, as Gloo in
/// LibTorch 1.13) an all_reduce of the whole input followed by keeping this rank's slice.
enum class ReduceScatterPath { Native, AllReduceSlice };

/// How one rank joins a process group. Defaults follow torch.distributed: port 29500, 30-minute timeout.
struct ProcessGroupOptions {
  CommBackend backend = CommBackend::Gloo;
  int rank = 0;
  int worldSize = 1;
  std::string masterAddr = "127.0.0.1";
  std::uint16_t masterPort = 29500;
  StoreRole storeRole = StoreRole::RankZeroHosts;
  /// Applies to the rendezvous and to every collective.
  std::chrono::milliseconds timeout = std::chrono::minutes(30);
  /// Address Gloo's transport binds to; empty = masterAddr when it is a loopback address, else this
  /// machine's host name.
  std::string glooHostname;
};

/// One rank's membership in a c10d process group (the "world"). Construction performs the rendezvous and
/// blocks until every rank has joined or the timeout expires. Collectives are synchronous (they return when
/// the result is in the tensor) except the *Async ones, which return an AsyncWork to wait for. Not thread-safe:
/// collectives are issued one at a time (one thread, or callers that serialize, as DDP's autograd hooks do), in
/// the same order on every rank, as c10d requires. Destruction leaves the group (no collective may be in flight).
class ProcessGroup {
public:
  /// Joins the group. Throws ConfigError for invalid options (named in the message) and CommError when the
  /// store cannot be reached or the rendezvous times out; the message names the rank, the address and the
  /// step that failed.
  static std::unique_ptr<ProcessGroup> create(const ProcessGroupOptions& options);

  ~ProcessGroup();
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  /// A sub-group of this group's ranks (torch.distributed.new_group): `ranks` lists its members by their rank in
  /// this group, and a member's rank in the new group is its position in the list. Members rendezvous under the
  /// key prefix `name` on this group's store (every sub-group needs its own name) and it blocks until they all
  /// have joined. A rank that is not a member gets nullptr at once. ConfigError for an empty or
  /// out-of-range list, CommError when the rendezvous fails.
  std::unique_ptr<ProcessGroup> newGroup(const std::vector<int>& ranks, std::string_view name);

  int rank() const;
  int worldSize() const;
  CommBackend backend() const;
  const ProcessGroupOptions& options() const;

  /// In-place all-reduce of a contiguous tensor. Avg is Sum followed by division (Gloo has no AVG).
  void allReduce(at::Tensor& tensor, ReduceOp op = ReduceOp::Sum);
  /// Issues an in-place all-reduce of a contiguous tensor and returns at once; the backend's threads carry it
  /// while the caller goes on. The result is in `tensor` when the returned work's wait() returns (Avg divides
  /// there). `tensor` must stay alive and unmodified until then. Throws ConfigError for an undefined or
  /// non-contiguous tensor and CommError when the backend refuses the call.
  AsyncWork allReduceAsync(at::Tensor& tensor, ReduceOp op = ReduceOp::Sum);
  /// In-place broadcast from `root`. On Gloo, which has no bfloat16, a contiguous bfloat16 tensor is sent as its
  /// bytes (a broadcast moves bits, so the result is the same).
  void broadcast(at::Tensor& tensor, int root = 0);
  /// Issues an in-place broadcast from `root` and returns at once (see allReduceAsync).
  AsyncWork broadcastAsync(at::Tensor& tensor, int root = 0);
  /// Blocks until every rank has reached the barrier.
  void barrier();
  /// All-gather of a contiguous tensor with the same shape and dtype on every rank; element r of the result is
  /// rank r's tensor.
  std::vector<at::Tensor> allGather(const at::Tensor& tensor);
  /// All-gather of tensors whose first dimension differs between ranks (the other dimensions and the dtype must
  /// agree): the sizes are exchanged first, each tensor is zero-padded to the largest, gathered, and trimmed
  /// back, as Accelerate's pad_across_processes + gather. Element r of the result is rank r's tensor.
  std::vector<at::Tensor> allGatherUneven(const at::Tensor& tensor);
  /// Issues an all-gather of `input` (the same shape and dtype on every rank) into the flat `output` of
  /// world × input.numel() elements and returns at once: rank r's elements land at [r·n, (r+1)·n) when the
  /// returned work's wait() returns. A contiguous `output` receives the result directly (c10d's outputs are views
  /// of its slices); any other is filled from a temporary inside wait(). `output` must not be read, and `input`
  /// not modified, until then (the backend's threads read the input while the call runs). ConfigError naming the
  /// sizes or dtypes when they do not fit; CommError when the backend refuses the call.
  AsyncWork allGatherIntoAsync(const at::Tensor& input, at::Tensor& output);
  /// Reduce-scatter: the contiguous `input` (world × output.numel() elements, same dtype as `output`) is reduced
  /// element-wise across ranks and rank r receives the r-th of `world` equal slices in the contiguous `output`.
  /// Uses the backend's reduce_scatter; a backend that does not support it (Gloo in LibTorch 1.13 says so before
  /// communicating, on every rank alike) is remembered and the call runs as all_reduce + slice. Returns the path
  /// that ran. Throws ConfigError naming the sizes when they do not fit.
  ReduceScatterPath reduceScatter(const at::Tensor& input, at::Tensor& output, ReduceOp op = ReduceOp::Sum);
  /// Issues reduceScatter and returns at once; the result is in `output` (divided for Avg) when the returned
  /// work's wait() returns. On the AllReduceSlice path an all_reduce of a copy of `input` runs in the background
  /// and wait() copies this rank's slice into `output`, so `input` may be reused as soon as this returns there;
  /// on the native path it must stay alive and unmodified until wait(). `path`, when given, receives the path
  /// taken (decided at issue). Same checks and errors as reduceScatter.
  AsyncWork reduceScatterAsync(const at::Tensor& input, at::Tensor& output, ReduceOp op = ReduceOp::Sum,
                               ReduceScatterPath* path = nullptr);

  /// Whether c10d's backend can be used in this process: compiled into LibTorch and, for Gloo, a one-rank
  /// group on 127.0.0.1 actually forms. `detail` receives the reason when it cannot.
  static bool backendAvailable(CommBackend backend, std::string* detail = nullptr);

private:
  struct Impl;
  explicit ProcessGroup(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> m_impl;
};

/// "gloo" / "nccl".
const char* toString(CommBackend backend);

}  // namespace fathom::runtime
