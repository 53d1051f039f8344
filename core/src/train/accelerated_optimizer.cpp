// SPDX-License-Identifier: Apache-2.0
#include <fathom/precision/grad_scaler.h>
#include <fathom/profile/annotations.h>
#include <fathom/train/accelerated_optimizer.h>
#include <fathom/train/gradient_state.h>

namespace fathom::train {

AcceleratedOptimizer::AcceleratedOptimizer(std::shared_ptr<torch::optim::Optimizer> optimizer, GradientState& state,
                                           precision::GradScaler* scaler, std::function<void()> onStep,
                                           std::function<void()> beforeStep)
    : m_optimizer(std::move(optimizer)), m_state(state), m_scaler(scaler), m_onStep(std::move(onStep)),
      m_beforeStep(std::move(beforeStep)) {}

void AcceleratedOptimizer::step() {
  // Whatever runs after the step (or after this skipped accumulation step) is the next forward pass.
  struct NextIsForward {
    ~NextIsForward() { profile::hooks::setBasePhase(profile::Phase::Forward); }
  } nextIsForward;
  if (!m_state.syncGradients())
    return;
  profile::RecordFunction span("fathom::optimizer_step", profile::Phase::OptimizerStep);
  if (m_beforeStep)
    m_beforeStep();
  if (m_scaler != nullptr && m_scaler->isEnabled()) {
    m_scaler->step(*m_optimizer);
    m_stepWasSkipped = m_scaler->stepWasSkipped(*m_optimizer);
    m_scaler->update();
  } else {
    m_optimizer->step();
    m_stepWasSkipped = false;
  }
  if (m_onStep)
    m_onStep();
}

void AcceleratedOptimizer::zeroGrad(std::optional<bool> setToNone) {
  if (!m_state.syncGradients())
    return;
  profile::RecordFunction span("fathom::zero_grad");
  if (setToNone) {
    clearGradients(*m_optimizer, *setToNone);
  } else {
    m_optimizer->zero_grad();
  }
}

void clearGradients(torch::optim::Optimizer& optimizer, bool setToNone) {
  for (auto& group : optimizer.param_groups()) {
    for (auto& param : group.params()) {
      at::Tensor& grad = param.mutable_grad();
      if (!grad.defined())
        continue;
      if (setToNone) {
        grad = at::Tensor();
      } else {
        grad = grad.detach();
        grad.zero_();
      }
    }
  }
}

}  // namespace fathom::train
