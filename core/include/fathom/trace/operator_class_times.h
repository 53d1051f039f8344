// SPDX-License-Identifier: Apache-2.0
// Where one rank's profiled steps went, by the operator classes the planner's time model prices (docs/traces.md,
// "Operator classes"): the linear layers' matrix products, batched products (the attention core), the optimizer
// step, the rest of the compute, communication not hidden under compute, and what is left. `fathom plan
// --calibrate_from RUN` compares these with the planner's prediction of the same run (calibrate/run_fit.h).
#pragma once

#include "fathom/trace/trace_summary.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

namespace fathom::trace {

/// One rank's profiled steps (every ProfilerStep window together), by class. Times are nanoseconds summed over the
/// steps; divide by `steps` for one step's. The classes add up: matmulNs + batchedMatmulNs + optimizerNs +
/// otherComputeNs = the compute union, and compute + exposedCommunicationNs + otherNs = spanNs.
struct OperatorClassTimes {
  int steps = 0;              ///< ProfilerStep windows
  std::int64_t spanNs = 0;    ///< Σ the windows' lengths
  std::int64_t matmulNs = 0;  ///< self time of aten::mm and aten::addmm (linear layers; on a GPU: their kernels)
  /// Self time of aten::bmm and aten::baddbmm, the attention core (on a GPU: their kernels and fused attention's)
  std::int64_t batchedMatmulNs = 0;
  /// fathom::optimizer_step spans less the collective spans inside them (on a GPU: kernels launched in the spans)
  std::int64_t optimizerNs = 0;
  std::int64_t otherComputeNs = 0;           ///< the rest of the compute union (element-wise work, copies, dispatch)
  std::int64_t communicationNs = 0;          ///< union of the collective spans
  std::int64_t exposedCommunicationNs = 0;   ///< of which not under compute
  std::int64_t otherNs = 0;                  ///< neither compute nor communication (the loop, data loading, idle)
  std::vector<CollectiveStats> collectives;  ///< per kind, within the windows
};

/// The operator-class times of one rank's trace (`.json` or `.json.gz`; a merged trace needs `rank`), read in three
/// streaming passes: summarizeTrace for the steps, summarizeTrace over [first step's start, last step's end) for the
/// self times, unions and collectives, and the optimizer and collective spans for their intersection. On the GPU
/// timeline (a trace with kernels) the classes are kernel time in the steps' GPU windows: a kernel counts for the
/// class of the operator that launched it (its External id), or for the optimizer when launched inside its span
/// (two more passes: the operators and launches, then the kernels). A trace without ProfilerStep windows is refused
/// (ConfigError). Errors of the file throw StorageError as summarizeTrace does.
OperatorClassTimes operatorClassTimes(const std::filesystem::path& path, std::optional<int> rank = std::nullopt);

}  // namespace fathom::trace
