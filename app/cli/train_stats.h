// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace fathom::train {
class Accelerator;
}

namespace fathom::cli {

/// What `fathom train --stats_json PATH` writes: one JSON object
///
///     {"strategy": "fsdp", "world_size": N,
///      "ranks": [{"rank": 0, "peak_resident_bytes": ..., "cuda_memory": {...} (train_cuda_memory.h),
///                 "bytes": {"parameters", "gradients", "optimizer_states", "master_weights",
///                           "offloaded": {the same four}, "peak_gathered_parameters"},
///                 "steps": [{"step": 1, "loss": ..., "collectives": [{"kind", "count", "bytes"}, ...]}, ...]},
///                ...]}
///
/// per rank: the process's peak resident set size (getrusage), the model-state bytes of Accelerator::modelStateBytes()
/// (device, and host for "offloaded"), and per optimizer step the rank-local mean loss of its micro-steps and the Comm
/// totals of that step by requested kind (Accelerator::commStepTotals; kinds without a call left out; `bytes` as the
/// planner defines them). Every collective of the step counts, logging reductions (--log_every) included: use
/// --log_every 0 to compare with `fathom plan`. Use: addMicroStepLoss() after each backward, endStep() after each
/// optimizer step, then write() on every rank.
class TrainStats {
public:
  /// Adds one micro-step's loss to the optimizer step being run.
  void addMicroStepLoss(double loss);
  /// Closes optimizer step `step` (1-based): its loss is the mean of the micro-step losses added since the last
  /// endStep().
  void endStep(std::int64_t step);

  /// This rank's entry of "ranks" (reads the accelerator's byte counts and step totals; no collective).
  nlohmann::json rankEntry(const train::Accelerator& accelerator) const;
  /// Gathers every rank's entry on rank 0, which writes the whole object to `path` atomically (a temporary file
  /// beside it, renamed over it). Collective: every process must call it. Throws StorageError when the file
  /// cannot be written.
  void write(train::Accelerator& accelerator, const std::filesystem::path& path) const;

private:
  struct Step {
    std::int64_t step = 0;
    double loss = 0.0;
  };
  std::vector<Step> m_steps;
  double m_lossSum = 0.0;
  std::int64_t m_microSteps = 0;
};

}  // namespace fathom::cli
