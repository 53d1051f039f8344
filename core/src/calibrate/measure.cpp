// SPDX-License-Identifier: Apache-2.0
#include <fathom/calibrate/measure.h>

#include <fathom/common/error.h>

#include <ATen/Context.h>
#include <torch/cuda.h>
#include <torch/torch.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <functional>
#include <memory>
#include <vector>

namespace fathom::calibrate {
namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// Waits for the device's queued work (a no-op on the CPU, whose operations return when done).
void sync(const c10::Device& device) {
  if (device.is_cuda()) {
    torch::cuda::synchronize(device.index());
  }
}

c10::ScalarType scalarType(std::string_view dtype) {
  if (dtype == "bf16") {
    return c10::kBFloat16;
  }
  if (dtype == "fp16") {
    return c10::kHalf;
  }
  return c10::kFloat;  // fp32 and tf32 (TF32 is fp32 storage with tensor-core products)
}

/// TF32 on for the lifetime of the guard when asked, and restored after (a process-wide setting).
class Tf32Guard {
public:
  explicit Tf32Guard(bool on) : m_previous(at::globalContext().allowTF32CuBLAS()) {
    at::globalContext().setAllowTF32CuBLAS(on);
  }
  ~Tf32Guard() { at::globalContext().setAllowTF32CuBLAS(m_previous); }
  Tf32Guard(const Tf32Guard&) = delete;
  Tf32Guard& operator=(const Tf32Guard&) = delete;

private:
  bool m_previous;
};

/// Seconds of one call of `work`: one warm-up call (allocation, kernel selection, thread pool start), one timed call
/// that sizes the loop (so the loop reads no clock, and on CUDA synchronizes not, per call), then three windows of
/// `minSeconds` / 3 (at least one call each) and the median window's time per call: a window in which another
/// process took the core (a shared machine) or an OpenMP barrier waited for a descheduled thread does not decide it.
template <typename Work> double medianWindowSeconds(Work&& work, const c10::Device& device, double minSeconds) {
  work();
  sync(device);
  auto start = Clock::now();
  work();
  sync(device);
  const double one = std::max(secondsSince(start), 1e-9);
  constexpr int kWindows = 3;
  const auto iterations = static_cast<std::int64_t>(std::clamp(std::ceil(minSeconds / kWindows / one), 1.0, 1e7));
  std::array<double, kWindows> seconds{};
  for (double& s : seconds) {
    start = Clock::now();
    for (std::int64_t i = 0; i < iterations; ++i) {
      work();
    }
    sync(device);
    s = secondsSince(start) / static_cast<double>(iterations);
  }
  std::sort(seconds.begin(), seconds.end());
  return seconds[kWindows / 2];
}

/// The slowest rank's value (the same on every rank afterwards).
double maxOverRanks(runtime::ProcessGroup& pg, double value, const c10::Device& device) {
  at::Tensor t = torch::full({1}, value, torch::TensorOptions().dtype(torch::kFloat64).device(device));
  pg.allReduce(t, runtime::ReduceOp::Max);
  return t.cpu().item<double>();
}

}  // namespace

bool dtypeMeasurable(std::string_view dtype, const c10::Device& device) {
  if (dtype == "fp32" || dtype == "bf16") {
    return true;
  }
  return (dtype == "fp16" || dtype == "tf32") && device.is_cuda();
}

double measureMatmulFlops(std::string_view dtype, const MatmulShape& shape, const c10::Device& device,
                          double minSeconds, plan::MatmulLayout layout) {
  FATHOM_CHECK(dtypeMeasurable(dtype, device), ConfigError, "cannot measure ", dtype, " matmuls on ", device.str(),
               " (fp16 and tf32 only on CUDA)");
  FATHOM_CHECK(shape.m > 0 && shape.k > 0 && shape.n > 0, ConfigError, "matmul shape must be positive, got ", shape.m,
               "x", shape.k, "x", shape.n);
  torch::NoGradGuard noGrad;
  const Tf32Guard tf32(dtype == "tf32");
  const auto options = torch::TensorOptions().dtype(scalarType(dtype)).device(device);
  // Transposed operands are views of a contiguous tensor of the transposed shape, as Linear's weight is read.
  const at::Tensor a = layout == plan::MatmulLayout::TN ? torch::randn({shape.k, shape.m}, options).t()
                                                        : torch::randn({shape.m, shape.k}, options);
  const at::Tensor b = layout == plan::MatmulLayout::NT ? torch::randn({shape.n, shape.k}, options).t()
                                                        : torch::randn({shape.k, shape.n}, options);
  at::Tensor c = torch::empty({shape.m, shape.n}, options);
  const double seconds = medianWindowSeconds([&] { at::mm_out(c, a, b); }, device, minSeconds);
  return shape.flops() / seconds;
}

ElementwiseCost measureElementwise(std::int64_t elements, const c10::Device& device, double minSeconds) {
  FATHOM_CHECK(elements >= 256, ConfigError, "element-wise costs need >= 256 elements, got ", elements);
  torch::NoGradGuard noGrad;
  const auto options = torch::TensorOptions().dtype(torch::kFloat32).device(device);
  constexpr std::int64_t kRow = 256;
  const at::Tensor x = torch::randn({elements / kRow, kRow}, options);
  const at::Tensor y = torch::randn({elements / kRow, kRow}, options);
  const at::Tensor weight = torch::ones({kRow}, options);
  const at::Tensor bias = torch::zeros({kRow}, options);
  const at::Tensor soft = at::_softmax(x, -1, false);
  // The operators a transformer layer's forward and backward run on its activations, besides the matmuls.
  const std::array<std::function<void()>, 7> ops{
      [&] { (void)at::gelu(x); },
      [&] { (void)at::gelu_backward(y, x); },
      [&] { (void)at::_softmax(x, -1, false); },
      [&] { (void)at::_softmax_backward_data(y, soft, -1, c10::kFloat); },
      [&] { (void)at::layer_norm(x, {kRow}, weight, bias); },
      [&] { (void)at::add(x, y); },
      [&] { (void)at::mul(x, y); },
  };
  const double perOp = minSeconds / (2.0 * static_cast<double>(ops.size()));
  double total = 0.0;
  for (const auto& op : ops) {
    total += medianWindowSeconds(op, device, perOp);
  }
  ElementwiseCost cost;
  cost.secondsPerElement = total / static_cast<double>(ops.size()) / static_cast<double>(x.numel());
  const at::Tensor one = torch::ones({1}, options);
  at::Tensor out = torch::empty({1}, options);
  cost.secondsPerCall = medianWindowSeconds([&] { at::add_out(out, one, one); }, device, minSeconds / 2.0);
  return cost;
}

double measureOptimizerStep(std::string_view optimizer, std::int64_t parameters, const c10::Device& device,
                            double minSeconds) {
  FATHOM_CHECK(optimizer == "adamw" || optimizer == "sgd", ConfigError, "cannot measure optimizer '", optimizer,
               "' (adamw or sgd)");
  FATHOM_CHECK(parameters >= 1, ConfigError, "an optimizer step needs >= 1 parameter, got ", parameters);
  const auto options = torch::TensorOptions().dtype(torch::kFloat32).device(device);
  at::Tensor weight = torch::randn({parameters}, options).requires_grad_(true);
  weight.mutable_grad() = torch::randn({parameters}, options);
  std::unique_ptr<torch::optim::Optimizer> step;
  if (optimizer == "adamw") {
    step = std::make_unique<torch::optim::AdamW>(std::vector<at::Tensor>{weight},
                                                 torch::optim::AdamWOptions(1e-3).weight_decay(0.01));
  } else {
    step = std::make_unique<torch::optim::SGD>(std::vector<at::Tensor>{weight}, torch::optim::SGDOptions(0.01));
  }
  return medianWindowSeconds([&] { step->step(); }, device, minSeconds) / static_cast<double>(parameters);
}

MemoryBandwidth measureMemoryBandwidth(std::int64_t bytes, const c10::Device& device, int repeats) {
  FATHOM_CHECK(bytes >= 4 && repeats >= 1, ConfigError, "memory bandwidth needs >= 4 bytes and >= 1 repeat");
  torch::NoGradGuard noGrad;
  const std::int64_t n = bytes / 4;
  const auto options = torch::TensorOptions().dtype(torch::kFloat32).device(device);
  const at::Tensor a = torch::rand({n}, options);
  const at::Tensor b = torch::rand({n}, options);
  at::Tensor out = torch::empty({n}, options);
  out.copy_(a);  // warm-up: first touch of every page
  at::add_out(out, a, b);
  sync(device);
  const double moved = 4.0 * static_cast<double>(n);
  MemoryBandwidth best;
  for (int r = 0; r < repeats; ++r) {
    auto start = Clock::now();
    out.copy_(a);
    sync(device);
    best.copy = std::max(best.copy, 2.0 * moved / secondsSince(start));
    start = Clock::now();
    at::add_out(out, a, b);
    sync(device);
    best.add = std::max(best.add, 3.0 * moved / secondsSince(start));
  }
  return best;
}

std::vector<plan::CollectivePoint> timeCollectives(runtime::ProcessGroup& pg, plan::CollectiveKind kind,
                                                   const std::vector<std::int64_t>& sizes, const c10::Device& device,
                                                   const CollectiveTiming& timing, std::string* path,
                                                   const std::function<void(std::size_t, int)>& onSize) {
  const int world = pg.worldSize();
  const int passes = std::max(timing.passes, 1);
  // nccl-tests' sizes: all_gather's is the gathered output and reduce_scatter's the full input, so one rank's share
  // is bytes / world; all_reduce and broadcast move the whole buffer.
  const bool perRankShare = kind == plan::CollectiveKind::AllGather || kind == plan::CollectiveKind::ReduceScatter;
  const auto options = torch::TensorOptions().dtype(torch::kFloat32).device(device);
  runtime::ReduceScatterPath rsPath = runtime::ReduceScatterPath::Native;
  std::vector<std::int64_t> elements(sizes.size());
  std::vector<int> callsPerPass(sizes.size(), 1);
  std::vector<std::vector<double>> times(sizes.size());
  for (int pass = 0; pass < passes; ++pass) {
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      if (onSize) {
        onSize(i, pass);
      }
      const std::int64_t share = std::max<std::int64_t>(1, sizes[i] / 4 / (perRankShare ? world : 1));
      elements[i] = perRankShare ? share * world : share;
      at::Tensor full = torch::ones({elements[i]}, options);
      at::Tensor part = torch::ones({share}, options);
      auto call = [&] {
        switch (kind) {
        case plan::CollectiveKind::AllReduce: pg.allReduce(full); break;
        case plan::CollectiveKind::Broadcast: pg.broadcast(full, 0); break;
        case plan::CollectiveKind::AllGather: pg.allGatherIntoAsync(part, full).wait(); break;
        case plan::CollectiveKind::ReduceScatter: rsPath = pg.reduceScatter(full, part); break;
        case plan::CollectiveKind::SendRecv: FATHOM_ASSERT(false, "send_recv is not calibrated");
        }
        sync(device);
      };
      if (pass == 0) {
        call();  // warm-up: connections, buffers
        const auto start = Clock::now();
        call();
        const double one = maxOverRanks(pg, secondsSince(start), device);
        // Every rank computes the same count from the same (max-reduced) time: c10d needs the same calls everywhere.
        const double budget = std::floor(timing.secondsPerSize / passes / std::max(one, 1e-9));
        callsPerPass[i] = static_cast<int>(std::clamp(budget, 1.0, std::max(1.0, 1.0 * timing.repeats / passes)));
      }
      pg.barrier();
      // Each call timed on its own and the median kept: a call that waits for the scheduler does not move it, as it
      // moves a mean; latency-bound small messages are the ones such waits distort.
      for (int c = 0; c < callsPerPass[i]; ++c) {
        const auto start = Clock::now();
        call();
        times[i].push_back(secondsSince(start));
      }
    }
  }
  std::vector<plan::CollectivePoint> points;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    std::vector<double>& t = times[i];
    std::nth_element(t.begin(), t.begin() + static_cast<std::ptrdiff_t>(t.size() / 2), t.end());
    points.push_back({elements[i] * 4, maxOverRanks(pg, t[t.size() / 2], device)});
  }
  if (path != nullptr) {
    *path = rsPath == runtime::ReduceScatterPath::AllReduceSlice ? "all_reduce_slice" : "";
  }
  return points;
}

}  // namespace fathom::calibrate
