// SPDX-License-Identifier: Apache-2.0
#include <fathom/runtime/process_group.h>

#include "runtime/async_work_impl.h"
#include "runtime/torch_compat.h"
#include "runtime/uneven_gather.h"

#include <fathom/common/error.h>

#include <ATen/ATen.h>
#include <torch/csrc/distributed/c10d/HashStore.hpp>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>

#include <algorithm>
#include <string_view>

#include <unistd.h>

namespace fathom::runtime {

struct ProcessGroup::Impl {
  ProcessGroupOptions options;
  c10::intrusive_ptr<c10d::Store> store;
  c10::intrusive_ptr<compat::CollectiveBackend> backend;
  bool nativeReduceScatter = true;  ///< cleared once the backend reports it has no reduce_scatter
};

namespace {

std::string where(const ProcessGroupOptions& o) {
  return detail::concat("rank ", o.rank, "/", o.worldSize, " (", toString(o.backend), ", store ", o.masterAddr, ":",
                        o.masterPort, ")");
}

void validate(const ProcessGroupOptions& o) {
  FATHOM_CHECK(o.worldSize >= 1, ConfigError, "world size must be >= 1, got ", o.worldSize);
  FATHOM_CHECK(o.rank >= 0 && o.rank < o.worldSize, ConfigError, "rank must be in [0, ", o.worldSize, "), got ",
               o.rank);
  FATHOM_CHECK(!o.masterAddr.empty(), ConfigError, "master address must not be empty");
  FATHOM_CHECK(o.masterPort != 0, ConfigError, "master port must be set (got 0); pick a free port before creating ",
               "the group, e.g. with `fathom launch`");
  FATHOM_CHECK(o.timeout.count() > 0, ConfigError, "timeout must be positive, got ", o.timeout.count(), " ms");
}

bool isLoopback(const std::string& addr) {
  return addr == "localhost" || addr.rfind("127.", 0) == 0 || addr == "::1";
}

std::string glooHost(const ProcessGroupOptions& o) {
  if (!o.glooHostname.empty()) {
    return o.glooHostname;
  }
  if (isLoopback(o.masterAddr)) {
    return o.masterAddr == "localhost" ? "127.0.0.1" : o.masterAddr;
  }
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) == 0 && name[0] != '\0') {
    return name;
  }
  return "127.0.0.1";
}

c10d::ReduceOp toC10d(ReduceOp op) {
  switch (op) {
  case ReduceOp::Sum:
  case ReduceOp::Avg: return c10d::ReduceOp::SUM;
  case ReduceOp::Max: return c10d::ReduceOp::MAX;
  case ReduceOp::Min: return c10d::ReduceOp::MIN;
  case ReduceOp::Product: return c10d::ReduceOp::PRODUCT;
  }
  FATHOM_ASSERT(false, "unknown ReduceOp");
  return c10d::ReduceOp::SUM;
}

c10::intrusive_ptr<compat::CollectiveBackend> makeBackend(const c10::intrusive_ptr<c10d::Store>& store,
                                                          const ProcessGroupOptions& o) {
  switch (o.backend) {
  case CommBackend::Gloo:
#ifdef FATHOM_HAVE_GLOO
    return compat::makeGlooBackend(store, o.rank, o.worldSize, o.timeout, glooHost(o));
#else
    throw ConfigError("backend gloo requested, but this LibTorch was built without c10d Gloo");
#endif
  case CommBackend::Nccl:
#ifdef USE_C10D_NCCL
    return compat::makeNcclBackend(store, o.rank, o.worldSize, o.timeout);
#else
    throw ConfigError("backend nccl requested, but this LibTorch was built without c10d NCCL (a CPU-only "
                      "LibTorch); use gloo, or build against a CUDA LibTorch");
#endif
  }
  FATHOM_ASSERT(false, "unknown CommBackend");
  return {};
}

void waitFor(const c10::intrusive_ptr<c10d::Work>& work, const ProcessGroupOptions& o, const char* what) {
  try {
    work->wait();
  } catch (const c10::Error& e) {
    throw CommError(detail::concat(where(o), ": ", what, " failed: ", e.what_without_backtrace()));
  } catch (const std::exception& e) {
    throw CommError(detail::concat(where(o), ": ", what, " failed: ", e.what()));
  }
}

/// Issues a collective; a backend that refuses it while issuing (bad arguments, a broken group) raises CommError.
template <typename Issue>
c10::intrusive_ptr<c10d::Work> issue(Issue&& call, const ProcessGroupOptions& o, const char* what) {
  try {
    return call();
  } catch (const c10::Error& e) {
    throw CommError(detail::concat(where(o), ": ", what, " failed: ", e.what_without_backtrace()));
  } catch (const std::exception& e) {
    throw CommError(detail::concat(where(o), ": ", what, " failed: ", e.what()));
  }
}

}  // namespace

ProcessGroup::ProcessGroup(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
ProcessGroup::~ProcessGroup() = default;

std::unique_ptr<ProcessGroup> ProcessGroup::create(const ProcessGroupOptions& options) {
  validate(options);
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  const bool hostsStore = options.storeRole == StoreRole::RankZeroHosts && options.rank == 0;
  try {
    // The server does not wait for workers here: the backend's own rendezvous waits, with the same timeout.
    impl->store = c10::make_intrusive<c10d::TCPStore>(
        options.masterAddr,
        compat::tcpStoreOptions(options.masterPort, hostsStore, options.worldSize, options.timeout, false));
  } catch (const std::exception& e) {
    throw CommError(detail::concat(where(options), ": could not ", hostsStore ? "start" : "reach",
                                   " the rendezvous store within ", options.timeout.count(), " ms: ", e.what()));
  }
  try {
    impl->backend = makeBackend(impl->store, options);
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw CommError(detail::concat(where(options), ": rendezvous of ", options.worldSize,
                                   " ranks did not complete within ", options.timeout.count(), " ms: ", e.what()));
  }
  return std::unique_ptr<ProcessGroup>(new ProcessGroup(std::move(impl)));
}

std::unique_ptr<ProcessGroup> ProcessGroup::newGroup(const std::vector<int>& ranks, std::string_view name) {
  FATHOM_CHECK(!ranks.empty(), ConfigError, "new group '", name, "' has no ranks");
  FATHOM_CHECK(!name.empty(), ConfigError, "a new group needs a name (it prefixes the group's rendezvous keys)");
  std::vector<int> sorted = ranks;
  std::sort(sorted.begin(), sorted.end());
  FATHOM_CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end() && sorted.front() >= 0 &&
                   sorted.back() < worldSize(),
               ConfigError, "new group '", name, "': ranks must be distinct and in [0, ", worldSize(), ")");
  const auto it = std::find(ranks.begin(), ranks.end(), rank());
  if (it == ranks.end())
    return nullptr;
  auto impl = std::make_unique<Impl>();
  impl->options = m_impl->options;
  impl->options.rank = static_cast<int>(it - ranks.begin());
  impl->options.worldSize = static_cast<int>(ranks.size());
  // The members rendezvous under their own key prefix on the world's store, as torch.distributed.new_group.
  impl->store = c10::make_intrusive<c10d::PrefixStore>("fathom_group/" + std::string(name) + "/", m_impl->store);
  try {
    impl->backend = makeBackend(impl->store, impl->options);
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw CommError(detail::concat(where(impl->options), ": rendezvous of group '", name, "' (", ranks.size(),
                                   " ranks) did not complete: ", e.what()));
  }
  return std::unique_ptr<ProcessGroup>(new ProcessGroup(std::move(impl)));
}

int ProcessGroup::rank() const {
  return m_impl->options.rank;
}
int ProcessGroup::worldSize() const {
  return m_impl->options.worldSize;
}
CommBackend ProcessGroup::backend() const {
  return m_impl->options.backend;
}
const ProcessGroupOptions& ProcessGroup::options() const {
  return m_impl->options;
}

void ProcessGroup::allReduce(at::Tensor& tensor, ReduceOp op) {
  allReduceAsync(tensor, op).wait();
}

AsyncWork ProcessGroup::allReduceAsync(at::Tensor& tensor, ReduceOp op) {
  FATHOM_CHECK(tensor.defined() && tensor.is_contiguous(), ConfigError, "allReduce needs a defined, contiguous tensor");
  std::vector<at::Tensor> tensors{tensor};
  c10d::AllreduceOptions opts;
  opts.reduceOp = toC10d(op);
  opts.timeout = m_impl->options.timeout;
  auto impl = std::make_unique<AsyncWork::Impl>();
  impl->work = issue([&] { return m_impl->backend->allreduce(tensors, opts); }, m_impl->options, "all_reduce");
  impl->tensor = tensor;
  impl->divisor = op == ReduceOp::Avg ? m_impl->options.worldSize : 1;
  impl->where = where(m_impl->options);
  impl->what = "all_reduce";
  return AsyncWork(std::move(impl));
}

void ProcessGroup::broadcast(at::Tensor& tensor, int root) {
  broadcastAsync(tensor, root).wait();
}

AsyncWork ProcessGroup::broadcastAsync(at::Tensor& tensor, int root) {
  FATHOM_CHECK(root >= 0 && root < worldSize(), ConfigError, "broadcast root must be in [0, ", worldSize(), "), got ",
               root);
  FATHOM_CHECK(tensor.defined(), ConfigError, "broadcast needs a defined tensor");
  // Gloo rejects bfloat16 tensors in every collective ("Invalid scalar type"). A broadcast only moves bits, so a
  // contiguous bfloat16 tensor travels as its bytes, which is exactly equivalent.
  at::Tensor wire = tensor;
  if (backend() == CommBackend::Gloo && tensor.scalar_type() == at::kBFloat16 && tensor.is_contiguous()) {
    wire = tensor.view({-1}).view(at::kByte);
  }
  std::vector<at::Tensor> tensors{wire};
  c10d::BroadcastOptions opts;
  opts.rootRank = root;
  opts.timeout = m_impl->options.timeout;
  auto impl = std::make_unique<AsyncWork::Impl>();
  impl->work = issue([&] { return m_impl->backend->broadcast(tensors, opts); }, m_impl->options, "broadcast");
  impl->tensor = wire;
  impl->where = where(m_impl->options);
  impl->what = "broadcast";
  return AsyncWork(std::move(impl));
}

void ProcessGroup::barrier() {
  c10d::BarrierOptions opts;
  opts.timeout = m_impl->options.timeout;
  waitFor(m_impl->backend->barrier(opts), m_impl->options, "barrier");
}

std::vector<at::Tensor> ProcessGroup::allGather(const at::Tensor& tensor) {
  FATHOM_CHECK(tensor.defined(), ConfigError, "allGather needs a defined tensor");
  std::vector<at::Tensor> inputs{tensor.contiguous()};
  std::vector<std::vector<at::Tensor>> outputs(1);
  for (int r = 0; r < worldSize(); ++r) {
    outputs[0].push_back(at::empty_like(inputs[0]));
  }
  c10d::AllgatherOptions opts;
  opts.timeout = m_impl->options.timeout;
  waitFor(m_impl->backend->allgather(outputs, inputs, opts), m_impl->options, "all_gather");
  return std::move(outputs[0]);
}

std::vector<at::Tensor> ProcessGroup::allGatherUneven(const at::Tensor& tensor) {
  FATHOM_CHECK(tensor.defined() && tensor.dim() >= 1, ConfigError,
               "allGatherUneven needs a defined tensor with at least one dimension");
  return detail::allGatherUneven(
      tensor, [this](const at::Tensor& t) { return allGather(t); },
      [this](const at::Tensor& t) { return allGather(t); });
}

AsyncWork ProcessGroup::allGatherIntoAsync(const at::Tensor& input, at::Tensor& output) {
  FATHOM_CHECK(input.defined() && output.defined(), ConfigError,
               "allGatherInto needs defined input and output tensors");
  FATHOM_CHECK(input.scalar_type() == output.scalar_type(), ConfigError, "allGatherInto input dtype ",
               input.scalar_type(), " differs from output dtype ", output.scalar_type());
  const std::int64_t world = worldSize();
  const std::int64_t n = input.numel();
  FATHOM_CHECK(output.numel() == world * n, ConfigError, "allGatherInto output has ", output.numel(),
               " elements, expected world size ", world, " x input ", n, " = ", world * n);
  auto impl = std::make_unique<AsyncWork::Impl>();
  std::vector<at::Tensor> inputs{input.contiguous()};
  std::vector<std::vector<at::Tensor>> outputs(1);
  // c10d's all_gather writes one tensor per rank, each shaped like the input. A contiguous output is cut into
  // views of its slices, so the result lands in place; otherwise into temporaries that wait() copies over.
  const bool inPlace = output.is_contiguous();
  const at::Tensor flat = inPlace ? output.view({-1}) : at::Tensor();
  for (std::int64_t r = 0; r < world; ++r) {
    outputs[0].push_back(inPlace ? flat.narrow(0, r * n, n).view(inputs[0].sizes()) : at::empty_like(inputs[0]));
  }
  c10d::AllgatherOptions opts;
  opts.timeout = m_impl->options.timeout;
  impl->work = issue([&] { return m_impl->backend->allgather(outputs, inputs, opts); }, m_impl->options, "all_gather");
  impl->keepAlive = inputs;
  if (!inPlace) {
    impl->complete = [parts = outputs[0], output]() mutable {
      std::vector<at::Tensor> flatParts;
      flatParts.reserve(parts.size());
      for (const at::Tensor& part : parts) {
        flatParts.push_back(part.reshape({-1}));
      }
      output.copy_(at::cat(flatParts, 0).view(output.sizes()));
    };
  }
  impl->tensor = output;
  impl->where = where(m_impl->options);
  impl->what = "all_gather";
  return AsyncWork(std::move(impl));
}

ReduceScatterPath ProcessGroup::reduceScatter(const at::Tensor& input, at::Tensor& output, ReduceOp op) {
  ReduceScatterPath path = ReduceScatterPath::Native;
  reduceScatterAsync(input, output, op, &path).wait();
  return path;
}

AsyncWork ProcessGroup::reduceScatterAsync(const at::Tensor& input, at::Tensor& output, ReduceOp op,
                                           ReduceScatterPath* path) {
  FATHOM_CHECK(input.defined() && input.is_contiguous() && output.defined() && output.is_contiguous(), ConfigError,
               "reduceScatter needs defined, contiguous input and output tensors");
  FATHOM_CHECK(input.scalar_type() == output.scalar_type(), ConfigError, "reduceScatter input dtype ",
               input.scalar_type(), " differs from output dtype ", output.scalar_type());
  const std::int64_t world = worldSize();
  FATHOM_CHECK(input.numel() == world * output.numel(), ConfigError, "reduceScatter input has ", input.numel(),
               " elements, expected world size ", world, " x output ", output.numel(), " = ", world * output.numel());
  auto impl = std::make_unique<AsyncWork::Impl>();
  impl->where = where(m_impl->options);
  if (m_impl->nativeReduceScatter) {
    std::vector<at::Tensor> outputs{output.view({-1})};
    std::vector<std::vector<at::Tensor>> inputs{input.view({-1}).chunk(world)};
    c10d::ReduceScatterOptions opts;
    opts.reduceOp = toC10d(op);
    opts.timeout = m_impl->options.timeout;
    try {
      impl->work = m_impl->backend->reduce_scatter(outputs, inputs, opts);
    } catch (const std::exception& e) {
      // Raised while issuing, before any byte moves, identically on every rank: safe to fall back.
      if (std::string_view(e.what()).find("does not support reduce_scatter") == std::string_view::npos) {
        throw CommError(detail::concat(impl->where, ": reduce_scatter failed: ", e.what()));
      }
      m_impl->nativeReduceScatter = false;
    }
    if (impl->work) {
      impl->keepAlive = {input};
      impl->tensor = output;
      impl->divisor = op == ReduceOp::Avg ? world : 1;
      impl->what = "reduce_scatter";
      if (path != nullptr) {
        *path = ReduceScatterPath::Native;
      }
      return AsyncWork(std::move(impl));
    }
  }
  // All_reduce of a copy of the whole input (so the caller's input is free at once), then this rank's slice.
  std::vector<at::Tensor> tensors{input.clone()};
  c10d::AllreduceOptions opts;
  opts.reduceOp = toC10d(op);
  opts.timeout = m_impl->options.timeout;
  impl->work = issue([&] { return m_impl->backend->allreduce(tensors, opts); }, m_impl->options,
                     "all_reduce (for reduce_scatter)");
  impl->tensor = output;
  impl->what = "all_reduce (for reduce_scatter)";
  // The slice is copied before the division, as the synchronous path always did: the same arithmetic.
  impl->complete = [reduced = tensors[0], output, offset = rank() * output.numel(),
                    divisor = op == ReduceOp::Avg ? world : std::int64_t{1}]() mutable {
    output.view({-1}).copy_(reduced.view({-1}).narrow(0, offset, output.numel()));
    if (divisor > 1) {
      output.div_(divisor);
    }
  };
  if (path != nullptr) {
    *path = ReduceScatterPath::AllReduceSlice;
  }
  return AsyncWork(std::move(impl));
}

bool ProcessGroup::backendAvailable(CommBackend backend, std::string* detail) {
  auto say = [detail](std::string text) {
    if (detail != nullptr) {
      *detail = std::move(text);
    }
  };
  if (backend == CommBackend::Nccl) {
    if (!compat::kHasNccl) {
      say("LibTorch was built without c10d NCCL");
      return false;
    }
    say("compiled into LibTorch");
    return true;
  }
  if (!compat::kHasGloo) {
    say("LibTorch was built without c10d Gloo");
    return false;
  }
#ifdef FATHOM_HAVE_GLOO
  try {
    // A real one-rank group over an in-memory store: proves the transport can bind on this machine.
    auto store = c10::make_intrusive<c10d::HashStore>();
    auto gloo = compat::makeGlooBackend(store, 0, 1, std::chrono::seconds(10), "127.0.0.1");
    std::vector<at::Tensor> one{at::ones({1})};
    gloo->allreduce(one)->wait();
    say("one-rank group on 127.0.0.1 formed");
    return true;
  } catch (const std::exception& e) {
    say(detail::concat("a one-rank group on 127.0.0.1 failed: ", e.what()));
    return false;
  }
#else
  return false;
#endif
}

const char* toString(CommBackend backend) {
  switch (backend) {
  case CommBackend::Gloo: return "gloo";
  case CommBackend::Nccl: return "nccl";
  }
  return "unknown";
}

}  // namespace fathom::runtime
