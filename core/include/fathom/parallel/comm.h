// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/parallel/comm_record.h>
#include <fathom/parallel/comm_recorder.h>
#include <fathom/runtime/process_group.h>

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fathom::parallel {

/// An issued asynchronous collective (core/src/parallel/comm_work.h). Overlapping communication with computation
/// is the engines' business: the *Async calls are used inside core/parallel (and by its white-box tests, which
/// include that header); other code calls the synchronous collectives.
class CommWork;

/// The one layer every collective Fathom issues goes through. It runs the call on a runtime::ProcessGroup and
/// records what actually ran (kind, whole-buffer bytes as the planner defines them, elements, dtype, group size,
/// rank, start, duration, label) in a bounded CommRecorder, with per-step totals cut by markStep(). See
/// docs/comm.md for the definitions and how they map to plan::Collective.
///
/// Collectives have ProcessGroup's contract: issued one at a time in the same order on every rank. They are
/// synchronous except the *Async ones (all_reduce, broadcast, all_gather into, reduce_scatter), which return a
/// CommWork whose wait() finishes the record.
/// The record accessors (records, stepTotals, ...) are thread-safe and may be read from another thread while
/// collectives run. A collective that throws is not recorded.
class Comm {
public:
  /// Wraps `group`, which must outlive this Comm. Throws ConfigError for invalid recorder capacities.
  explicit Comm(runtime::ProcessGroup& group, const CommRecorderOptions& options = {});
  /// Wraps `group` and records into `recorder`, shared with another Comm (a sub-group's calls then count in
  /// the same step totals as the world's, e.g. HYBRID_SHARD's shard and replica groups). `name` names the group in
  /// the records and the wavefront (CommRecord::group): the sub-group's name as given to ProcessGroup::newGroup.
  Comm(runtime::ProcessGroup& group, std::shared_ptr<CommRecorder> recorder, std::string name = "world");

  /// This rank in the group.
  int rank() const;
  /// Ranks in the group.
  int worldSize() const;
  /// The group's backend (what dtypes a reduction may use depends on it: Gloo cannot sum bfloat16).
  runtime::CommBackend backend() const;

  /// In-place all-reduce of a contiguous tensor. Recorded as all_reduce; bytes = the tensor.
  void allReduce(at::Tensor& tensor, runtime::ReduceOp op = runtime::ReduceOp::Sum, std::string_view label = {});
  /// Issues an in-place all-reduce and returns at once (ProcessGroup::allReduceAsync). The record is begun now
  /// (start = issue time) and finished by CommWork::wait(): kind all_reduce, bytes = the tensor, as allReduce.
  CommWork allReduceAsync(at::Tensor& tensor, runtime::ReduceOp op = runtime::ReduceOp::Sum,
                          std::string_view label = {});
  /// In-place broadcast from `root`. Recorded as broadcast; bytes = the tensor.
  void broadcast(at::Tensor& tensor, int root = 0, std::string_view label = {});
  /// Issues an in-place broadcast from `root` and returns at once; recorded as broadcast when waited for.
  CommWork broadcastAsync(at::Tensor& tensor, int root = 0, std::string_view label = {});
  /// All-gather of equally shaped tensors; element r of the result is rank r's. Recorded as all_gather;
  /// bytes = the gathered output (world × the input).
  std::vector<at::Tensor> allGather(const at::Tensor& tensor, std::string_view label = {});
  /// All-gather into one flat buffer: `output` must hold world × input.numel() elements of input's dtype (a
  /// ConfigError names both sizes otherwise); rank r's elements land at [r·n, (r+1)·n). Recorded as all_gather.
  void allGatherInto(const at::Tensor& input, at::Tensor& output, std::string_view label = {});
  /// Issues allGatherInto and returns at once (ProcessGroup::allGatherIntoAsync): the result is in `output` when
  /// the CommWork's wait() returns, which also finishes the record (all_gather, bytes = the output, as
  /// allGatherInto; start = issue time). `output` must not be read, nor `input` modified, until then.
  CommWork allGatherIntoAsync(const at::Tensor& input, at::Tensor& output, std::string_view label = {});
  /// All-gather of tensors whose first dimension differs by rank (as ProcessGroup::allGatherUneven). Runs, and
  /// records, two all_gathers: the sizes (label + ".sizes", int64 × world) and the padded tensors (bytes =
  /// world × the largest rank's tensor, padding included, because that is what moves).
  std::vector<at::Tensor> allGatherUneven(const at::Tensor& tensor, std::string_view label = {});
  /// Reduce-scatter (see ProcessGroup::reduceScatter): `input` holds world × output.numel() elements. bytes = the
  /// full input. `requested` is reduce_scatter; `kind` is reduce_scatter when the backend ran one and all_reduce
  /// when it was emulated by all_reduce + slice (Gloo in LibTorch 1.13): the record says what actually ran.
  void reduceScatter(const at::Tensor& input, at::Tensor& output, runtime::ReduceOp op = runtime::ReduceOp::Sum,
                     std::string_view label = {});
  /// Issues reduceScatter and returns at once (ProcessGroup::reduceScatterAsync): the result is in `output`
  /// (divided for Avg) when the CommWork's wait() returns. Recorded as reduceScatter (requested reduce_scatter,
  /// kind what runs: all_reduce on Gloo in LibTorch 1.13, bytes = the full input), finished by wait().
  CommWork reduceScatterAsync(const at::Tensor& input, at::Tensor& output,
                              runtime::ReduceOp op = runtime::ReduceOp::Sum, std::string_view label = {});
  /// Blocks until every rank has reached it. Recorded as barrier with 0 bytes.
  void barrier(std::string_view label = {});

  /// Starts step `step` (see CommRecorder::markStep); later calls are totalled under it.
  void markStep(std::int64_t step);
  /// Continues at step `step` after a checkpoint was loaded, forward or back (see CommRecorder::resumeAt).
  void resumeAt(std::int64_t step);
  /// The records kept, oldest first.
  std::vector<CommRecord> records() const;
  /// Per-kind totals of one step, or std::nullopt when it was never marked or has been dropped.
  std::optional<StepTotals> stepTotals(std::int64_t step) const;
  /// Totals of every step kept, oldest first.
  std::vector<StepTotals> allStepTotals() const;
  /// Forgets records and totals (see CommRecorder::reset).
  void reset();
  /// The store itself, for capacity, drops and the begin/finish handle API.
  CommRecorder& recorder() { return *m_recorder; }
  /// The store itself.
  const CommRecorder& recorder() const { return *m_recorder; }
  /// The recorder, for a Comm that shares it.
  std::shared_ptr<CommRecorder> recorderHandle() const { return m_recorder; }

private:
  PendingCall begin(CommKind kind, const at::Tensor& buffer, std::int64_t elements, std::string_view label,
                    std::optional<runtime::ReduceOp> op = std::nullopt);

  runtime::ProcessGroup& m_group;
  std::shared_ptr<CommRecorder> m_recorder;  ///< never null
  std::string m_name = "world";              ///< CommRecord::group of every call
};

}  // namespace fathom::parallel
