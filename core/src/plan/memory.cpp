// SPDX-License-Identifier: Apache-2.0
// Per-rank memory: model states under the three bytes conventions, sharding, offload, FSDP/ZeRO-3 working sets,
// and activations (Korthikanti et al. 2022, Table 2 and §4.2-4.3).
#include <fathom/plan/memory.h>

#include "context.h"

#include <algorithm>
#include <cmath>

namespace fathom::plan {

double activationBytesPerLayer(const LayerShape& x) {
  const double s = x.seq;
  const double b = x.microBatch;
  const double h = x.hidden;
  const double a = x.heads;
  const double kv = x.kvHeads > 0 ? x.kvHeads : a;
  const double hd = x.headDim > 0 ? x.headDim : h / a;
  const double f = x.ffn > 0 ? x.ffn : 4 * h;
  const double e = x.activationBytes;
  const double t = x.tp;
  const double mask = x.dropout ? 1.0 : 0.0;
  if (x.recompute == Recompute::Full) {
    return e * s * b * h;  // only the layer input is checkpointed: 2sbh
  }
  const double attentions = x.crossAttention ? 2.0 : 1.0;
  // Replicated across tensor-parallel ranks: the two layer-norm inputs, the attention and MLP inputs, and the two
  // residual dropout masks (10sbh for the paper's layer). A cross-attention block adds its norm, input and mask.
  double replicated = s * b * h * (4 * e + 2 * mask);
  // Split across t: Q, K, V, the projection input, and the MLP's inner tensors (24sbh for the paper's layer).
  double split =
      attentions * s * b * e * (2 * a * hd + 2 * kv * hd) + s * b * e * f * (x.gatedMlp ? 4 : 2) * x.expertsPerToken;
  if (x.crossAttention) {
    replicated += s * b * h * (2 * e + mask);
  }
  // The attention core: softmax output, its dropout mask and the dropout output (5as²b), split across t.
  const double core = attentions * a * s * s * b * (x.dropout ? 2 * e + 1 : e);
  double bytes = x.sequenceParallel ? (replicated + split) / t : replicated + split / t;
  if (x.recompute == Recompute::None && !x.flashAttention) {
    bytes += core / t;
  }
  return bytes;
}

StateBytes stateBytesPerParam(const Plan& plan, double adafactorBytesPerParam) {
  const double moments = plan.optimizer == Optimizer::Adam || plan.optimizer == Optimizer::AdamW ? 2.0
                         : plan.optimizer == Optimizer::SgdMomentum                              ? 1.0
                                                                                                 : 0.0;
  const bool adafactor = plan.optimizer == Optimizer::Adafactor;
  const auto optimBytes = [&](double elementBytes) {
    return adafactor ? adafactorBytesPerParam * elementBytes / 4.0 : moments * elementBytes;
  };
  StateBytes s;
  const bool mixed = plan.precision != Precision::Fp32;
  if (!mixed || plan.masterWeights == MasterWeights::Autocast) {
    s = {4, 4, 0, 0, optimBytes(4)};
  } else if (plan.masterWeights == MasterWeights::None) {
    s = {2, 2, 0, 0, optimBytes(2)};  // torch.optim keeps its moments in the parameter's dtype
  } else if (plan.strategy == Strategy::Fsdp) {
    // FSDP's sharded FlatParameter stays fp32 and IS the master copy (FSDP paper §4.4); its gradient is fp32.
    s = {4, 4, 0, 0, optimBytes(4)};
  } else {
    s = {2, 2, 0, 4, optimBytes(4)};
    switch (plan.bytes) {
    case BytesConvention::Zero: break;  // 2 + 2 + (4 + 8) = 16
    case BytesConvention::Megatron:
      // bf16 params with fp32 main grads (18); fp16 keeps an fp16 grad plus an fp32 copy (20).
      if (plan.precision == Precision::Fp16) {
        s.gradCopy = 4;
      } else {
        s.gradLow = 4;
      }
      break;
    case BytesConvention::DeepSpeed:
      // stage_1_and_2.py: "18 = 2 grads16 + 4 grads32 + 4 params32 + 8 optim32"; stage3.py: 16 fp32 + 2 fp16
      // params, the fp16 grads being in the 4·largest_layer working set.
      s.gradCopy = 4;
      if (plan.strategy == Strategy::Zero3) {
        s.gradLow = 0;
      }
      break;
    }
  }
  if (plan.strategy == Strategy::Fsdp && mixed && plan.masterWeights == MasterWeights::None) {
    s = {2, 2, 0, 0, optimBytes(2)};
  }
  return s;
}

namespace detail {
namespace {

LayerShape layerShape(const Context& ctx) {
  const auto& d = ctx.model.dims;
  LayerShape x;
  x.seq = ctx.seq;
  x.microBatch = ctx.plan.microBatch;
  x.hidden = static_cast<double>(d.hidden);
  x.heads = static_cast<double>(d.heads);
  x.kvHeads = static_cast<double>(d.kvHeads);
  x.headDim = static_cast<double>(d.headDim);
  x.ffn = static_cast<double>(d.ffnHidden);
  x.gatedMlp = ctx.model.arch == Arch::Llama || (ctx.model.arch == Arch::T5 && d.gatedMlp);
  x.dropout = ctx.model.arch != Arch::Llama && d.dropout;
  x.expertsPerToken = d.numExperts > 1 ? static_cast<double>(d.expertsPerToken) : 1.0;
  x.activationBytes = ctx.actBytes;
  x.tp = ctx.plan.tp;
  x.sequenceParallel = ctx.plan.sequenceParallel;
  x.recompute = ctx.plan.recompute;
  x.flashAttention = ctx.plan.flashAttention;
  return x;
}

double activations(const Context& ctx) {
  const auto& d = ctx.model.dims;
  const Plan& p = ctx.plan;
  LayerShape x = layerShape(ctx);
  const double perLayer = activationBytesPerLayer(x);
  double perDecoder = 0;
  if (d.decoderLayers > 0) {
    LayerShape dec = x;
    dec.crossAttention = true;
    perDecoder = activationBytesPerLayer(dec);
  }
  // 1F1B: the first stage holds min(p, m) micro-batches of L/p layers (Korthikanti §4.2.3, Megatron's factor).
  const double inflight = p.pp > 1 ? std::min<double>(p.pp, ctx.microSteps) : 1.0;
  const double layers = d.decoderLayers > 0 ? static_cast<double>(d.layers) : ctx.layersPerStage;
  double total = (layers * perLayer + static_cast<double>(d.decoderLayers) * perDecoder) * inflight;
  ctx.explain("memory.activations.per_layer", perLayer,
              "no recompute: sbh(10 + 24/t + 5as/(ht)); SP: sbh(34/t + 5as/(ht)); selective drops 5as/(ht); full 2sbh "
              "(generalised: GQA widths, ffn width, gated MLP, dropout, MoE top-k, activation bytes)",
              "korthikanti-t2", "s=", x.seq, ", b=", x.microBatch, ", h=", x.hidden, ", a=", x.heads, ", t=", x.tp,
              ", sp=", x.sequenceParallel, ", recompute=", toString(x.recompute), ", flash=", x.flashAttention,
              ", ffn=", x.ffn, ", gated=", x.gatedMlp, ", dropout=", x.dropout);
  double workingSet = 0;
  if (p.recompute == Recompute::Full) {
    // Recomputing one layer in backward materialises that layer's full activations once.
    LayerShape full = x;
    full.recompute = Recompute::None;
    workingSet = activationBytesPerLayer(full);
    total += workingSet;
  }
  double extras = 0;
  if (ctx.opt.activationExtras) {
    const double s = ctx.seq;
    const double b = p.microBatch;
    const double h = static_cast<double>(d.hidden);
    const double t = p.tp;
    const double tsp = p.sequenceParallel ? t : 1.0;
    const double dropout = ctx.model.arch == Arch::Llama || !d.dropout ? 0.0 : 1.0;
    extras += dropout * s * b * h * p.pp / tsp;  // embedding dropout masks, p micro-batches in flight
    if (p.pp == 1) {
      // final layer norm input, output-layer input, and the cross entropy's logits: fp32 in Megatron's fused
      // kernel (4sbv/t); unfused, the logits the loop holds (e·sbv/t) plus log_softmax's fp32 output (4sbv/t).
      const double logitBytes = ctx.opt.fusedCrossEntropy ? 4.0 : ctx.actBytes + 4.0;
      extras += 2 * ctx.actBytes * s * b * h / tsp + logitBytes * s * b * static_cast<double>(d.vocab) / t;
    }
    total += extras;
  }
  ctx.explain("memory.activations", total,
              "layers_per_stage · per_layer · min(pp, micro_steps) + recompute working set + extras(sbhp/t + "
              "[p=1] (2·e·sbh/t + logit_bytes·sbv/t)); logit_bytes = 4 fused cross entropy, e + 4 unfused",
              "korthikanti-4.2", "layers=", layers, ", decoder_layers=", d.decoderLayers, ", per_layer=", perLayer,
              ", per_decoder_layer=", perDecoder, ", in_flight=", inflight, ", recompute_working_set=", workingSet,
              ", extras=", extras);
  return total;
}

/// Model states from the exact layout (ctx.layout.known): flat buffers with their padding, as the engines
/// allocate them. FSDP / ZeRO-3: every unit's shard of parameters, gradients and optimizer states (NO_SHARD: the
/// unpadded units, replicated). ZeRO-1/2: replicated padded bucket buffers for parameters (and ZeRO-1's
/// gradients), shards of the buckets for ZeRO-2's gradients and the optimizer states.
void exactModelStates(const Context& ctx, MemoryBreakdown& m) {
  const Plan& p = ctx.plan;
  const StateBytes& sb = ctx.bytes;
  const ExactLayout& l = ctx.layout;
  if (p.strategy == Strategy::Zero1 || p.strategy == Strategy::Zero2) {
    const auto padded = static_cast<double>(paddedSum(l.buckets, ctx.dp));
    const auto shard = static_cast<double>(shardSum(l.buckets, ctx.dp));
    m.parameters = padded * sb.param;
    m.gradients = (p.strategy == Strategy::Zero1 ? padded : shard) * sb.gradLow;
    m.optimizerStates = shard * sb.optim;
    m.masterWeights = shard * sb.master;
    ctx.explain("memory.exact_layout", shard,
                "ZeRO-1/2 buckets: parameters Σ padded(bucket) · param_bytes, gradients Σ padded (zero1) or Σ "
                "shard(bucket) (zero2) · grad_bytes, optimizer Σ shard(bucket) · optimizer_bytes",
                "derived", "buckets=", l.buckets.size(), ", Σ padded=", padded, ", Σ shard=", shard,
                ", bucket_size=", p.zeroBucketElements);
    return;
  }
  const int group = ctx.isFsdp(FsdpSharding::NoShard) ? 1 : ctx.shardGroup;
  const auto shard = static_cast<double>(shardSum(l.units, group));
  m.parameters = shard * sb.param;
  m.gradients = shard * sb.gradLow;
  m.optimizerStates = shard * sb.optim;
  m.masterWeights = shard * sb.master;
  ctx.explain("memory.exact_layout", shard,
              "units (root first, then wrapped blocks): Σ shard(unit) · bytes per element for parameters, gradients "
              "and optimizer states",
              "derived", "units=", l.units.size(), ", root=", l.hasRoot ? l.units.front() : 0, ", group=", group,
              ", Σ shard=", shard, ", wrap=", toString(p.fsdpWrap));
}

/// ZeRO offload with the exact layout (DeepSpeed's ZeRO-Offload, as core/parallel runs it): with
/// offload_optimizer the reduced gradient partition, an fp32 master partition and the optimizer states live on the
/// host, where the optimizer steps; the device keeps the parameters (and ZeRO-1 its whole flat gradient buffer).
/// ZeRO-3 with offload_param keeps the parameter shards, their gradients and the optimizer states on the host, the
/// shard being the master. Returns the bytes moved to the host per rank.
double exactZeroOffload(const Context& ctx, MemoryBreakdown& m, Prediction::Offloaded& moved) {
  const Plan& p = ctx.plan;
  const ExactLayout& l = ctx.layout;
  const auto shard = static_cast<double>(p.strategy == Strategy::Zero3 ? shardSum(l.units, ctx.shardGroup)
                                                                       : shardSum(l.buckets, ctx.dp));
  double host = 0;
  if (p.strategy == Strategy::Zero3 && p.offloadParams) {
    moved = {m.parameters, m.gradients, m.optimizerStates, m.masterWeights};
    host = moved.total();
    m.parameters = m.gradients = m.optimizerStates = m.masterWeights = 0;
  } else if (p.offloadOptimizer) {
    moved = {0.0, shard * ctx.bytes.gradLow, m.optimizerStates, shard * 4.0};
    host = moved.total();
    m.optimizerStates = 0;
    m.masterWeights = 0;
    if (p.strategy != Strategy::Zero1) {
      m.gradients = 0;
    }
  }
  ctx.explain("memory.offloaded_per_rank", host,
              "offload_optimizer: shard · (grad_bytes + 4 fp32 master) + optimizer states; zero3 offload_param: "
              "parameter, gradient and optimizer shards",
              "deepspeed-est", "Σ shard=", shard, ", offload_optimizer=", p.offloadOptimizer,
              ", offload_params=", p.offloadParams);
  return host;
}

}  // namespace

void predictMemory(const Context& ctx, Prediction& out) {
  const Plan& p = ctx.plan;
  const StateBytes& sb = ctx.bytes;
  const double psi = ctx.stageParams;
  const double w = ctx.shardGroup;
  const double wo = ctx.shardsOptimizer() ? w : 1.0;
  const double wg = ctx.shardsGradients() ? w : 1.0;
  const double wp = ctx.shardsParams() ? w : 1.0;
  const bool deepspeed = p.bytes == BytesConvention::DeepSpeed && p.strategy != Strategy::Fsdp;
  MemoryBreakdown& m = out.memory;

  m.parameters = psi * sb.param / wp;
  m.gradients = psi * sb.gradLow / wg + psi * sb.gradCopy / wo;
  m.optimizerStates = psi * sb.optim / wo;
  m.masterWeights = psi * sb.master / wo;
  const char* stateSource = p.strategy == Strategy::Fsdp           ? "fsdp-3.2"
                            : p.bytes == BytesConvention::Zero     ? "zero-3.1"
                            : p.bytes == BytesConvention::Megatron ? "megatron-dist-opt"
                                                                   : "deepspeed-est";
  ctx.explain("memory.parameters", m.parameters, "Ψ_stage · param_bytes / shard", stateSource, "Ψ_stage=", psi,
              ", param_bytes=", sb.param, ", shard=", wp);
  ctx.explain("memory.gradients", m.gradients, "Ψ_stage · (grad_bytes / grad_shard + fp32_grad_copy / opt_shard)",
              stateSource, "Ψ_stage=", psi, ", grad_bytes=", sb.gradLow, ", grad_shard=", wg,
              ", fp32_grad_copy=", sb.gradCopy, ", opt_shard=", wo);
  ctx.explain("memory.optimizer_states", m.optimizerStates, "Ψ_stage · optimizer_bytes / opt_shard", stateSource,
              "Ψ_stage=", psi, ", optimizer_bytes=", sb.optim, " (", toString(p.optimizer), "), opt_shard=", wo);
  ctx.explain("memory.master_weights", m.masterWeights, "Ψ_stage · master_bytes / opt_shard", stateSource,
              "Ψ_stage=", psi, ", master_bytes=", sb.master, ", opt_shard=", wo);
  // The gradient bytes offloading moves to the host (all but the no_sync accumulation buffers below).
  double gradStates = m.gradients;
  if (ctx.layout.known) {
    exactModelStates(ctx, m);
    gradStates = m.gradients;
  }

  // Gradient accumulation with no_sync keeps unsharded gradients for sharded strategies (FSDP paper §3.3.4).
  if (ctx.shardsGradients() && !ctx.gradsReducedEachMicroStep && ctx.microSteps > 1) {
    const double extra = psi * ctx.gatherBytes;
    m.gradients += extra;
    ctx.explain("memory.gradients.no_sync", extra, "Ψ_stage · compute_bytes (unsharded grads kept under no_sync)",
                "fsdp-3.3.4", "Ψ_stage=", psi, ", compute_bytes=", ctx.gatherBytes);
  }

  const double u = ctx.unitParams;
  const double g = ctx.gatherBytes;
  if (p.strategy == Strategy::Zero3 && deepspeed) {
    m.gatheredParameters = 4.0 * static_cast<double>(ctx.model.largestModuleParams) / p.tp;
    ctx.explain("memory.gathered_parameters", m.gatheredParameters,
                "4 · largest_layer (2 B gathered fp16 params + 2 B fp16 grads)", "deepspeed-est",
                "largest_layer=", static_cast<double>(ctx.model.largestModuleParams) / p.tp);
  } else if (p.strategy == Strategy::Zero3 || ctx.isFsdp(FsdpSharding::FullShard) ||
             ctx.isFsdp(FsdpSharding::HybridShard)) {  // units freed after forward and after backward
    m.gatheredParameters = (ctx.opt.prefetchUnits * g + g) * u;
    ctx.explain("memory.gathered_parameters", m.gatheredParameters,
                "(units_in_flight · compute_bytes + compute_bytes) · largest_unit (gathered units + unit gradient)",
                "fsdp-3.2", "units_in_flight=", ctx.opt.prefetchUnits, ", compute_bytes=", g, ", largest_unit=", u);
  } else if (ctx.keepsUnitsGathered()) {  // SHARD_GRAD_OP, HYBRID_SHARD_ZERO2
    const double gathered = ctx.layout.known ? static_cast<double>(paddedSum(ctx.layout.units, ctx.shardGroup)) : psi;
    m.gatheredParameters = g * gathered + g * u;
    ctx.explain("memory.gathered_parameters", m.gatheredParameters,
                "compute_bytes · Ψ_stage (unsharded from forward to end of backward) + compute_bytes · largest_unit",
                "fsdp-api", "compute_bytes=", g, ", Ψ_stage=", psi, ", largest_unit=", u);
  } else if (ctx.isFsdp(FsdpSharding::NoShard) && g < sb.param) {
    m.gatheredParameters = ctx.opt.prefetchUnits * g * u;
    ctx.explain("memory.gathered_parameters", m.gatheredParameters,
                "units_in_flight · compute_bytes · largest_unit (low-precision copies)", "fsdp-4.4",
                "units_in_flight=", ctx.opt.prefetchUnits, ", compute_bytes=", g, ", largest_unit=", u);
  }

  if (ctx.model.hasDims()) {
    m.activations = activations(ctx);
  } else {
    out.notes.push_back("activations unknown: the model is a parameter count; pass transformer dimensions or a "
                        "config.json");
    ctx.explain("memory.activations", 0.0, "unknown without transformer dimensions (counted as 0)", "derived",
                "params=", ctx.model.totalParams);
  }

  if (ctx.pytorchDdp && !ctx.opt.ddpGradientAsBucketView) {
    m.commBuffers = psi * sb.gradLow;
    ctx.explain("memory.comm_buffers", m.commBuffers,
                "Ψ_stage · grad_bytes (DDP buckets copy every gradient unless gradient_as_bucket_view)", "torch-ddp",
                "Ψ_stage=", psi, ", grad_bytes=", sb.gradLow);
  } else if (p.strategy == Strategy::Zero1 || p.strategy == Strategy::Zero2 || p.strategy == Strategy::Zero3) {
    const double cap = static_cast<double>(p.zeroBucketElements);
    const double bucket = ctx.layout.known && !ctx.layout.buckets.empty()
                              ? static_cast<double>(largestPadded(ctx.layout.buckets, ctx.dp))
                              : std::min(cap, psi);
    m.commBuffers = bucket * ctx.reduceBytes + (p.strategy == Strategy::Zero3 ? 0.0 : bucket * g);
    ctx.explain(
        "memory.comm_buffers", m.commBuffers,
        "min(bucket, Ψ_stage) · reduce_bytes (+ min(bucket, Ψ_stage) · param_bytes all-gather bucket, stages 1-2)",
        "deepspeed-config", "bucket=", cap, ", largest bucket=", bucket, ", Ψ_stage=", psi,
        ", reduce_bytes=", ctx.reduceBytes);
  }
  m.frameworkOverhead = static_cast<double>(ctx.hw.frameworkOverheadBytes);
  ctx.explain("memory.framework_overhead", m.frameworkOverhead,
              "framework_overhead_bytes of the hardware file (CUDA context, cuBLAS/NCCL workspaces)", "preset",
              "hardware=", ctx.hw.name);

  // Offload: move categories to the host.
  Prediction::Offloaded& moved = out.offloaded;
  const bool zero = p.strategy == Strategy::Zero1 || p.strategy == Strategy::Zero2 || p.strategy == Strategy::Zero3;
  if (ctx.layout.known && zero) {
    exactZeroOffload(ctx, m, moved);
  } else if (p.offloadOptimizer) {
    moved.optimizerStates += m.optimizerStates;
    moved.masterWeights += m.masterWeights;
    moved.gradients += gradStates;
    m.optimizerStates = 0;
    m.masterWeights = 0;
    m.gradients -= gradStates;
  }
  if (p.offloadParams && !(ctx.layout.known && zero)) {
    moved.parameters += m.parameters;
    m.parameters = 0;
    if (p.strategy == Strategy::Fsdp) {  // FSDP's CPUOffload moves gradients and the optimizer step too
      moved.optimizerStates += m.optimizerStates;
      moved.masterWeights += m.masterWeights;
      moved.gradients += m.gradients;
      m.optimizerStates = m.masterWeights = m.gradients = 0;
    }
  }
  const double offloadedPerRank = moved.total();
  m.total = m.parameters + m.gradients + m.optimizerStates + m.masterWeights + m.activations + m.gatheredParameters +
            m.commBuffers + m.frameworkOverhead;

  const int ranksPerNode = std::min(ctx.gpusPerNode, p.numGpus);
  if (p.offloadOptimizer || p.offloadParams) {
    const double f = 1.5;  // DeepSpeed's additional_buffer_factor
    const double total = static_cast<double>(p.numGpus);
    if (deepspeed && p.strategy != Strategy::Zero3) {
      out.cpuBytesPerNode = psi * std::max(4.0 * total, 16.0) * f;
      ctx.explain("memory.cpu_bytes_per_node", out.cpuBytesPerNode, "P · max(4 · total_gpus, 16) · 1.5",
                  "deepspeed-est", "P=", psi, ", total_gpus=", total);
    } else if (deepspeed && p.offloadOptimizer) {
      const double perParam = p.offloadParams ? 18.0 : 16.0;
      out.cpuBytesPerNode = psi * perParam / ctx.nodes * f;
      ctx.explain("memory.cpu_bytes_per_node", out.cpuBytesPerNode,
                  "P · (18 with params offloaded, else 16) / nodes · 1.5", "deepspeed-est", "P=", psi,
                  ", nodes=", ctx.nodes);
    } else {
      out.cpuBytesPerNode = offloadedPerRank * ranksPerNode;
      ctx.explain("memory.cpu_bytes_per_node", out.cpuBytesPerNode, "offloaded bytes per rank · ranks per node",
                  "derived", "offloaded_per_rank=", offloadedPerRank, ", ranks_per_node=", ranksPerNode);
    }
  }
  out.deviceMemoryBytes = static_cast<double>(ctx.hw.memoryBytes);
  out.headroomBytes = out.deviceMemoryBytes - m.total;
  const bool hostOk = out.cpuBytesPerNode <= 0 || ctx.hw.hostMemoryBytes <= 0 ||
                      out.cpuBytesPerNode <= static_cast<double>(ctx.hw.hostMemoryBytes);
  out.fits = out.headroomBytes >= 0 && hostOk;
  if (!hostOk) {
    out.notes.push_back("offloaded states exceed the host memory per node");
  }
  ctx.explain("memory.total", m.total, "Σ categories", "derived", "device_memory=", out.deviceMemoryBytes,
              ", headroom=", out.headroomBytes);
}

}  // namespace detail
}  // namespace fathom::plan
