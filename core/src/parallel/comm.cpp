// SPDX-License-Identifier: Apache-2.0
#include <fathom/parallel/comm.h>

#include "comm_work.h"
#include "pending_call.h"
#include "runtime/uneven_gather.h"

#include <fathom/common/error.h>

#include <ATen/ATen.h>

#include <algorithm>
#include <string>

namespace fathom::parallel {

Comm::Comm(runtime::ProcessGroup& group, const CommRecorderOptions& options)
    : m_group(group), m_recorder(std::make_shared<CommRecorder>(options)) {}

Comm::Comm(runtime::ProcessGroup& group, std::shared_ptr<CommRecorder> recorder, std::string name)
    : m_group(group), m_recorder(std::move(recorder)), m_name(std::move(name)) {
  FATHOM_CHECK(m_recorder != nullptr, ConfigError, "a Comm sharing a recorder needs one (got null)");
}

int Comm::rank() const {
  return m_group.rank();
}

int Comm::worldSize() const {
  return m_group.worldSize();
}

runtime::CommBackend Comm::backend() const {
  return m_group.backend();
}

PendingCall Comm::begin(CommKind kind, const at::Tensor& buffer, std::int64_t elements, std::string_view label,
                        std::optional<runtime::ReduceOp> op) {
  CommRecord draft;
  draft.kind = kind;
  draft.requested = kind;
  draft.op = op;
  draft.elements = elements;
  if (buffer.defined()) {
    draft.dtype = buffer.scalar_type();
    draft.bytes = elements * static_cast<std::int64_t>(buffer.element_size());
  }
  draft.groupSize = m_group.worldSize();
  draft.rank = m_group.rank();
  draft.label.assign(label.data(), label.size());
  draft.group = m_name;
  return m_recorder->begin(std::move(draft));
}

void Comm::allReduce(at::Tensor& tensor, runtime::ReduceOp op, std::string_view label) {
  FATHOM_CHECK(tensor.defined(), ConfigError, "all_reduce needs a defined tensor");
  PendingCall call = begin(CommKind::AllReduce, tensor, tensor.numel(), label, op);
  m_group.allReduce(tensor, op);
  call.finish();
}

CommWork Comm::allReduceAsync(at::Tensor& tensor, runtime::ReduceOp op, std::string_view label) {
  FATHOM_CHECK(tensor.defined(), ConfigError, "all_reduce needs a defined tensor");
  PendingCall call = begin(CommKind::AllReduce, tensor, tensor.numel(), label, op);
  runtime::AsyncWork work = m_group.allReduceAsync(tensor, op);
  return CommWork(std::move(call), std::move(work));
}

CommWork Comm::broadcastAsync(at::Tensor& tensor, int root, std::string_view label) {
  FATHOM_CHECK(tensor.defined(), ConfigError, "broadcast needs a defined tensor");
  PendingCall call = begin(CommKind::Broadcast, tensor, tensor.numel(), label);
  runtime::AsyncWork work = m_group.broadcastAsync(tensor, root);
  return CommWork(std::move(call), std::move(work));
}

void Comm::broadcast(at::Tensor& tensor, int root, std::string_view label) {
  FATHOM_CHECK(tensor.defined(), ConfigError, "broadcast needs a defined tensor");
  PendingCall call = begin(CommKind::Broadcast, tensor, tensor.numel(), label);
  m_group.broadcast(tensor, root);
  call.finish();
}

std::vector<at::Tensor> Comm::allGather(const at::Tensor& tensor, std::string_view label) {
  FATHOM_CHECK(tensor.defined(), ConfigError, "all_gather needs a defined tensor");
  PendingCall call = begin(CommKind::AllGather, tensor, tensor.numel() * worldSize(), label);
  auto gathered = m_group.allGather(tensor);
  call.finish();
  return gathered;
}

namespace {

void checkGatherInto(const at::Tensor& input, const at::Tensor& output, std::int64_t world) {
  FATHOM_CHECK(input.defined() && output.defined(), ConfigError, "all_gather needs defined input and output tensors");
  FATHOM_CHECK(input.scalar_type() == output.scalar_type(), ConfigError, "all_gather input dtype ", input.scalar_type(),
               " differs from output dtype ", output.scalar_type());
  FATHOM_CHECK(output.numel() == world * input.numel(), ConfigError, "all_gather output has ", output.numel(),
               " elements, expected world size ", world, " x input ", input.numel(), " = ", world * input.numel());
}

}  // namespace

void Comm::allGatherInto(const at::Tensor& input, at::Tensor& output, std::string_view label) {
  allGatherIntoAsync(input, output, label).wait();
}

CommWork Comm::allGatherIntoAsync(const at::Tensor& input, at::Tensor& output, std::string_view label) {
  checkGatherInto(input, output, worldSize());
  PendingCall call = begin(CommKind::AllGather, input, output.numel(), label);
  runtime::AsyncWork work = m_group.allGatherIntoAsync(input, output);
  return CommWork(std::move(call), std::move(work));
}

std::vector<at::Tensor> Comm::allGatherUneven(const at::Tensor& tensor, std::string_view label) {
  FATHOM_CHECK(tensor.defined() && tensor.dim() >= 1, ConfigError,
               "all_gather of uneven sizes needs a defined tensor with at least one dimension, got ",
               tensor.defined() ? tensor.dim() : -1, " dimensions");
  const std::string sizesLabel = label.empty() ? std::string() : std::string(label) + ".sizes";
  return detail::allGatherUneven(
      tensor, [&](const at::Tensor& t) { return allGather(t, sizesLabel); },
      [&](const at::Tensor& t) { return allGather(t, label); });
}

void Comm::reduceScatter(const at::Tensor& input, at::Tensor& output, runtime::ReduceOp op, std::string_view label) {
  FATHOM_CHECK(input.defined() && output.defined(), ConfigError,
               "reduce_scatter needs defined input and output tensors");
  PendingCall call = begin(CommKind::ReduceScatter, input, input.numel(), label, op);
  const auto path = m_group.reduceScatter(input, output, op);
  if (path == runtime::ReduceScatterPath::AllReduceSlice) {
    call.record().kind = CommKind::AllReduce;  // what ran; bytes (the full input) are the same either way
  }
  call.finish();
}

CommWork Comm::reduceScatterAsync(const at::Tensor& input, at::Tensor& output, runtime::ReduceOp op,
                                  std::string_view label) {
  FATHOM_CHECK(input.defined() && output.defined(), ConfigError,
               "reduce_scatter needs defined input and output tensors");
  PendingCall call = begin(CommKind::ReduceScatter, input, input.numel(), label, op);
  runtime::ReduceScatterPath path = runtime::ReduceScatterPath::Native;
  runtime::AsyncWork work = m_group.reduceScatterAsync(input, output, op, &path);
  if (path == runtime::ReduceScatterPath::AllReduceSlice) {
    call.record().kind = CommKind::AllReduce;  // what runs; bytes (the full input) are the same either way
  }
  return CommWork(std::move(call), std::move(work));
}

void Comm::barrier(std::string_view label) {
  PendingCall call = begin(CommKind::Barrier, at::Tensor(), 0, label);
  m_group.barrier();
  call.finish();
}

void Comm::markStep(std::int64_t step) {
  m_recorder->markStep(step);
}

void Comm::resumeAt(std::int64_t step) {
  m_recorder->resumeAt(step);
}

std::vector<CommRecord> Comm::records() const {
  return m_recorder->records();
}

std::optional<StepTotals> Comm::stepTotals(std::int64_t step) const {
  return m_recorder->stepTotals(step);
}

std::vector<StepTotals> Comm::allStepTotals() const {
  return m_recorder->allStepTotals();
}

void Comm::reset() {
  m_recorder->reset();
}

}  // namespace fathom::parallel
