// SPDX-License-Identifier: Apache-2.0
#include "calibrated_time.h"

#include <fathom/plan/compute_model.h>
#include <fathom/plan/predict.h>

#include <algorithm>
#include <string>

namespace fathom::plan::detail {
namespace {

/// The calibration's dtype name for a plan's compute precision.
const char* matmulDtype(Precision p) {
  switch (p) {
  case Precision::Fp32: return "fp32";
  case Precision::Fp16: return "fp16";
  case Precision::Bf16: return "bf16";
  case Precision::Fp8: return "fp8";
  }
  return "fp32";
}

// Element-wise elements one token touches in one transformer block's forward, besides the matmuls: two layer norms
// (h each), GELU (4h), two residual adds (2h), splitting q, k, v into heads and merging them back (4h: copies):
// 12h; and three passes over each head's scores (scale, mask, softmax): 3·a·s. The backward runs each operator's
// gradient, about two passes per forward pass. Counted from the built-in GPT block (models/gpt_block.cpp); a
// profiled run's fit (`fathom plan --calibrate_from`) corrects what another implementation does differently.
constexpr double kElementsPerHidden = 12.0;
constexpr double kElementsPerScore = 3.0;
constexpr double kBackwardPasses = 2.0;
// The loss: log-softmax over the vocabulary and its gradient, about three passes per logit.
constexpr double kLossPassesPerLogit = 3.0;

}  // namespace

bool communicationCanOverlap(const Context& ctx) {
  if (ctx.hw.device == DeviceKind::Gpu || !ctx.hw.calibration) {
    return true;
  }
  const RankSetting s = rankSetting(ctx.hw, ctx.plan);
  return s.processes * s.threads < ctx.hw.calibration->cpuCores;
}

CalibratedCompute calibratedCompute(const Context& ctx) {
  const HardwareCalibration& cal = *ctx.hw.calibration;
  const Plan& p = ctx.plan;
  const ModelSpec& model = ctx.model;
  const RankSetting setting = rankSetting(ctx.hw, ctx.plan);
  const CalibratedRates rates(cal, setting);
  const char* dtype = matmulDtype(p.precision);

  // One rank's tokens per micro-step, and the forward FLOPs of its linear layers and attention core (a tensor-parallel
  // rank does 1/tp of each; a pipeline stage its layers' share).
  const double tokens = static_cast<double>(p.microBatch) * ctx.seq;
  const double stageShare =
      model.hasDims() && p.pp > 1 ? ctx.layersPerStage / static_cast<double>(model.totalLayers()) : 1.0;
  const double linearParams =
      model.hasDims() ? static_cast<double>(model.matmulParamsPerToken) : static_cast<double>(model.totalParams);
  const double linearForward = 2.0 * linearParams * tokens * stageShare / p.tp;
  const double attentionForward = attentionCoreFlops(model, tokens, ctx.seq) * stageShare / p.tp;
  const double hidden = model.hasDims() ? static_cast<double>(model.dims.hidden) : 0.0;
  const double headDim = model.hasDims() ? static_cast<double>(model.dims.headDim) : 0.0;
  auto seconds = [&](double flops, MatmulLayout layout, double k) {
    const double rate = rates.matmulFlops(dtype, layout, k > 0 ? k : 1024.0);
    FATHOM_CHECK(rate > 0, ConfigError, "hardware '", ctx.hw.name, "' has no calibrated ", dtype,
                 " matmul rate; run `fathom calibrate` again or choose another precision");
    return flops / rate;
  };
  // Recomputation runs the forward again in the backward: selective the attention core, full every layer.
  const double linearForwards = p.recompute == Recompute::Full ? 2.0 : 1.0;
  const double attentionForwards = p.recompute == Recompute::None ? 1.0 : 2.0;

  CalibratedCompute c;
  const double micro = ctx.microSteps;
  // y = x·Wᵀ reads W transposed (nt); dx = dy·W is plain (nn); dW = dyᵀ·x reads dy transposed (tn).
  c.matmulS =
      micro * (linearForwards * seconds(linearForward, MatmulLayout::NT, hidden) +
               seconds(linearForward, MatmulLayout::NN, hidden) + seconds(linearForward, MatmulLayout::TN, hidden));
  // Forward: Q·Kᵀ (nt) and P·V (nn), half the FLOPs each; backward: dP = dO·Vᵀ (nt), dQ = dS·K (nn), dK = dSᵀ·Q and
  // dV = Pᵀ·dO (tn).
  const double half = attentionForward / 2.0;
  c.attentionS = micro * (attentionForwards *
                              (seconds(half, MatmulLayout::NT, headDim) + seconds(half, MatmulLayout::NN, headDim)) +
                          seconds(half, MatmulLayout::NT, headDim) + seconds(half, MatmulLayout::NN, headDim) +
                          2.0 * seconds(half, MatmulLayout::TN, headDim));

  double elements = 0.0;
  if (model.hasDims()) {
    const auto& d = model.dims;
    const double blocks = static_cast<double>(model.totalLayers()) * stageShare;
    const double perBlock =
        kElementsPerHidden * hidden / p.tp + kElementsPerScore * static_cast<double>(d.heads) / p.tp * ctx.seq;
    elements = tokens * blocks * perBlock * (1.0 + kBackwardPasses) +
               tokens * static_cast<double>(d.vocab) / p.tp * kLossPassesPerLogit;
  }
  c.elementwiseS = micro * elements * rates.secondsPerElement();

  const double localParams = ctx.stageParams / (ctx.shardsOptimizer() ? ctx.shardGroup : 1);
  c.optimizerS = p.offloadOptimizer ? 0.0 : localParams * rates.secondsPerParameter(toString(p.optimizer));

  if (const std::optional<RunFit>& fit = cal.runFit) {
    // A profiled run's correction: each class as the run's trace measured it relative to this model's prediction.
    c.matmulS *= fit->matmul;
    c.attentionS *= fit->attention;
    c.elementwiseS *= fit->elementwise;
    c.optimizerS *= fit->optimizer;
    ctx.explain("compute.calibrated.run_fit", fit->matmul,
                "each class's time · the measured / predicted factor of the profiled run the profile was fitted to "
                "(the value is the matmul factor)",
                "run-fit", "run=", fit->run, " (", fit->runName, "), fitted_at=", fit->fittedAt,
                ", matmul=", fit->matmul, ", attention=", fit->attention, ", elementwise=", fit->elementwise,
                ", optimizer=", fit->optimizer, ", run_processes=", fit->processes, ", run_threads=", fit->threads,
                ", ranks=", fit->ranks, ", steps=", fit->steps);
  }

  const RankSetting from = rates.matmulSetting();
  ctx.explain("compute.calibrated.matmul_s", c.matmulS,
              "micro_steps · (F/R_nt + F/R_nn + F/R_tn), F = 2 · matmul_params_per_token · tokens / tp (a linear "
              "layer's forward, input-gradient and weight-gradient products)",
              "calibration", "F=", linearForward, ", R_nt=", rates.matmulFlops(dtype, MatmulLayout::NT, hidden),
              ", R_nn=", rates.matmulFlops(dtype, MatmulLayout::NN, hidden),
              ", R_tn=", rates.matmulFlops(dtype, MatmulLayout::TN, hidden), ", dtype=", dtype,
              ", processes=", setting.processes, ", threads=", setting.threads,
              ", measured_at_processes=", from.processes, ", measured_at_threads=", from.threads,
              ", micro_steps=", ctx.microSteps);
  ctx.explain("compute.calibrated.attention_s", c.attentionS,
              "micro_steps · (forward Q·Kᵀ, P·V at R_nt, R_nn; backward at R_nt, R_nn and twice R_tn), A/2 FLOPs "
              "each, A = 4 · s · a·d_head · blocks · tokens / tp",
              "calibration", "A=", attentionForward, ", k=d_head=", headDim);
  ctx.explain("compute.calibrated.elementwise_s", c.elementwiseS,
              "micro_steps · tokens · (blocks · (12h + 3as) · 3 + 3v) · seconds_per_element", "calibration",
              "elements=", elements, ", seconds_per_element=", rates.secondsPerElement());
  ctx.explain("compute.calibrated.optimizer_s", c.optimizerS,
              "parameters on the rank (its shard when the optimizer is sharded) · seconds_per_parameter", "calibration",
              "parameters=", localParams, ", optimizer=", toString(p.optimizer),
              ", seconds_per_parameter=", rates.secondsPerParameter(toString(p.optimizer)));
  return c;
}

}  // namespace fathom::plan::detail

namespace fathom::plan {

RankSetting rankSetting(const HardwareSpec& hw, const Plan& plan) {
  // As makeContext() counts ranks per node (Context::gpusPerNode).
  const int perNode = plan.gpusPerNode > 0 ? plan.gpusPerNode : hw.gpusPerNode;
  const int processes = std::max(1, std::min(perNode, plan.numGpus));
  if (hw.device == DeviceKind::Gpu) {
    return {processes, 1};
  }
  if (plan.cpuThreadsPerProcess > 0) {
    return {processes, plan.cpuThreadsPerProcess};
  }
  const int cores = hw.calibration ? std::max(1, hw.calibration->cpuCores) : 1;
  return {processes, processes > 1 ? 1 : cores};
}

}  // namespace fathom::plan
