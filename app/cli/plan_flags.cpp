// SPDX-License-Identifier: Apache-2.0
#include "plan_flags.h"

#include <fathom/common/error.h>
#include <fathom/models/model_introspection.h>
#include <fathom/plan/hf_config.h>
#include <fathom/plan/plan_file.h>

#include <cmath>
#include <filesystem>

namespace fathom::cli {
namespace {

// "--num_gpus,--num-gpus": Accelerate's underscore spelling and the dashed form.
std::string names(const std::string& flag) {
  std::string dashed = flag;
  for (char& c : dashed) {
    c = c == '_' ? '-' : c;
  }
  return dashed == flag ? "--" + flag : "--" + flag + ",--" + dashed;
}

}  // namespace

void PlanFlags::add(CLI::App* cmd) {
  app = cmd;
  cmd->add_option("--plan,--config_file,--config-file", planFile,
                  "Plan file (YAML: flag names as keys) or an Accelerate config file");
  // Model
  cmd->add_option(names("params"), params, "Model size as a bare parameter count (7500000000 or 7.5e9)");
  cmd->add_option(names("arch"), arch, "Transformer family for dimensions: gpt, llama, bert, t5");
  cmd->add_option(names("layers"), layers, "Transformer blocks (t5: encoder blocks)");
  cmd->add_option(names("decoder_layers"), decoderLayers, "t5: decoder blocks (default: layers)");
  cmd->add_option(names("hidden"), hidden, "Hidden size h");
  cmd->add_option(names("heads"), heads, "Attention heads a");
  cmd->add_option(names("kv_heads"), kvHeads, "Key/value heads (GQA; default: heads)");
  cmd->add_option(names("head_dim"), headDim, "Per-head width (default: hidden / heads)");
  cmd->add_option(names("ffn_hidden"), ffnHidden, "MLP inner width (default: 4h; llama: 8h/3 rounded to 256)");
  cmd->add_option(names("vocab"), vocab, "Vocabulary size");
  cmd->add_option(names("max_positions"), maxPositions, "Learned position rows (gpt/bert)");
  cmd->add_option(names("tied_embeddings"), tiedEmbeddings, "Output layer shares the input embedding (true/false)");
  cmd->add_option(names("num_experts"), numExperts, "MoE experts per layer (llama family)");
  cmd->add_option(names("experts_per_token"), expertsPerToken, "MoE top-k");
  cmd->add_option(names("hf_config"), hfConfig, "Hugging Face config.json (file or folder holding one)");
  cmd->add_option(names("model"), model,
                  "Built-in model, introspected from its LibTorch module: " + builtinModelChoices(", ") +
                      " (with its dimension flags; --hidden and --layers size the mlp)");
  modelFlags.add(cmd, /*withMlp=*/false);
  cmd->add_option(names("hardware"), hardware, "Hardware preset name or YAML/JSON file (default h100-sxm-80gb)");
  // Plan
  cmd->add_option("--num_gpus,--num-gpus,--num_processes,--num-processes", numGpus, "World size (GPUs)");
  cmd->add_option(names("gpus_per_node"), gpusPerNode, "GPUs per node (default: the preset's)");
  cmd->add_option(names("strategy"), strategy, "ddp, fsdp, zero1, zero2, zero3");
  cmd->add_option(names("fsdp_sharding_strategy"), fsdpSharding,
                  "full_shard, shard_grad_op, hybrid_shard, hybrid_shard_zero2, no_shard (or torch's 1-5); the hybrid "
                  "strategies shard within --gpus_per_node ranks");
  cmd->add_option(names("fsdp_auto_wrap_policy"), fsdpWrap,
                  "FSDP / ZeRO-3 units: transformer_based_wrap (every block), size_based_wrap, no_wrap");
  cmd->add_option(names("fsdp_min_num_params"), fsdpMinNumParams,
                  "size_based_wrap: blocks with at least this many parameters become units (default 1e8)");
  cmd->add_option(names("zero_bucket_size"), zeroBucketSize,
                  "ZeRO-1/2 reduce_bucket_size in elements (default 5e8, DeepSpeed's)");
  cmd->add_flag(names("offload_optimizer"), offloadOptimizer, "Optimizer states on the CPU (ZeRO-Offload)");
  cmd->add_flag(names("offload_params"), offloadParams, "Parameters on the CPU (ZeRO-3 / FSDP CPUOffload)");
  cmd->add_option(names("tp"), tp, "Tensor-parallel degree");
  cmd->add_option(names("pp"), pp, "Pipeline-parallel degree");
  cmd->add_flag(names("sequence_parallel"), sequenceParallel, "Megatron sequence parallelism (with tp > 1)");
  cmd->add_option(names("micro_batch"), microBatch, "Sequences per micro-batch per data-parallel rank");
  cmd->add_option(names("gradient_accumulation_steps"), gradAccum, "Micro-batches per optimizer step");
  cmd->add_option(names("seq"), seq, "Sequence length (default 2048)");
  cmd->add_option("--precision,--mixed_precision,--mixed-precision", precision, "fp32 (no), fp16, bf16, fp8");
  cmd->add_option(names("master_weights"), masterWeights, "fp32 (a master copy), none, autocast (fp32 params)");
  cmd->add_option(names("optimizer"), optimizer, "adam, adamw, sgd, sgd-momentum, adafactor");
  cmd->add_option(names("recompute"), recompute, "Activation recomputation: none, selective, full");
  cmd->add_flag(names("flash_attention"), flashAttention, "Fused attention (no s² activations stored)");
  cmd->add_option(names("bytes_convention"), bytesConvention, "zero (16 B/param), megatron (18, default), deepspeed");
  cmd->add_option(names("grad_sync"), gradSync, "auto, every_micro_step, once_per_step");
  cmd->add_option(names("efficiency"), efficiency, "Achieved fraction of peak FLOP/s (default 0.5)")
      ->check(CLI::Range(0.01, 1.0));
  cmd->add_flag("--json", json, "Print one JSON object");
  cmd->add_flag("--explain", explain, "Print the formula, inputs and source behind every number");
}

bool PlanFlags::given(const char* name) const {
  return app->get_option(std::string("--") + name)->count() > 0;
}

PlanFlags::Inputs PlanFlags::resolve() const {
  plan::PlanInputs in;
  if (!planFile.empty()) {
    in = plan::loadPlanFile(planFile);
  }
  plan::Plan& p = in.plan;
  if (given("num_gpus"))
    p.numGpus = numGpus;
  if (given("gpus_per_node"))
    p.gpusPerNode = gpusPerNode;
  if (given("strategy"))
    p.strategy = plan::parseStrategy(strategy);
  if (given("fsdp_sharding_strategy")) {
    p.fsdpSharding = plan::parseFsdpSharding(fsdpSharding);
    if (!given("strategy") && planFile.empty()) {
      p.strategy = plan::Strategy::Fsdp;
    }
  }
  if (given("fsdp_auto_wrap_policy"))
    p.fsdpWrap = plan::parseFsdpWrap(fsdpWrap);
  if (given("fsdp_min_num_params"))
    p.fsdpMinNumParams = fsdpMinNumParams;
  if (given("zero_bucket_size"))
    p.zeroBucketElements = zeroBucketSize;
  if (given("offload_optimizer"))
    p.offloadOptimizer = offloadOptimizer;
  if (given("offload_params"))
    p.offloadParams = offloadParams;
  if (given("tp"))
    p.tp = tp;
  if (given("pp"))
    p.pp = pp;
  if (given("sequence_parallel"))
    p.sequenceParallel = sequenceParallel;
  if (given("micro_batch"))
    p.microBatch = microBatch;
  if (given("gradient_accumulation_steps"))
    p.gradAccum = gradAccum;
  if (given("seq"))
    p.seqLen = seq;
  if (given("precision"))
    p.precision = plan::parsePrecision(precision);
  if (given("master_weights"))
    p.masterWeights = plan::parseMasterWeights(masterWeights);
  if (given("optimizer"))
    p.optimizer = plan::parseOptimizer(optimizer);
  if (given("recompute"))
    p.recompute = plan::parseRecompute(recompute);
  if (given("flash_attention"))
    p.flashAttention = flashAttention;
  if (given("bytes_convention"))
    p.bytes = plan::parseBytesConvention(bytesConvention);
  if (given("grad_sync"))
    p.gradSync = plan::parseGradSync(gradSync);

  // Model: flags first, then the file.
  const bool flagDims = given("arch");
  const int sources =
      (given("params") ? 1 : 0) + (flagDims ? 1 : 0) + (given("hf_config") ? 1 : 0) + (given("model") ? 1 : 0);
  FATHOM_CHECK(sources <= 1, ConfigError,
               "give one model source: --params, --arch with dimensions, --hf_config or --model");
  Inputs out;
  std::string builtin = given("model") ? model : (sources == 0 ? in.model : std::string());
  if (!builtin.empty()) {
    out.model = models::introspectModel(modelFlags.request(builtin, given("hidden"), hidden, given("layers"), layers));
  } else if (given("hf_config") || (sources == 0 && !in.hfConfig.empty())) {
    std::filesystem::path path = given("hf_config") ? hfConfig : in.hfConfig;
    if (std::filesystem::is_directory(path)) {
      path /= "config.json";
    }
    out.model = plan::modelFromHfConfig(path);
  } else if (flagDims) {
    plan::TransformerDims d;
    d.arch = plan::parseArch(arch);
    d.layers = layers;
    d.decoderLayers = decoderLayers;
    d.hidden = hidden;
    d.heads = heads;
    d.kvHeads = kvHeads;
    d.headDim = headDim;
    d.ffnHidden = ffnHidden;
    d.vocab = vocab;
    d.maxPositions = maxPositions;
    d.tiedEmbeddings = given("tied_embeddings") ? tiedEmbeddings : d.arch != plan::Arch::Llama;
    d.numExperts = numExperts;
    d.expertsPerToken = expertsPerToken;
    out.model = plan::modelFromDims(d);
  } else if (given("params")) {
    FATHOM_CHECK(params >= 1 && params < 9e18, ConfigError, "params must be a positive count, got ", params);
    out.model = plan::modelFromParams(static_cast<std::int64_t>(std::llround(params)));
  } else if (in.dims) {
    out.model = plan::modelFromDims(*in.dims);
  } else if (in.params > 0) {
    out.model = plan::modelFromParams(in.params);
  } else {
    throw ConfigError(
        "no model: give --params, --arch with dimensions, --hf_config, --model, or a --plan file that names one");
  }
  const std::string hw = given("hardware") ? hardware : (in.hardware.empty() ? "h100-sxm-80gb" : in.hardware);
  out.hardware = plan::loadHardware(hw);
  out.plan = p;
  return out;
}

}  // namespace fathom::cli
