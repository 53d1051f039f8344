// SPDX-License-Identifier: Apache-2.0
// Front door of the planner: validation, the shared context, and the three parts of a prediction.
#include <fathom/plan/predict.h>

#include "context.h"

#include <algorithm>
#include <cmath>

namespace fathom::plan {

std::int64_t sequenceLength(const ModelSpec& model, const Plan& plan) {
  if (plan.seqLen > 0) {
    return plan.seqLen;
  }
  const bool learned = model.arch == Arch::Gpt || model.arch == Arch::Bert;
  return learned ? std::min<std::int64_t>(2048, model.dims.maxPositions) : 2048;
}

void validatePlan(const ModelSpec& model, const HardwareSpec& hw, const Plan& p) {
  FATHOM_CHECK(model.totalParams > 0, ConfigError, "the model has no parameters");
  FATHOM_CHECK(p.numGpus >= 1, ConfigError, "num_gpus must be >= 1, got ", p.numGpus);
  FATHOM_CHECK(p.gpusPerNode >= 0, ConfigError, "gpus_per_node must be >= 1 (0: the hardware's), got ", p.gpusPerNode);
  FATHOM_CHECK(p.tp >= 1, ConfigError, "tp must be >= 1, got ", p.tp);
  FATHOM_CHECK(p.pp >= 1, ConfigError, "pp must be >= 1, got ", p.pp);
  FATHOM_CHECK(p.numGpus % (p.tp * p.pp) == 0, ConfigError, "num_gpus (", p.numGpus, ") must be a multiple of tp·pp (",
               p.tp, "·", p.pp, ")");
  FATHOM_CHECK(p.microBatch >= 1, ConfigError, "micro_batch must be >= 1, got ", p.microBatch);
  FATHOM_CHECK(p.gradAccum >= 1, ConfigError, "gradient_accumulation_steps must be >= 1, got ", p.gradAccum);
  FATHOM_CHECK(p.fsdpMinNumParams >= 0, ConfigError, "fsdp_min_num_params must be >= 0, got ", p.fsdpMinNumParams);
  FATHOM_CHECK(p.zeroBucketElements >= 1, ConfigError, "zero_bucket_size must be >= 1 element, got ",
               p.zeroBucketElements);
  FATHOM_CHECK(p.cpuThreadsPerProcess >= 0, ConfigError,
               "num_cpu_threads_per_process must be >= 1 (0: the launcher's rule), got ", p.cpuThreadsPerProcess);
  FATHOM_CHECK(p.seqLen >= 0, ConfigError, "seq must be >= 1 (0: the default), got ", p.seqLen);
  const bool zero = p.strategy == Strategy::Zero1 || p.strategy == Strategy::Zero2 || p.strategy == Strategy::Zero3;
  FATHOM_CHECK(!p.offloadOptimizer || zero || p.strategy == Strategy::Fsdp, ConfigError,
               "offload_optimizer needs zero1, zero2, zero3 or fsdp, not ", strategyLabel(p));
  FATHOM_CHECK(!p.offloadOptimizer || p.strategy != Strategy::Fsdp || p.offloadParams, ConfigError,
               "FSDP offloads parameters, gradients and the optimizer together: use offload_params");
  FATHOM_CHECK(!p.offloadParams || p.strategy == Strategy::Zero3 ||
                   (p.strategy == Strategy::Fsdp && p.fsdpSharding != FsdpSharding::NoShard),
               ConfigError, "offload_params needs zero3 or a sharded fsdp strategy, not ", strategyLabel(p));
  FATHOM_CHECK(p.pp == 1 || (p.strategy != Strategy::Zero2 && p.strategy != Strategy::Zero3), ConfigError,
               "DeepSpeed does not combine pipeline parallelism with ", strategyLabel(p), " (use zero1 or ddp)");
  FATHOM_CHECK(p.gradSync != GradSync::OncePerStep || (p.strategy != Strategy::Zero2 && p.strategy != Strategy::Zero3),
               ConfigError, "DeepSpeed ", strategyLabel(p), " reduces gradients every micro-step (no no_sync)");
  FATHOM_CHECK(p.optimizer != Optimizer::Adafactor || model.hasDims(), ConfigError,
               "adafactor's factored state depends on matrix shapes: give transformer dimensions or a config.json");
  FATHOM_CHECK(p.precision != Precision::Fp8 || hw.peak.fp8 > 0, ConfigError, "hardware '", hw.name,
               "' has no fp8 tensor-core peak; choose bf16 or fp16");
  FATHOM_CHECK(p.precision != Precision::Fp16 || hw.peak.fp16 > 0, ConfigError, "hardware '", hw.name,
               "' has no fp16 peak");
  FATHOM_CHECK(p.precision != Precision::Bf16 || hw.peak.bf16 > 0, ConfigError, "hardware '", hw.name,
               "' has no bf16 peak");
  if (model.hasDims()) {
    const auto& d = model.dims;
    FATHOM_CHECK(d.heads % p.tp == 0, ConfigError, "tp (", p.tp, ") must divide the attention heads (", d.heads, ")");
    FATHOM_CHECK(d.kvHeads % p.tp == 0 || p.tp % d.kvHeads == 0, ConfigError, "tp (", p.tp, ") and kv_heads (",
                 d.kvHeads, ") must divide one another");
    FATHOM_CHECK(!(model.arch == Arch::Gpt || model.arch == Arch::Bert) || p.seqLen <= d.maxPositions, ConfigError,
                 "seq (", p.seqLen, ") exceeds the model's learned positions (", d.maxPositions, ")");
    FATHOM_CHECK(p.pp <= d.layers, ConfigError, "pp (", p.pp, ") must not exceed the layers (", d.layers, ")");
    FATHOM_CHECK(p.pp == 1 || model.arch != Arch::T5, ConfigError,
                 "pipeline parallelism is not modelled for encoder-decoder (t5) models");
  } else {
    FATHOM_CHECK(p.tp == 1 && p.pp == 1, ConfigError,
                 "tensor and pipeline parallelism need transformer dimensions (a parameter count is not enough)");
  }
}

namespace detail {

bool Context::shardsOptimizer() const {
  return plan.strategy == Strategy::Zero1 || plan.strategy == Strategy::Zero2 || plan.strategy == Strategy::Zero3 ||
         (plan.strategy == Strategy::Fsdp && plan.fsdpSharding != FsdpSharding::NoShard);
}

bool Context::shardsGradients() const {
  return plan.strategy == Strategy::Zero2 || plan.strategy == Strategy::Zero3 ||
         (plan.strategy == Strategy::Fsdp && plan.fsdpSharding != FsdpSharding::NoShard);
}

bool Context::shardsParams() const {
  return plan.strategy == Strategy::Zero3 ||
         (plan.strategy == Strategy::Fsdp && plan.fsdpSharding != FsdpSharding::NoShard);
}

Context makeContext(const ModelSpec& model, const HardwareSpec& hw, const Plan& plan, const PredictOptions& opt,
                    std::vector<Explanation>* ex) {
  Context c{model, hw, plan, opt, ex};
  c.dp = dataParallel(plan);
  c.gpusPerNode = plan.gpusPerNode > 0 ? plan.gpusPerNode : hw.gpusPerNode;
  c.nodes = (plan.numGpus + c.gpusPerNode - 1) / c.gpusPerNode;
  c.microSteps = plan.gradAccum;
  c.seq = static_cast<double>(sequenceLength(model, plan));
  c.shardGroup = c.dp;
  if (c.isHybridFsdp()) {
    const int perNode = std::max(1, std::min(c.gpusPerNode, plan.numGpus) / (plan.tp * plan.pp));
    c.shardGroup = std::min(c.dp, perNode);
    FATHOM_CHECK(c.dp % c.shardGroup == 0, ConfigError, toString(plan.fsdpSharding),
                 " needs the data-parallel degree (", c.dp, ") to be a multiple of the ranks per node (", c.shardGroup,
                 ")");
  }
  c.replicas = c.dp / c.shardGroup;

  const double tp = plan.tp;
  if (model.hasDims()) {
    const auto& d = model.dims;
    const double block = static_cast<double>(model.blockParams);
    if (d.decoderLayers > 0 || plan.pp == 1) {
      c.layersPerStage = static_cast<double>(model.totalLayers());
      c.stageParams = static_cast<double>(model.totalParams) / tp;
      c.rootParams = static_cast<double>(model.embeddingParams + model.headParams + model.otherParams) / tp;
    } else {
      c.layersPerStage = std::ceil(static_cast<double>(d.layers) / plan.pp);
      const double word = static_cast<double>(d.vocab * d.hidden);
      const double first = block * c.layersPerStage + static_cast<double>(model.embeddingParams);
      // Megatron keeps a copy of a tied word embedding on the last stage for the output layer.
      const double last = block * c.layersPerStage + static_cast<double>(model.otherParams) +
                          (d.tiedEmbeddings ? word : static_cast<double>(model.headParams));
      c.stageParams = std::max(first, last) / tp;
      c.rootParams =
          (first >= last ? static_cast<double>(model.embeddingParams) : last - block * c.layersPerStage) / tp;
    }
    c.units = c.layersPerStage + 1.0;
    c.unitParams = static_cast<double>(model.largestUnitParams) / tp;
  } else {
    c.stageParams = static_cast<double>(model.totalParams);
    c.units = 1.0;
    c.unitParams = 0.0;
  }

  const double adafactor = model.hasDims() ? 8.0 / static_cast<double>(model.dims.hidden) : 0.0;
  c.bytes = stateBytesPerParam(plan, adafactor);
  const bool lowCompute = plan.precision != Precision::Fp32 && plan.masterWeights != MasterWeights::Autocast;
  c.gatherBytes = lowCompute ? 2.0 : 4.0;
  c.reduceBytes = plan.strategy == Strategy::Fsdp ? c.gatherBytes : (c.bytes.gradLow > 0 ? c.bytes.gradLow : 2.0);
  c.actBytes = plan.precision == Precision::Fp32 ? 4.0 : 2.0;
  switch (plan.gradSync) {
  case GradSync::Auto:
    c.gradsReducedEachMicroStep = plan.strategy == Strategy::Zero2 || plan.strategy == Strategy::Zero3;
    break;
  case GradSync::EveryMicroStep: c.gradsReducedEachMicroStep = true; break;
  case GradSync::OncePerStep: c.gradsReducedEachMicroStep = false; break;
  }
  c.layout = exactLayout(model, plan);
  if (c.layout.known && !c.layout.units.empty()) {
    // Exact units: the gathered working set is the largest padded unit.
    const int group = plan.strategy == Strategy::Fsdp && plan.fsdpSharding == FsdpSharding::NoShard ? 1 : c.shardGroup;
    c.units = static_cast<double>(c.layout.units.size());
    c.unitParams = static_cast<double>(largestPadded(c.layout.units, group));
  }
  c.pytorchDdp = plan.strategy == Strategy::Ddp &&
                 (plan.precision == Precision::Fp32 || plan.masterWeights != MasterWeights::Fp32Copy);
  return c;
}

}  // namespace detail

Prediction predict(const ModelSpec& model, const HardwareSpec& hw, const Plan& plan, const PredictOptions& options) {
  validatePlan(model, hw, plan);
  Prediction out;
  const detail::Context ctx =
      detail::makeContext(model, hw, plan, options, options.explain ? &out.explanations : nullptr);
  out.totalParams = model.totalParams;
  out.largestUnitParams = model.largestUnitParams;
  out.dataParallel = ctx.dp;
  out.nodes = ctx.nodes;
  out.seqLen = sequenceLength(model, plan);
  ctx.explain("model.stage_params", ctx.stageParams,
              "pp = 1: P / t; else max(first stage, last stage) / t (Megatron's most-loaded shard)", "megatron-theory",
              "P=", model.totalParams, ", tp=", plan.tp, ", pp=", plan.pp, ", dp=", ctx.dp,
              ", shard_group=", ctx.shardGroup);
  detail::predictMemory(ctx, out);
  detail::predictCommunication(ctx, out);
  detail::predictTime(ctx, out);
  if (model.hasDims() && model.largestUnitParams == 0) {
    out.notes.push_back("largest unit unknown");
  }
  if (!model.hasDims() && (plan.strategy == Strategy::Zero3 || plan.strategy == Strategy::Fsdp)) {
    out.notes.push_back("sharded working set unknown: the largest unit needs transformer dimensions");
  }
  return out;
}

}  // namespace fathom::plan
