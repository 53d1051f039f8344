// SPDX-License-Identifier: Apache-2.0
// The single measurements a calibration is made of, each in the calling process: a matmul rate, a memory bandwidth,
// the time of one collective. calibration_worker.h runs them across processes.
#pragma once

#include <fathom/plan/hardware_calibration.h>
#include <fathom/runtime/process_group.h>

#include <c10/core/Device.h>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace fathom::calibrate {

/// An (m x k) @ (k x n) product: a transformer layer's tokens x hidden x 4·hidden.
struct MatmulShape {
  std::int64_t m = 256;
  std::int64_t k = 256;
  std::int64_t n = 1024;
  /// 2·m·k·n.
  double flops() const { return 2.0 * static_cast<double>(m) * static_cast<double>(k) * static_cast<double>(n); }
};

/// Whether this process can run `dtype` ("fp32", "bf16", "fp16", "tf32") matmuls on `device`: fp16 and tf32 only
/// on CUDA (a CPU has no tensor-core path for them: fp16 matmuls there run a slow reference kernel that says
/// nothing about training speed).
bool dtypeMeasurable(std::string_view dtype, const c10::Device& device);

/// The FLOP/s this process achieves on `shape` in `dtype` and `layout` (the operands stored transposed where the
/// layout says so, as a linear layer's forward and weight gradient read them) on `device` at the current
/// torch::get_num_threads(): one warm-up product, then three windows of products, `minSeconds` in all (at least one
/// product each), and the median window's rate. tf32 enables TF32 cuBLAS for the measurement only. ConfigError for
/// a dtype that dtypeMeasurable() refuses.
double measureMatmulFlops(std::string_view dtype, const MatmulShape& shape, const c10::Device& device,
                          double minSeconds, plan::MatmulLayout layout = plan::MatmulLayout::NN);

/// Element-wise work at the current thread count: the mean seconds per element of GELU, its gradient, softmax
/// (rows of 256) and its gradient, layer norm (rows of 256), add and mul on fp32 tensors of `elements` elements
/// (the median of three windows, `minSeconds` in all), and the seconds of one add on one-element tensors (the
/// dispatch cost of an operator call).
struct ElementwiseCost {
  double secondsPerElement = 0.0;
  double secondsPerCall = 0.0;
};
ElementwiseCost measureElementwise(std::int64_t elements, const c10::Device& device, double minSeconds);

/// Seconds per parameter of one step of LibTorch's `optimizer` ("adamw": lr 1e-3, weight decay 0.01; "sgd": lr
/// 0.01) on one fp32 parameter of `parameters` elements with a gradient, at the current thread count (the median of
/// three windows, `minSeconds` in all). ConfigError for another name.
double measureOptimizerStep(std::string_view optimizer, std::int64_t parameters, const c10::Device& device,
                            double minSeconds);

/// Achieved memory bandwidth of large tensor operations: the best of `repeats`.
struct MemoryBandwidth {
  double copy = 0.0;  ///< dst.copy_(src): 2·bytes moved per call
  double add = 0.0;   ///< out = a + b: 3·bytes moved per call
};
MemoryBandwidth measureMemoryBandwidth(std::int64_t bytes, const c10::Device& device, int repeats);

/// How to time collectives.
struct CollectiveTiming {
  int repeats = 20;             ///< timed calls per size at most, over all passes (after one warm-up call)
  double secondsPerSize = 0.2;  ///< fewer calls when they would take longer (at least one per pass)
  int passes = 3;               ///< rounds over the sizes; each size's calls are spread over them
};

/// Times collectives of `kind` on `pg` at each of `sizes` (nccl-tests' sizes: bytes rounded down to whole fp32
/// elements per rank, at least one; the bytes actually moved are returned in the points). `timing.passes` rounds go
/// over the sizes, each with a share of every size's calls, so a slow spell of a shared machine (another process on
/// the cores, a scheduler phase) touches every size a little instead of one size a lot; a size's point is the median
/// of all its calls, each timed on its own, on the slowest rank (every rank gets the same points). Every rank of `pg`
/// must call it with the same arguments. `path` receives "all_reduce_slice" when the backend ran reduce_scatter as an
/// all_reduce (Gloo in LibTorch 1.13). `onSize(index, pass)` is called before each size's calls of each pass.
std::vector<plan::CollectivePoint> timeCollectives(runtime::ProcessGroup& pg, plan::CollectiveKind kind,
                                                   const std::vector<std::int64_t>& sizes, const c10::Device& device,
                                                   const CollectiveTiming& timing, std::string* path = nullptr,
                                                   const std::function<void(std::size_t, int)>& onSize = {});

}  // namespace fathom::calibrate
