// SPDX-License-Identifier: Apache-2.0
#include "plan_flags.h"

#include "bool_flag.h"
#include "flag_choices.h"
#include "hardware_choice.h"
#include "number_flag.h"

#include <fathom/common/checked_number.h>
#include <fathom/common/error.h>
#include <fathom/config/config_resolver.h>
#include <fathom/config/input_limits.h>
#include <fathom/config/run_spec.h>
#include <fathom/models/model_introspection.h>
#include <fathom/plan/hf_config.h>
#include <fathom/plan/plan_file.h>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <limits>

namespace fathom::cli {
namespace {

// "--num_processes,--num-processes": Accelerate's underscore spelling and the dashed form.
std::string names(const std::string& flag) {
  std::string dashed = flag;
  for (char& c : dashed) {
    c = c == '_' ? '-' : c;
  }
  return dashed == flag ? "--" + flag : "--" + flag + ",--" + dashed;
}

/// A flag that is a configuration key: resolveConfig() applies it with `fathom launch`'s precedence. `deprecated` is
/// an older `fathom plan` spelling of the same setting, still read (with a note).
struct ConfigFlag {
  const char* flag;
  const char* path;
  const char* deprecated;
};

constexpr ConfigFlag kConfigFlags[] = {
    {"num_processes", "num_processes", "num_gpus"},
    {"num_machines", "num_machines", nullptr},
    {"mixed_precision", "mixed_precision", "precision"},
    {"gradient_accumulation_steps", "gradient_accumulation_steps", nullptr},
    {"gpus_per_node", "fathom.planner.gpus_per_node", nullptr},
    {"micro_batch", "fathom.planner.micro_batch", nullptr},
    {"seq", "fathom.planner.seq", nullptr},
    {"master_weights", "fathom.planner.master_weights", nullptr},
    {"optimizer", "fathom.planner.optimizer", nullptr},
    {"recompute", "fathom.planner.recompute", nullptr},
    {"flash_attention", "fathom.planner.flash_attention", nullptr},
    {"bytes_convention", "fathom.planner.bytes_convention", nullptr},
    {"grad_sync", "fathom.planner.grad_sync", nullptr},
};

/// Older spellings of `fathom plan` and what replaces them (docs/cli.md, "Deprecated spellings").
struct Deprecated {
  const char* flag;
  const char* replacement;
};

constexpr Deprecated kDeprecated[] = {
    {"num_gpus", "--num_processes (as `fathom launch` and `fathom train`)"},
    {"precision", "--mixed_precision (Accelerate's spelling; fathom plan also reads fp32 there)"},
    {"zero_bucket_size", "--zero_reduce_bucket_size (as `fathom train`)"},
    {"offload_optimizer", "--offload_optimizer_device cpu (ZeRO) or --fsdp_offload_params true (FSDP)"},
    {"offload_params", "--offload_param_device cpu (ZeRO-3) or --fsdp_offload_params true (FSDP)"},
};

/// The value of a mixed-precision flag as a configuration value: the planner's fp32 is Accelerate's `no`.
std::string precisionText(std::string text) {
  return plan::parsePrecision(text) == plan::Precision::Fp32 ? std::string("no") : text;
}

bool isZero(plan::Strategy s) {
  return s == plan::Strategy::Zero1 || s == plan::Strategy::Zero2 || s == plan::Strategy::Zero3;
}

}  // namespace

void PlanFlags::add(CLI::App* cmd) {
  app = cmd;
  cmd->add_option("--config_file,--config-file,--plan", planFile,
                  "Configuration (Accelerate's YAML with Fathom's section; default: the one `fathom launch` reads) or "
                  "a Fathom plan file (YAML: flag names as keys)");
  // Model
  cmd->add_option(names("params"), params, "Model size as a bare parameter count (7500000000 or 7.5e9)");
  cmd->add_option(names("arch"), arch, "Transformer family for dimensions: gpt, llama, bert, t5");
  cmd->add_option(names("layers"), layers, "Transformer blocks (t5: encoder blocks)")
      ->check(wholeNumberIn(1, plan::kMaxLayers));
  cmd->add_option(names("decoder_layers"), decoderLayers, "t5: decoder blocks (default: layers)")
      ->check(wholeNumberIn(0, plan::kMaxLayers));
  cmd->add_option(names("hidden"), hidden, "Hidden size h")->check(wholeNumberIn(1, plan::kMaxWidth));
  cmd->add_option(names("heads"), heads, "Attention heads a")->check(wholeNumberIn(1, plan::kMaxHeads));
  cmd->add_option(names("kv_heads"), kvHeads, "Key/value heads (GQA; default: heads)")
      ->check(wholeNumberIn(0, plan::kMaxHeads));
  cmd->add_option(names("head_dim"), headDim, "Per-head width (default: hidden / heads)")
      ->check(wholeNumberIn(0, plan::kMaxWidth));
  cmd->add_option(names("ffn_hidden"), ffnHidden, "MLP inner width (default: 4h; llama: 8h/3 rounded to 256)")
      ->check(wholeNumberIn(0, plan::kMaxWidth));
  cmd->add_option(names("vocab"), vocab, "Vocabulary size")->check(wholeNumberIn(1, plan::kMaxWidth));
  cmd->add_option(names("max_positions"), maxPositions, "Learned position rows (gpt/bert)")
      ->check(wholeNumberIn(0, plan::kMaxWidth));
  cmd->add_option(names("tied_embeddings"), tiedEmbeddings, "Output layer shares the input embedding (true/false)");
  cmd->add_option(names("num_experts"), numExperts, "MoE experts per layer (llama family)")
      ->check(wholeNumberIn(0, plan::kMaxExperts));
  cmd->add_option(names("experts_per_token"), expertsPerToken, "MoE top-k")->check(wholeNumberIn(0, plan::kMaxExperts));
  cmd->add_option(names("hf_config"), hfConfig, "Hugging Face config.json (file or folder holding one)");
  cmd->add_option(names("model"), model,
                  "Built-in model, introspected from its LibTorch module: " + builtinModelChoices(", ") +
                      " (with its dimension flags; --hidden and --layers size the mlp)");
  modelFlags.add(cmd, /*withMlp=*/false);
  cmd->add_option(names("hardware"), hardware,
                  "Hardware preset name, user profile (this-machine: what `fathom calibrate` measured, or its newest "
                  "fit to a profiled run in the workspace) or YAML/JSON file (default h100-sxm-80gb)");
  cmd->add_option("--workspace", workspace,
                  "The workspace whose hardware fits (`fathom plan --calibrate_from RUN`) refine --hardware "
                  "this-machine (default: FATHOM_WORKSPACE, else the config's fathom.workspace, else ./fathom.sqlite)");
  // Plan: the same flags as `fathom launch` / `fathom train` where the setting is the same.
  cmd->add_option(names("num_processes"), numProcesses, "World size: processes (GPUs) over all machines (default 1)")
      ->check(wholeNumberIn(1, config::kMaxProcesses));
  cmd->add_option(names("num_machines"), numMachines, "Machines; GPUs per node = num_processes / num_machines")
      ->check(wholeNumberIn(1, config::kMaxMachines));
  cmd->add_option(names("gpus_per_node"), gpusPerNode, "GPUs per node (default: the preset's)")
      ->check(wholeNumberIn(1, config::kMaxProcesses));
  cmd->add_option(names("strategy"), strategy,
                  choices(plan::kStrategies) + " (default: what the configuration's distributed_type selects)");
  cmd->add_option(names("fsdp_sharding_strategy"), fsdpSharding,
                  choices(config::kFsdpShardingStrategies) +
                      "; the hybrid strategies shard within --gpus_per_node ranks");
  cmd->add_option(names("fsdp_auto_wrap_policy"), fsdpWrap,
                  "FSDP / ZeRO-3 units: " + choices(config::kFsdpWrapPolicies) +
                      " (TRANSFORMER_BASED_WRAP: every block)");
  cmd->add_option(names("fsdp_min_num_params"), fsdpMinNumParams,
                  "SIZE_BASED_WRAP: blocks with at least this many parameters become units (default 1e8)")
      ->check(wholeNumberIn(0, std::numeric_limits<std::int64_t>::max()));
  cmd->add_option(names("fsdp_offload_params"), fsdpOffloadParams,
                  "true: FSDP keeps parameters, gradients and the optimizer on the CPU");
  cmd->add_option(names("offload_optimizer_device"), offloadOptimizerDevice,
                  "ZeRO: " + choices(config::kOffloadDevices) + " (optimizer states and fp32 gradients)");
  cmd->add_option(names("offload_param_device"), offloadParamDevice,
                  "ZeRO-3: " + choices(config::kOffloadDevices) + " (parameters)");
  cmd->add_option(names("zero_reduce_bucket_size"), zeroBucketSize,
                  "ZeRO-1/2 reduce_bucket_size in elements (default 5e8, DeepSpeed's)")
      ->check(wholeNumberIn(0, std::numeric_limits<std::int64_t>::max()));
  cmd->add_option(names("tp"), tp, "Tensor-parallel degree")->check(wholeNumberIn(1, config::kMaxProcesses));
  cmd->add_option(names("pp"), pp, "Pipeline-parallel degree")->check(wholeNumberIn(1, config::kMaxProcesses));
  cmd->add_flag(names("sequence_parallel"), sequenceParallel, "Megatron sequence parallelism (with tp > 1)");
  cmd->add_option(names("num_cpu_threads_per_process"), cpuThreadsPerProcess,
                  "CPU ranks: intra-op threads per process, as `fathom launch` sets them (default: 1 when several "
                  "processes share a node, else every core); a calibrated profile's time model depends on it")
      ->check(wholeNumberIn(1, config::kMaxIntCount));
  cmd->add_option(names("micro_batch"), microBatch, "Sequences per micro-batch per data-parallel rank")
      ->check(wholeNumberIn(1, config::kMaxIntCount));
  cmd->add_option(names("gradient_accumulation_steps"), gradAccum, "Micro-batches per optimizer step")
      ->check(wholeNumberIn(1, config::kMaxIntCount));
  cmd->add_option(names("seq"), seq, "Sequence length (default 2048)")->check(wholeNumberIn(1, plan::kMaxWidth));
  cmd->add_option(names("mixed_precision"), mixedPrecision,
                  choices(config::kMixedPrecisions, Offered::All) +
                      " (default: ACCELERATE_MIXED_PRECISION, the configuration, else no = fp32, as Accelerate)");
  cmd->add_option(names("master_weights"), masterWeights,
                  choices(plan::kMasterWeights) + " (fp32: a master copy; autocast: fp32 params)");
  cmd->add_option(names("optimizer"), optimizer, choices(plan::kOptimizers));
  cmd->add_option(names("recompute"), recompute, "Activation recomputation: " + choices(plan::kRecomputes));
  cmd->add_flag(names("flash_attention"), flashAttention, "Fused attention (no s² activations stored)");
  cmd->add_option(names("bytes_convention"), bytesConvention,
                  choices(plan::kBytesConventions) + " (zero 16 B/param, megatron 18, the default)");
  cmd->add_option(names("grad_sync"), gradSync, choices(plan::kGradSyncs));
  cmd->add_option(names("efficiency"), efficiency, "Achieved fraction of peak FLOP/s (default 0.5)")
      ->check(CLI::Range(0.01, 1.0));
  cmd->add_flag("--json", json, "Print one JSON object");
  cmd->add_flag("--explain", explain, "Print the formula, inputs and source behind every number");
  // Deprecated spellings: read as before, with a note (kDeprecated); hidden from --help.
  cmd->add_option(names("num_gpus"), numProcesses)->group("")->check(wholeNumberIn(1, config::kMaxProcesses));
  cmd->add_option(names("precision"), mixedPrecision)->group("");
  cmd->add_option(names("zero_bucket_size"), zeroBucketSize)
      ->group("")
      ->check(wholeNumberIn(0, std::numeric_limits<std::int64_t>::max()));
  cmd->add_flag(names("offload_optimizer"), offloadOptimizer)->group("");
  cmd->add_flag(names("offload_params"), offloadParams)->group("");
}

bool PlanFlags::given(const char* name) const {
  return app->get_option(std::string("--") + name)->count() > 0;
}

PlanFlags::Inputs PlanFlags::resolve(std::vector<std::string>* notes) const {
  std::vector<std::string> collected;
  for (const Deprecated& d : kDeprecated) {
    if (given(d.flag)) {
      collected.push_back(detail::concat("--", d.flag, " is deprecated; use ", d.replacement));
    }
  }
  auto flagGiven = [this](const ConfigFlag& f) { return given(f.flag) || (f.deprecated && given(f.deprecated)); };
  auto flagText = [this](const ConfigFlag& f) {
    const CLI::Option* option = app->get_option(std::string("--") + (given(f.flag) ? f.flag : f.deprecated));
    if (option->get_expected_min() == 0) {  // a switch (--flash_attention)
      return std::string(option->as<bool>() ? "true" : "false");
    }
    const std::string text = option->results().back();
    return std::string(f.path) == "mixed_precision" ? precisionText(text) : text;
  };

  plan::PlanInputs in;
  const bool flatPlanFile = !planFile.empty() && !plan::isConfigurationFile(planFile);
  if (flatPlanFile) {
    // A Fathom plan file states a whole plan: the file, then every flag given (no environment).
    in = plan::loadPlanFile(planFile);
    plan::Plan& p = in.plan;
    if (flagGiven(kConfigFlags[0]))
      p.numGpus = numProcesses;
    if (given("num_machines") && !given("gpus_per_node"))
      p.gpusPerNode = std::max(1, p.numGpus / std::max(1, numMachines));
    if (flagGiven(kConfigFlags[2]))
      p.precision = plan::parsePrecision(mixedPrecision);
    if (given("gradient_accumulation_steps"))
      p.gradAccum = gradAccum;
    if (given("gpus_per_node"))
      p.gpusPerNode = gpusPerNode;
    if (given("micro_batch"))
      p.microBatch = microBatch;
    if (given("seq"))
      p.seqLen = seq;
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
  } else {
    // The configuration as `fathom launch` resolves it: flag > environment > file > default.
    config::ResolveInputs inputs;
    if (!planFile.empty()) {
      inputs.configFile = std::filesystem::path(planFile);
    }
    for (const ConfigFlag& f : kConfigFlags) {
      if (flagGiven(f)) {
        inputs.commandLine[f.path] = flagText(f);
      }
    }
    const config::EffectiveConfig effective = config::resolveConfig(inputs);
    const config::RunSpec spec = config::runSpecFromConfig(effective);
    if (effective.configFile) {
      collected.insert(collected.end(), spec.notes.begin(), spec.notes.end());
    }
    in = plan::planFromRunSpec(spec);
  }

  // Sharding flags adjust the plan, as `fathom train`'s adjust what the launcher chose.
  plan::Plan& p = in.plan;
  if (given("strategy"))
    p.strategy = plan::parseStrategy(strategy);
  if (given("fsdp_sharding_strategy")) {
    p.fsdpSharding = plan::parseFsdpSharding(fsdpSharding);
    config::kFsdpShardingStrategies.requireSupported(p.fsdpSharding, "--fsdp_sharding_strategy");
    if (!given("strategy") && planFile.empty()) {
      p.strategy = plan::Strategy::Fsdp;
    }
  }
  if (given("fsdp_auto_wrap_policy"))
    p.fsdpWrap = plan::parseFsdpWrap(fsdpWrap);
  if (given("fsdp_min_num_params"))
    p.fsdpMinNumParams = fsdpMinNumParams;
  if (given("zero_reduce_bucket_size") || given("zero_bucket_size"))
    p.zeroBucketElements = zeroBucketSize;
  if (given("fsdp_offload_params")) {
    FATHOM_CHECK(p.strategy == plan::Strategy::Fsdp, ConfigError,
                 "--fsdp_offload_params applies to --strategy fsdp, not ", plan::strategyLabel(p),
                 " (ZeRO offloads with --offload_optimizer_device / --offload_param_device)");
    p.offloadParams = p.offloadOptimizer = boolFlag("--fsdp_offload_params", fsdpOffloadParams);
  }
  for (const auto& [flag, text, target] :
       {std::tuple{"--offload_optimizer_device", &offloadOptimizerDevice, &p.offloadOptimizer},
        std::tuple{"--offload_param_device", &offloadParamDevice, &p.offloadParams}}) {
    if (given(flag + 2)) {
      FATHOM_CHECK(isZero(p.strategy), ConfigError, flag, " applies to ZeRO (--strategy zero1, zero2 or zero3), not ",
                   plan::strategyLabel(p), " (FSDP offloads with --fsdp_offload_params)");
      const config::OffloadDevice device = config::kOffloadDevices.parse(*text);
      config::kOffloadDevices.requireSupported(device, flag);
      *target = device != config::OffloadDevice::None;
    }
  }
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
  if (given("num_cpu_threads_per_process"))
    p.cpuThreadsPerProcess = cpuThreadsPerProcess;

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
    FATHOM_CHECK(params >= 1, ConfigError, "--params must be a positive count, got ", params);
    out.model = plan::modelFromParams(checkedNarrow<std::int64_t>(std::round(params), "--params", 1));
  } else if (in.dims) {
    out.model = plan::modelFromDims(*in.dims);
  } else if (in.params > 0) {
    out.model = plan::modelFromParams(in.params);
  } else {
    throw ConfigError("no model: give --params, --arch with dimensions, --hf_config, --model, or a --config_file "
                      "whose fathom.planner section names one");
  }
  const std::string hw = given("hardware") ? hardware : (in.hardware.empty() ? "h100-sxm-80gb" : in.hardware);
  HardwareChoice choice = chooseHardware(hw, workspace, p);
  if (choice.fit) {
    collected.push_back("hardware: " + describeFit(choice) + " (`fathom plan --calibrate_from`)");
  }
  out.hardware = std::move(choice.spec);
  out.plan = p;
  if (notes != nullptr) {
    notes->insert(notes->end(), collected.begin(), collected.end());
  }
  return out;
}

void printPlanNotes(const std::vector<std::string>& notes) {
  for (const std::string& note : notes) {
    std::cerr << "fathom plan: note: " << note << '\n';
  }
}

}  // namespace fathom::cli
