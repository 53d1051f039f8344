// SPDX-License-Identifier: Apache-2.0
#include <fathom/train/accelerated_scheduler.h>
#include <fathom/train/gradient_state.h>

namespace fathom::train {

AcceleratedScheduler::AcceleratedScheduler(std::shared_ptr<torch::optim::LRScheduler> scheduler, GradientState& state,
                                           SchedulerStepping stepping, std::function<bool()> anyStepSkipped)
    : m_scheduler(std::move(scheduler)), m_state(state), m_stepping(stepping),
      m_anyStepSkipped(std::move(anyStepSkipped)) {}

void AcceleratedScheduler::step() {
  if (!m_stepping.stepWithOptimizer) {
    m_scheduler->step();
    ++m_innerSteps;
    return;
  }
  if (!m_state.syncGradients())
    return;
  if (m_anyStepSkipped && m_anyStepSkipped())
    return;
  const int times = m_stepping.splitBatches ? 1 : m_stepping.numProcesses;
  for (int i = 0; i < times; ++i) {
    m_scheduler->step();
    ++m_innerSteps;
  }
}

}  // namespace fathom::train
