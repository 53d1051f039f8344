// SPDX-License-Identifier: Apache-2.0
// torch.amp.GradScaler (torch/amp/grad_scaler.py) in C++. The inf/NaN check and unscale follow
// _amp_foreach_non_finite_check_and_unscale_, the scale update follows _amp_update_scale_
// (aten/src/ATen/native/cpu/AmpGradScalerKernels.cpp), with public ATen ops so LibTorch 1.13's CPU build works.
#include "fathom/precision/grad_scaler.h"

#include "fathom/common/error.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <iterator>

namespace fathom::precision {

void validate(const GradScalerOptions& o) {
  FATHOM_CHECK(std::isfinite(o.initScale) && o.initScale > 0.0, ConfigError,
               "GradScaler init_scale must be finite and > 0, got ", o.initScale);
  FATHOM_CHECK(std::isfinite(static_cast<float>(o.initScale)), ConfigError, "GradScaler init_scale ", o.initScale,
               " does not fit in float32");
  FATHOM_CHECK(std::isfinite(o.growthFactor) && o.growthFactor > 1.0, ConfigError,
               "GradScaler growth_factor must be finite and > 1.0, got ", o.growthFactor);
  FATHOM_CHECK(o.backoffFactor > 0.0 && o.backoffFactor < 1.0, ConfigError,
               "GradScaler backoff_factor must be > 0 and < 1.0, got ", o.backoffFactor);
  FATHOM_CHECK(o.growthInterval >= 1, ConfigError, "GradScaler growth_interval must be >= 1, got ", o.growthInterval);
}

GradScaler::GradScaler(GradScalerOptions options) : m_options(options) {
  validate(m_options);
  m_scale = static_cast<float>(m_options.initScale);
}

at::Tensor GradScaler::scale(const at::Tensor& loss) const {
  if (!m_options.enabled) {
    return loss;
  }
  return loss.mul(static_cast<double>(m_scale));
}

GradScaler::OptimizerState& GradScaler::stateFor(const torch::optim::Optimizer& optimizer) {
  for (OptimizerState& s : m_optimizers) {
    if (s.optimizer == &optimizer) {
      return s;
    }
  }
  OptimizerState& s = m_optimizers.emplace_back();
  s.optimizer = &optimizer;
  return s;
}

const GradScaler::OptimizerState* GradScaler::findState(const torch::optim::Optimizer& optimizer) const {
  for (const OptimizerState& s : m_optimizers) {
    if (s.optimizer == &optimizer) {
      return &s;
    }
  }
  return nullptr;
}

void GradScaler::unscaleGradients(torch::optim::Optimizer& optimizer, OptimizerState& state) const {
  // The reciprocal is taken in double and rounded to float32, as GradScaler.unscale_ does
  // (`self._scale.double().reciprocal().float()`). For power-of-two scales the multiply is exact.
  const float inverse = static_cast<float>(1.0 / static_cast<double>(m_scale));
  // Checked before any gradient changes, so a rejected call leaves the optimizer as it was.
  for (const auto& group : optimizer.param_groups()) {
    for (const auto& param : group.params()) {
      FATHOM_CHECK(!param.grad().defined() || param.grad().scalar_type() != at::kHalf, ConfigError,
                   "Attempting to unscale FP16 gradients: keep the parameters in float32 under fp16 mixed precision");
    }
  }
  std::vector<std::pair<c10::Device, std::vector<at::Tensor>>> flags;
  for (auto& group : optimizer.param_groups()) {
    for (auto& param : group.params()) {
      const at::Tensor& grad = param.grad();
      if (!grad.defined()) {
        continue;
      }
      at::Tensor values = grad.is_sparse() ? grad._values() : grad;
      at::Tensor nonFinite = at::isfinite(values).all().logical_not();
      values.mul_(inverse);
      auto it = std::find_if(flags.begin(), flags.end(), [&](const auto& e) { return e.first == values.device(); });
      if (it == flags.end()) {
        flags.emplace_back(values.device(), std::vector<at::Tensor>{});
        it = std::prev(flags.end());
      }
      it->second.push_back(std::move(nonFinite));
    }
  }
  for (auto& [device, perGrad] : flags) {
    state.foundInf.emplace_back(device, at::stack(perGrad).any());
  }
  if (m_reduceFoundInf) {
    // Sharded strategies: each rank saw only its shards' gradients; every rank must skip the same steps.
    const bool global = m_reduceFoundInf(anyInf(state));
    state.foundInf.clear();
    state.foundInf.emplace_back(c10::Device(c10::kCPU), at::scalar_tensor(global, at::kBool));
  }
  state.stage = Stage::Unscaled;
}

bool GradScaler::anyInf(const OptimizerState& state) {
  bool found = false;
  for (const auto& entry : state.foundInf) {
    found = found || entry.second.item<bool>();
  }
  return found;
}

void GradScaler::unscale_(torch::optim::Optimizer& optimizer) {
  if (!m_options.enabled) {
    return;
  }
  OptimizerState& state = stateFor(optimizer);
  FATHOM_CHECK(state.stage != Stage::Unscaled, Error,
               "unscale_() has already been called on this optimizer since the last update().");
  FATHOM_CHECK(state.stage != Stage::Stepped, Error, "unscale_() is being called after step().");
  unscaleGradients(optimizer, state);
}

bool GradScaler::step(torch::optim::Optimizer& optimizer) {
  OptimizerState& state = stateFor(optimizer);
  if (!m_options.enabled) {
    optimizer.step();
    state.lastStepSkipped = false;
    return true;
  }
  FATHOM_CHECK(state.stage != Stage::Stepped, Error, "step() has already been called since the last update().");
  if (state.stage == Stage::Ready) {
    unscaleGradients(optimizer, state);
  }
  FATHOM_CHECK(!state.foundInf.empty(), Error,
               "No inf checks were recorded for this optimizer: none of its parameters has a gradient.");
  const bool skip = anyInf(state);
  if (!skip) {
    optimizer.step();
  }
  state.stage = Stage::Stepped;
  state.lastStepSkipped = skip;
  return !skip;
}

bool GradScaler::stepWasSkipped(const torch::optim::Optimizer& optimizer) const {
  const OptimizerState* state = findState(optimizer);
  return state != nullptr && state->lastStepSkipped;
}

void GradScaler::update() {
  if (!m_options.enabled) {
    return;
  }
  bool recorded = false;
  bool foundInf = false;
  for (const OptimizerState& state : m_optimizers) {
    recorded = recorded || !state.foundInf.empty();
    foundInf = foundInf || anyInf(state);
  }
  FATHOM_CHECK(recorded, Error, "No inf checks were recorded prior to update(): call step() or unscale_() first.");
  // _amp_update_scale_: the products are computed in double and stored as float32.
  if (foundInf) {
    m_scale = static_cast<float>(static_cast<double>(m_scale) * m_options.backoffFactor);
    m_growthTracker = 0;
  } else if (m_growthTracker + 1 == m_options.growthInterval) {
    const auto grown = static_cast<float>(static_cast<double>(m_scale) * m_options.growthFactor);
    if (std::isfinite(grown)) {
      m_scale = grown;
    }
    m_growthTracker = 0;
  } else {
    ++m_growthTracker;
  }
  for (OptimizerState& state : m_optimizers) {
    state.stage = Stage::Ready;
    state.foundInf.clear();
  }
}

void GradScaler::update(double newScale) {
  if (!m_options.enabled) {
    return;
  }
  FATHOM_CHECK(std::isfinite(newScale) && newScale > 0.0 && std::isfinite(static_cast<float>(newScale)), ConfigError,
               "GradScaler new scale must be finite (in float32) and > 0, got ", newScale);
  m_scale = static_cast<float>(newScale);
  for (OptimizerState& state : m_optimizers) {
    state.stage = Stage::Ready;
    state.foundInf.clear();
  }
}

double GradScaler::getScale() const {
  return m_options.enabled ? static_cast<double>(m_scale) : 1.0;
}

GradScalerState GradScaler::stateDict() const {
  GradScalerState s;
  if (!m_options.enabled) {
    return s;
  }
  s.valid = true;
  s.scale = static_cast<double>(m_scale);
  s.growthFactor = m_options.growthFactor;
  s.backoffFactor = m_options.backoffFactor;
  s.growthInterval = m_options.growthInterval;
  s.growthTracker = m_growthTracker;
  return s;
}

void GradScaler::loadStateDict(const GradScalerState& state) {
  if (!m_options.enabled) {
    return;
  }
  FATHOM_CHECK(state.valid, ConfigError,
               "The source GradScaler state is empty, possibly because it was saved from a disabled GradScaler.");
  GradScalerOptions next = m_options;
  next.initScale = state.scale;
  next.growthFactor = state.growthFactor;
  next.backoffFactor = state.backoffFactor;
  next.growthInterval = state.growthInterval;
  validate(next);
  FATHOM_CHECK(state.growthTracker >= 0 && state.growthTracker < state.growthInterval, ConfigError,
               "GradScaler _growth_tracker must be >= 0 and < growth_interval (", state.growthInterval, "), got ",
               state.growthTracker);
  m_options = next;
  m_scale = static_cast<float>(state.scale);
  m_growthTracker = state.growthTracker;
}

}  // namespace fathom::precision
