// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <torch/optim/optimizer.h>

#include <functional>
#include <memory>
#include <optional>

namespace fathom::precision {
class GradScaler;
}

namespace fathom::train {

class GradientState;

/// A prepared optimizer: Accelerate's AcceleratedOptimizer. The loop keeps calling step() and zeroGrad(); they
/// act only on batches that synchronize gradients, so gradient accumulation needs no change to the loop. Under
/// fp16 the step goes through the loss scaler: unscale, skip on inf/NaN, update the scale.
class AcceleratedOptimizer {
public:
  /// `state` and `scaler` (null without fp16) belong to the Accelerator and outlive this object. `beforeStep`
  /// runs before every step of a sync batch (skipped ones included) and `onStep` after it (the Accelerator
  /// counts optimizer steps and runs the data-parallel engines' step hooks with them).
  AcceleratedOptimizer(std::shared_ptr<torch::optim::Optimizer> optimizer, GradientState& state,
                       precision::GradScaler* scaler, std::function<void()> onStep = {},
                       std::function<void()> beforeStep = {});

  /// optimizer.step() on sync batches (through the scaler under fp16); nothing otherwise.
  void step();
  /// Clears the gradients on sync batches; nothing otherwise, so gradients keep accumulating. Like Accelerate,
  /// without an argument it calls the optimizer's own zero_grad() (LibTorch 1.13 zeroes the gradients in place,
  /// 2.x sets them to undefined); setToNone = true / false forces either.
  void zeroGrad(std::optional<bool> setToNone = std::nullopt);
  /// Whether the last step was skipped because a gradient was inf/NaN (always false without fp16).
  bool stepWasSkipped() const { return m_stepWasSkipped; }
  /// The wrapped optimizer (for its param groups, learning rates and state).
  torch::optim::Optimizer& optimizer() { return *m_optimizer; }
  const torch::optim::Optimizer& optimizer() const { return *m_optimizer; }
  /// The shared pointer the user passed to prepare().
  const std::shared_ptr<torch::optim::Optimizer>& shared() const { return m_optimizer; }

private:
  std::shared_ptr<torch::optim::Optimizer> m_optimizer;
  GradientState& m_state;
  precision::GradScaler* m_scaler = nullptr;
  std::function<void()> m_onStep;
  std::function<void()> m_beforeStep;
  bool m_stepWasSkipped = false;
};

/// Sets every parameter's gradient of `optimizer` to an undefined tensor (setToNone) or to zeros, whatever the
/// LibTorch version's own zero_grad() does.
void clearGradients(torch::optim::Optimizer& optimizer, bool setToNone);

}  // namespace fathom::train
