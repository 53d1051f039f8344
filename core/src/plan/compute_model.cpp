// SPDX-License-Identifier: Apache-2.0
// FLOPs (Korthikanti Eq. 7/8, Narayanan 2021, Kaplan 6PD) and the step-time model: compute at an assumed
// efficiency, 1F1B pipeline bubble, exposed communication after overlap, offload transfers.
#include <fathom/plan/compute_model.h>

#include "calibrated_time.h"
#include "context.h"

#include <algorithm>

namespace fathom::plan {
namespace {

// Forward FLOPs per token of the attention core (QKᵀ and AV): 4·s·(a·d_head) per self-attention block.
double attentionCoreFlopsPerToken(const ModelSpec& m, double seq) {
  const auto& d = m.dims;
  const double width = static_cast<double>(d.heads * d.headDim);
  const double blocks = static_cast<double>(d.layers) + 2.0 * static_cast<double>(d.decoderLayers);
  return 4.0 * seq * width * blocks;
}

}  // namespace

double attentionCoreFlops(const ModelSpec& model, double tokens, double seq) {
  return model.hasDims() ? attentionCoreFlopsPerToken(model, seq) * tokens : 0.0;
}

double modelFlops(const ModelSpec& model, double tokens, double seq) {
  if (!model.hasDims()) {
    return 6.0 * static_cast<double>(model.totalParams) * tokens;
  }
  return 3.0 * tokens *
         (2.0 * static_cast<double>(model.matmulParamsPerToken) + attentionCoreFlopsPerToken(model, seq));
}

double hardwareFlops(const ModelSpec& model, double tokens, double seq, Recompute recompute) {
  const double base = modelFlops(model, tokens, seq);
  if (recompute == Recompute::None) {
    return base;
  }
  if (!model.hasDims()) {
    return recompute == Recompute::Full ? 8.0 * static_cast<double>(model.totalParams) * tokens : base;
  }
  const double core = attentionCoreFlopsPerToken(model, seq) * tokens;
  if (recompute == Recompute::Selective) {
    return base + 3.0 * core;  // Eq. 8: 1 + s/(3h) instead of 1 + s/(6h)
  }
  // Full: one more forward of every layer; the output layer is not recomputed.
  const double head = 2.0 * static_cast<double>(model.dims.hidden * model.dims.vocab);
  const double layerMatmuls = 2.0 * static_cast<double>(model.matmulParamsPerToken) - head;
  return base + tokens * layerMatmuls + core;
}

namespace detail {

void predictTime(const Context& ctx, Prediction& out) {
  const Plan& p = ctx.plan;
  TimePrediction& t = out.time;
  t.tokensPerStep = static_cast<double>(p.microBatch) * ctx.seq * ctx.microSteps * ctx.dp;
  t.modelFlopsPerStep = modelFlops(ctx.model, t.tokensPerStep, ctx.seq);
  t.hardwareFlopsPerStep = hardwareFlops(ctx.model, t.tokensPerStep, ctx.seq, p.recompute);
  const PeakFlops& pk = ctx.hw.peak;
  t.peakFlopsPerGpu = p.precision == Precision::Fp32   ? pk.fp32
                      : p.precision == Precision::Fp16 ? pk.fp16
                      : p.precision == Precision::Bf16 ? pk.bf16
                                                       : pk.fp8;
  if (const std::optional<HardwareCalibration>& cal = ctx.hw.calibration) {
    // A calibrated profile's peak is an achieved rate, measured here: say when, where and how (issue 24, --explain).
    ctx.explain("hardware.peak_flops_per_gpu", t.peakFlopsPerGpu,
                "the per-process matmul rate `fathom calibrate` measured with gpus_per_node processes at once (tokens "
                "x h @ h x 4h, the best shape), not a datasheet peak",
                "calibration", "profile=", ctx.hw.name, ", measured_at=", cal->measuredAt, ", host=", cal->host,
                ", device=", cal->deviceName.empty() ? cal->device : cal->deviceName, ", mode=", cal->mode,
                ", processes_per_node=", ctx.hw.gpusPerNode, ", matmul_rates_measured=", cal->matmul.size());
    ctx.explain("hardware.intra_node_bandwidth", ctx.hw.intraNode.bandwidth,
                "the bus bandwidth (beta) of the all_reduce fit with the most ranks `fathom calibrate` measured (the "
                "memory copy bandwidth when it measured no collective)",
                "calibration", "backend=", cal->backend, ", fits=", cal->collectives.size(),
                ", latency_s=", ctx.hw.intraNode.latency);
  }
  ctx.explain("compute.model_flops_per_step", t.modelFlopsPerStep,
              ctx.model.hasDims() ? "3 · tokens · (2 · matmul_params_per_token + 4 · s · a·d_head · attention_blocks) "
                                    "(= 72BLsh²(1 + s/(6h) + v/(12hL)) for a GPT layer)"
                                  : "6 · P · tokens",
              ctx.model.hasDims() ? "korthikanti-eq7" : "kaplan-6pd", "tokens=", t.tokensPerStep,
              ", matmul_params_per_token=", ctx.model.matmulParamsPerToken, ", s=", ctx.seq);
  ctx.explain("compute.hardware_flops_per_step", t.hardwareFlopsPerStep,
              "model FLOPs + recomputation (selective: + attention core, Eq. 8; full: + one forward of the layers)",
              p.recompute == Recompute::Full ? "narayanan-2021" : "korthikanti-eq8",
              "recompute=", toString(p.recompute));

  double busy = 0.0;
  if (ctx.hw.calibration) {
    // Measured rates per operator class: no assumed efficiency (the rates are achieved ones).
    const CalibratedCompute c = calibratedCompute(ctx);
    busy = c.total();
    t.matmulS = c.matmulS;
    t.attentionS = c.attentionS;
    t.elementwiseS = c.elementwiseS;
    t.optimizerS = c.optimizerS;
    ctx.explain("time.compute_busy_s", busy,
                "matmul + attention + element-wise + optimizer, each at the rate `fathom calibrate` measured for the "
                "plan's processes per node and threads per process (compute.calibrated.*)",
                "calibration", "matmul_s=", c.matmulS, ", attention_s=", c.attentionS,
                ", elementwise_s=", c.elementwiseS, ", optimizer_s=", c.optimizerS);
  } else {
    const double perGpuPeak = t.peakFlopsPerGpu * ctx.opt.computeEfficiency;
    busy = t.hardwareFlopsPerStep / (static_cast<double>(p.numGpus) * perGpuPeak);
  }
  t.bubbleS = p.pp > 1 ? busy * (p.pp - 1) / static_cast<double>(ctx.microSteps) : 0.0;
  t.computeS = busy + t.bubbleS;
  ctx.explain("time.compute_s", t.computeS,
              ctx.hw.calibration ? "calibrated busy time · (1 + (pp - 1) / micro_steps)"
                                 : "hardware_flops / (gpus · peak · efficiency) · (1 + (pp - 1) / micro_steps)",
              ctx.hw.calibration ? "calibration" : "narayanan-2021", "peak=", t.peakFlopsPerGpu,
              ", efficiency=", ctx.hw.calibration ? 1.0 : ctx.opt.computeEfficiency, ", gpus=", p.numGpus,
              ", pp=", p.pp, ", micro_steps=", ctx.microSteps);

  // Overlap: gradient reductions and prefetched gathers hide behind compute. Collectives issued in every
  // micro-step overlap the whole step's compute; those issued once overlap only the last backward (2/3 of a
  // micro-step, 3/4 with full recomputation).
  double overlappedAll = 0;
  double overlappedLast = 0;
  double exposed = 0;
  const bool canOverlap = communicationCanOverlap(ctx);
  for (const Collective& c : out.communication.collectives) {
    if (!c.overlapped || !canOverlap) {
      exposed += c.timeS;
    } else if (c.perMicroStep) {
      overlappedAll += c.timeS;
    } else {
      overlappedLast += c.timeS;
    }
  }
  const double backwardShare = p.recompute == Recompute::Full ? 0.75 : 2.0 / 3.0;
  const double window = overlappedAll > 0 ? busy : busy / ctx.microSteps * backwardShare;
  exposed += std::max(0.0, overlappedAll + overlappedLast - window);
  t.commS = out.communication.timeS;
  t.exposedCommS = exposed;
  ctx.explain("time.exposed_comm_s", exposed,
              "Σ non-overlapped + max(0, Σ overlapped − window); window = compute (per-micro-step collectives) or "
              "the last backward; everything when the collectives cannot overlap (CPU ranks filling every core)",
              "derived", "comm_s=", t.commS, ", window_s=", window, ", can_overlap=", canOverlap ? "yes" : "no");

  if (p.offloadOptimizer || p.offloadParams) {
    // Unvalidated: gradients down and parameters up once per step over PCIe; offloaded parameters are
    // fetched for forward and backward in every micro-step.
    const double shard = ctx.stageParams / (ctx.shardsOptimizer() ? ctx.shardGroup : 1);
    double bytes = p.offloadOptimizer ? shard * (ctx.reduceBytes + ctx.gatherBytes) : 0.0;
    if (p.offloadParams) {
      bytes += 2.0 * ctx.microSteps * shard * ctx.gatherBytes;
    }
    t.offloadS = ctx.hw.hostToDeviceBandwidth > 0 ? bytes / ctx.hw.hostToDeviceBandwidth : 0.0;
    out.notes.push_back("offload time counts PCIe transfers only (no CPU optimizer time); unvalidated");
    ctx.explain("time.offload_s", t.offloadS, "offloaded bytes moved per step / host_to_device_bandwidth", "derived",
                "bytes=", bytes, ", bandwidth=", ctx.hw.hostToDeviceBandwidth);
  }
  if (ctx.hw.calibration && ctx.hw.calibration->runFit) {
    const RunFit& fit = *ctx.hw.calibration->runFit;
    t.overheadS = fit.overheadPerMicroStepS * ctx.microSteps;
    ctx.explain("time.overhead_s", t.overheadS,
                "micro_steps · the time per micro-step the profiled run spent outside compute and communication",
                "run-fit", "run=", fit.run, ", overhead_per_micro_step_s=", fit.overheadPerMicroStepS,
                ", micro_steps=", ctx.microSteps);
  }
  t.stepS = t.computeS + t.exposedCommS + t.offloadS + t.overheadS;
  t.tokensPerS = t.stepS > 0 ? t.tokensPerStep / t.stepS : 0.0;
  const double denom = t.stepS * static_cast<double>(p.numGpus) * t.peakFlopsPerGpu;
  t.mfu = denom > 0 ? t.modelFlopsPerStep / denom : 0.0;
  t.hfu = denom > 0 ? t.hardwareFlopsPerStep / denom : 0.0;
  ctx.explain("time.step_s", t.stepS, "compute + exposed communication + offload + overhead", "derived",
              "compute_s=", t.computeS, ", exposed_comm_s=", t.exposedCommS, ", offload_s=", t.offloadS,
              ", overhead_s=", t.overheadS);
  ctx.explain("time.tokens_per_s", t.tokensPerS, "micro_batch · seq · micro_steps · dp / step_s", "derived",
              "tokens_per_step=", t.tokensPerStep);
  ctx.explain("time.mfu", t.mfu, "model_flops / (step_s · gpus · peak)", "korthikanti-appA",
              "peak=", t.peakFlopsPerGpu);
}

}  // namespace detail
}  // namespace fathom::plan
