// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/plan/prediction.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fathom::plan {

/// How the operands of a measured matmul lie in memory, as a linear layer y = x·Wᵀ uses them: its forward reads W
/// transposed (`nt`), its input gradient dy·W is plain (`nn`), its weight gradient dyᵀ·x reads the left operand
/// transposed (`tn`). BLAS libraries differ by layout: Debian's reference BLAS runs `nt` at less than half the rate
/// of `nn` (issue 24), so a forward pass costs what the backward's two products cost.
enum class MatmulLayout { NN, NT, TN };

/// "nn", "nt", "tn".
const char* toString(MatmulLayout layout);
/// The layout named "nn", "nt" or "tn"; std::nullopt for another name.
std::optional<MatmulLayout> parseMatmulLayout(std::string_view name);

/// How many processes share a node and how many intra-op threads each runs: what decides a CPU rank's measured
/// rates (MatmulRate, ElementwiseRate, ...) and what a run fit was measured at (RunFit). plan::rankSetting() gives a
/// plan's.
struct RankSetting {
  int processes = 1;  ///< ranks per node
  int threads = 1;    ///< intra-op threads per process (1 on a GPU)

  bool operator==(const RankSetting&) const = default;
};

/// One measured matrix multiply: an (m x k) by (k x n) product in `dtype`, run by `processes` processes of this
/// node at once, each with `threads` intra-op threads (torch::set_num_threads; 1 on a GPU). `flops` is what one of
/// those processes achieved (2·m·k·n per product over the seconds it took, the mean over the processes), so a CPU
/// with more processes x threads than cores shows the slowdown oversubscription costs.
struct MatmulRate {
  std::string dtype;                       ///< "fp32", "bf16", "fp16", "tf32" (the PeakFlops names)
  MatmulLayout layout = MatmulLayout::NN;  ///< operand layout (files before issue 24's time model: nn)
  int processes = 1;                       ///< processes per node running matmuls concurrently
  int threads = 1;                         ///< intra-op threads per process
  std::int64_t m = 0;                      ///< rows of the left operand (tokens)
  std::int64_t k = 0;                      ///< inner dimension (hidden)
  std::int64_t n = 0;                      ///< columns of the right operand (4 x hidden)
  double flops = 0.0;                      ///< achieved FLOP/s of one process
};

/// Element-wise work of one process while `processes` processes of the node run it at once, each with `threads`
/// intra-op threads: the mean seconds per element of a transformer layer's element-wise operators (GELU and its
/// gradient, softmax and its gradient, add, mul, layer norm) on fp32 activations of 1 Mi elements, and the seconds
/// of one operator call on a one-element tensor (the dispatch cost every operator pays, whatever its size).
struct ElementwiseRate {
  int processes = 1;
  int threads = 1;
  double secondsPerElement = 0.0;  ///< > 0
  double secondsPerCall = 0.0;     ///< > 0
};

/// One optimizer step of one process while `processes` processes run it at once (`threads` each): seconds per fp32
/// parameter of LibTorch's optimizer `name` ("adamw", "sgd") on a 1 Mi-element parameter with its gradient.
struct OptimizerRate {
  std::string name;  ///< "adamw" or "sgd"
  int processes = 1;
  int threads = 1;
  double secondsPerParameter = 0.0;  ///< > 0
};

/// One timed collective: the mean seconds of one call on a buffer of `bytes` (nccl-tests' size: all_reduce and
/// broadcast the tensor, all_gather the gathered output, reduce_scatter the full input), the slowest rank's mean.
struct CollectivePoint {
  std::int64_t bytes = 0;
  double seconds = 0.0;
};

/// The alpha-beta fit of one collective kind at one rank count: t(S) = alpha + f·S / beta, where f is nccl-tests'
/// bus-bandwidth factor (all_reduce 2(N-1)/N, all_gather and reduce_scatter (N-1)/N, broadcast 1), so beta is the
/// bus bandwidth nccl-tests prints and the planner's LinkSpec::bandwidth means. Fitted by least squares on the
/// relative error over the raw `points`, which are kept.
struct CollectiveFit {
  /// One size range of a piecewise fit: from `fromBytes` up to the next segment's start, t(S) = alpha + f·S / beta.
  /// A backend changes algorithm with the size (Gloo's all_reduce slows per byte above a few MiB, NCCL switches
  /// protocols), which one line cannot follow within 15 % at every size (issue 24).
  struct Segment {
    std::int64_t fromBytes = 0;  ///< the first size it applies to (the first segment: every smaller size too)
    double alpha = 0.0;          ///< >= 0
    double beta = 0.0;           ///< > 0
  };

  CollectiveKind kind = CollectiveKind::AllReduce;
  int ranks = 2;       ///< processes in the group (one node)
  double alpha = 0.0;  ///< seconds per call (latency), >= 0: the whole range's line
  double beta = 0.0;   ///< bus bandwidth, bytes/s, > 0: the whole range's line
  std::string path;    ///< how the backend ran it when that differs from its name ("all_reduce_slice"), else empty
  /// By increasing fromBytes; empty when one line fits every size (or in files written before segments existed).
  std::vector<Segment> segments;
  std::vector<CollectivePoint> points;  ///< the measurements, by increasing size

  /// The segment's alpha + f·bytes / beta for the segment holding `bytes` (the whole range's line without segments).
  double predictSeconds(double bytes) const;
  /// The same for a group of `groupRanks` (another rank count than measured): the latency scaled by the ring's steps,
  /// (N - 1) / (ranks - 1), and the bus bandwidth kept, as nccl-tests' bus bandwidth is meant to be.
  double predictSeconds(double bytes, int groupRanks) const;
};

/// nccl-tests' bus-bandwidth factor of `kind` in a group of `ranks` (see CollectiveFit).
double busBandwidthFactor(CollectiveKind kind, int ranks);

/// A calibration corrected by one profiled run (`fathom plan --calibrate_from RUN`, issue 24): the time the run's
/// trace measured of each operator class and collective kind over the time the calibrated model predicts for the
/// same run. The model multiplies what it predicts by these factors, so it keeps every rate `fathom calibrate`
/// measured (how a rate changes with processes, threads, layout and size) and takes from the run what the
/// microbenchmarks miss: how the real program calls them (fused or split operators, copies into buckets, allocator
/// work, the profiler's own cost per operator). The `run_fit:` map of the `calibration:` section.
struct RunFit {
  /// One collective kind's factor: α and β of the calibrated fit scaled together (t → factor · t), fitted to the
  /// run's calls of the kind (a run's calls seldom span the sizes a separate α and β need).
  struct Collective {
    CollectiveKind kind = CollectiveKind::AllReduce;
    int ranks = 2;                  ///< the group's ranks in the run
    double factor = 1.0;            ///< measured / predicted seconds, > 0
    std::int64_t callsPerStep = 0;  ///< the run's calls per optimizer step (a rank's mean)
  };

  std::string fittedAt;        ///< UTC, ISO 8601
  std::int64_t run = 0;        ///< the run's id in the workspace it was fitted from
  std::string runName;         ///< its name
  int processes = 1;           ///< the run's ranks per node
  int threads = 1;             ///< its intra-op threads per process
  int ranks = 1;               ///< rank traces read
  int steps = 1;               ///< profiled steps per rank averaged
  double measuredStepS = 0.0;  ///< the profiled steps' mean length
  /// measured / predicted seconds per optimizer step of each operator class, > 0 (1: as calibrated).
  double matmul = 1.0;
  double attention = 1.0;
  double elementwise = 1.0;
  double optimizer = 1.0;
  /// Seconds per micro-step outside compute and communication on the training thread (the loop between operators,
  /// data loading), >= 0: TimePrediction::overheadS is micro-steps times this.
  double overheadPerMicroStepS = 0.0;
  std::vector<Collective> collectives;  ///< by kind; a kind the run did not call keeps its calibrated time

  /// The factor of `kind` (1 when the run did not call it).
  double collectiveFactor(CollectiveKind kind) const;
  /// The run's processes per node and threads per process: a plan of the same setting prefers this fit.
  RankSetting setting() const { return {processes, threads}; }

  /// The operator classes, each by its name and its factor's member, in the time model's order (matmul, attention,
  /// elementwise, optimizer: `time.<name>_s`). The one list the `factors:` map's reader and writer, the fit and the
  /// reports walk, so a class is named in one place.
  using OperatorClass = std::pair<std::string_view, double RunFit::*>;
  static const std::array<OperatorClass, 4>& operatorClasses();

  /// One factor by name: an operator class's (operatorClasses()) or a collective kind's (toString(CollectiveKind)).
  struct NamedFactor {
    std::string_view name;
    double factor = 1.0;
  };
  /// Every factor of the fit: the operator classes in the time model's order, then the collective kinds the run
  /// called, in `collectives`' order. What a report of the fit lists.
  std::vector<NamedFactor> factors() const;
};

/// What `fathom calibrate` measured on one machine: the `calibration:` section of a hardware profile. The profile's
/// peak_flops, memory_bandwidth and link figures are derived from it (calibrate/profile.h), so consumers of
/// HardwareSpec that know nothing of calibration keep working.
struct HardwareCalibration {
  std::string measuredAt;                  ///< UTC, ISO 8601 ("2026-11-28T04:50:12Z")
  std::string host;                        ///< host name
  std::string device;                      ///< "cpu" or "cuda"
  std::string deviceName;                  ///< the CPU model, or the GPU's name
  std::string backend;                     ///< c10d backend the collectives ran on: "gloo" or "nccl"
  std::string mode;                        ///< "quick", "default" or "thorough"
  int cpuCores = 0;                        ///< cores the processes could run on
  double seconds = 0.0;                    ///< wall time of the whole calibration
  std::vector<MatmulRate> matmul;          ///< every (dtype, processes, threads, shape) measured
  double memoryCopyBandwidth = 0.0;        ///< bytes/s (read + written) of a large tensor copy, one process
  double memoryAddBandwidth = 0.0;         ///< bytes/s (2 read + 1 written) of a large tensor add, one process
  std::vector<CollectiveFit> collectives;  ///< per kind and rank count
  /// Element-wise rates per (processes, threads); empty in files written before issue 24's time model.
  std::vector<ElementwiseRate> elementwise;
  /// Optimizer step rates per (optimizer, processes, threads); empty in files written before the time model.
  std::vector<OptimizerRate> optimizer;
  /// The correction of one profiled run (`fathom plan --calibrate_from`); absent in what `fathom calibrate` writes.
  std::optional<RunFit> runFit;

  /// The best per-process FLOP/s of `dtype` at `processes` processes and `threads` threads (over the shapes and
  /// layouts); 0 when not measured.
  double matmulFlops(std::string_view dtype, int processes, int threads) const;
  /// The fit of `kind` at `ranks`, or nullptr.
  const CollectiveFit* collective(CollectiveKind kind, int ranks) const;
};

}  // namespace fathom::plan
