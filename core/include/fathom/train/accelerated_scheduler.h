// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <torch/optim/schedulers/lr_scheduler.h>

#include <functional>
#include <memory>

namespace fathom::train {

class GradientState;

/// How a prepared scheduler steps (Accelerate's AcceleratedScheduler arguments).
struct SchedulerStepping {
  bool stepWithOptimizer = true;  ///< Accelerator(step_scheduler_with_optimizer=...)
  bool splitBatches = false;      ///< step once per sync step instead of num_processes times
  int numProcesses = 1;
};

/// A prepared learning-rate scheduler: Accelerate's AcceleratedScheduler. With stepWithOptimizer, step() does
/// nothing on accumulation batches or when an optimizer skipped its step (fp16 overflow), and otherwise steps
/// the wrapped scheduler num_processes times (once with split_batches), because a schedule written for one
/// process counts batches of the per-process size. Without it, every step() steps once.
class AcceleratedScheduler {
public:
  /// `anyStepSkipped` reports whether one of the Accelerator's optimizers skipped its last step.
  AcceleratedScheduler(std::shared_ptr<torch::optim::LRScheduler> scheduler, GradientState& state,
                       SchedulerStepping stepping, std::function<bool()> anyStepSkipped);
  void step();
  /// Times the wrapped scheduler actually stepped.
  std::int64_t innerSteps() const { return m_innerSteps; }
  /// Restores the count (resuming a checkpoint).
  void setInnerSteps(std::int64_t steps) { m_innerSteps = steps; }
  torch::optim::LRScheduler& scheduler() { return *m_scheduler; }

private:
  std::shared_ptr<torch::optim::LRScheduler> m_scheduler;
  GradientState& m_state;
  SchedulerStepping m_stepping;
  std::function<bool()> m_anyStepSkipped;
  std::int64_t m_innerSteps = 0;
};

}  // namespace fathom::train
