// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <torch/optim/optimizer.h>

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace fathom::precision {

/// Accelerate's GradScalerKwargs (= torch.amp.GradScaler's constructor defaults).
struct GradScalerOptions {
  double initScale = 65536.0;          ///< first loss scale (2^16); must be finite and > 0
  double growthFactor = 2.0;           ///< scale multiplier after `growthInterval` good steps; must be finite and > 1
  double backoffFactor = 0.5;          ///< scale multiplier on a step with inf/NaN gradients; must be in (0, 1)
  std::int64_t growthInterval = 2000;  ///< consecutive good steps before the scale grows; must be >= 1
  bool enabled = true;                 ///< false: every method is a pass-through (scale returns the loss unchanged)
};

/// Throws fathom::ConfigError naming the offending value. Called by GradScaler's constructor.
void validate(const GradScalerOptions& options);

/// What GradScaler.state_dict() holds: {"scale", "growth_factor", "backoff_factor", "growth_interval",
/// "_growth_tracker"}. A disabled scaler's state has `valid == false` (PyTorch returns an empty dict).
struct GradScalerState {
  bool valid = false;      ///< false for the state of a disabled scaler
  double scale = 65536.0;  ///< current loss scale
  double growthFactor = 2.0;
  double backoffFactor = 0.5;
  std::int64_t growthInterval = 2000;
  std::int64_t growthTracker = 0;  ///< consecutive good steps since the scale last changed
};

/// Dynamic loss scaling for fp16 training, with torch.amp.GradScaler's semantics:
///
///     optimizer.zero_grad();
///     scaler.scale(loss).backward();
///     scaler.unscale_(optimizer);   // optional, e.g. before clipping
///     scaler.step(optimizer);       // skipped when any gradient is inf/NaN
///     scaler.update();              // backoff on overflow, growth after growthInterval good steps
///
/// Unscaling multiplies each gradient by the float32 reciprocal of the scale (computed in double), as
/// `_amp_foreach_non_finite_check_and_unscale_` does; the inf/NaN check and the unscale use public ATen ops so
/// they work on LibTorch 1.13 (whose _amp ops are CUDA-only) and 2.x. The scale itself is kept on the host as a
/// float32 value. Not thread-safe; one scaler serves any number of optimizers.
class GradScaler {
public:
  /// Validates `options` (fathom::ConfigError on a bad value).
  explicit GradScaler(GradScalerOptions options = {});

  /// `loss * scale` when enabled; `loss` itself when disabled.
  at::Tensor scale(const at::Tensor& loss) const;

  /// Divides the optimizer's gradients by the scale (in place) and records whether any of them is inf/NaN.
  /// At most once per optimizer between update() calls, and not after step(): a second call throws
  /// fathom::Error, as PyTorch raises RuntimeError. Throws fathom::ConfigError for a float16 gradient
  /// ("Attempting to unscale FP16 gradients."). No-op when disabled.
  void unscale_(torch::optim::Optimizer& optimizer);

  /// Unscales the gradients if unscale_() was not called, then runs `optimizer.step()` unless a gradient was
  /// inf/NaN. Returns true when the optimizer stepped. A second step() before update() throws fathom::Error.
  /// When disabled, always steps.
  bool step(torch::optim::Optimizer& optimizer);

  /// Whether the most recent step() on `optimizer` skipped the optimizer step (Accelerate's
  /// `optimizer_step_was_skipped`). False for an optimizer never stepped.
  bool stepWasSkipped(const torch::optim::Optimizer& optimizer) const;

  /// Adjusts the scale from the inf/NaN checks recorded since the last update(): overflow on any optimizer →
  /// scale × backoffFactor and the tracker resets; otherwise the tracker counts up and, on reaching
  /// growthInterval, the scale grows × growthFactor (kept only if finite) and the tracker resets. Throws
  /// fathom::Error when no optimizer was unscaled or stepped since the last update(). No-op when disabled.
  void update();

  /// update(new_scale): sets the scale directly (must be finite and > 0) and forgets this iteration's checks.
  void update(double newScale);

  /// The current scale (get_scale()); 1.0 when disabled, where PyTorch returns 1.0 as well.
  double getScale() const;
  /// Good steps counted toward the next growth.
  std::int64_t growthTracker() const { return m_growthTracker; }
  /// Makes the inf/NaN check global (torch's ShardedGradScaler): after unscaling, `reduce` receives whether this
  /// process found an inf/NaN and returns whether any process did (a collective the caller provides). Needed
  /// when each process holds different gradients (FSDP, ZeRO shards); an empty function turns it off.
  void setFoundInfReduction(std::function<bool(bool)> reduce) { m_reduceFoundInf = std::move(reduce); }

  /// Whether scaling is on.
  bool isEnabled() const { return m_options.enabled; }
  /// The options the scaler was built with (growth/backoff factors and interval as currently in effect).
  const GradScalerOptions& options() const { return m_options; }

  /// state_dict().
  GradScalerState stateDict() const;
  /// load_state_dict(): takes scale, factors, interval and tracker. Throws fathom::ConfigError for a state
  /// from a disabled scaler or with invalid values. No-op when disabled.
  void loadStateDict(const GradScalerState& state);

private:
  enum class Stage { Ready, Unscaled, Stepped };
  struct OptimizerState {
    const torch::optim::Optimizer* optimizer = nullptr;
    Stage stage = Stage::Ready;
    /// One 0-dim bool tensor per device: true when a gradient on that device had an inf/NaN.
    std::vector<std::pair<c10::Device, at::Tensor>> foundInf;
    bool lastStepSkipped = false;
  };

  OptimizerState& stateFor(const torch::optim::Optimizer& optimizer);
  const OptimizerState* findState(const torch::optim::Optimizer& optimizer) const;
  void unscaleGradients(torch::optim::Optimizer& optimizer, OptimizerState& state) const;
  static bool anyInf(const OptimizerState& state);

  GradScalerOptions m_options;
  float m_scale;
  std::int64_t m_growthTracker = 0;
  std::vector<OptimizerState> m_optimizers;
  std::function<bool(bool)> m_reduceFoundInf;
};

}  // namespace fathom::precision
