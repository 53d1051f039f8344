// SPDX-License-Identifier: Apache-2.0
// The key table: Accelerate's ClusterConfig (accelerate/commands/config/config_args.py), the sub-dict keys that
// `accelerate config` writes and `accelerate launch` reads (commands/config/cluster.py, commands/launch.py), the
// variables its launcher sets (utils/launch.py), and Fathom's own `fathom:` section. docs/config.md documents it.
#include <fathom/config/config_schema.h>

#include <fathom/common/error.h>
#include <fathom/config/input_limits.h>
#include <fathom/config/monitor_spec.h>
#include <fathom/config/vocabulary.h>
#include <fathom/plan/model_spec.h>
#include <fathom/plan/training_plan.h>

#include <algorithm>
#include <cctype>
#include <set>

namespace fathom::config {
namespace {

using Strings = std::vector<std::string>;

std::string upper(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return char(std::toupper(c)); });
  return out;
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return out;
}

KeySpec key(std::string section, std::string name, ValueKind kind, std::string help) {
  KeySpec k;
  k.section = std::move(section);
  k.name = std::move(name);
  k.kind = kind;
  k.help = std::move(help);
  return k;
}

KeySpec enumKey(std::string section, std::string name, Strings allowed, std::string help,
                bool caseInsensitive = false) {
  KeySpec k = key(std::move(section), std::move(name), ValueKind::Enum, std::move(help));
  k.allowed = std::move(allowed);
  k.caseInsensitive = caseInsensitive;
  return k;
}

/// A Float key whose values must be >= `minimum`.
KeySpec floatKey(std::string section, std::string name, double minimum, std::string help) {
  KeySpec k = key(std::move(section), std::move(name), ValueKind::Float, std::move(help));
  k.floatMinimum = minimum;
  return k;
}

/// An Int key in [minimum, maximum]. The default maximum is int's: the RunSpec holds most counts as int, and a
/// value beyond it must be refused here, naming the key, not narrowed later (4294967298 processes became 2).
KeySpec intKey(std::string section, std::string name, std::int64_t minimum, std::string help,
               std::int64_t maximum = kMaxIntCount) {
  KeySpec k = key(std::move(section), std::move(name), ValueKind::Int, std::move(help));
  k.minimum = minimum;
  k.maximum = maximum;
  return k;
}

/// An Enum (or EnumList) key whose values are one of the vocabulary's tables (config/vocabulary.h,
/// plan/training_plan.h): its names, aliases and matching rule.
template <typename E, std::size_t N>
KeySpec tableKey(std::string section, std::string name, const NameTable<E, N>& table, std::string help,
                 ValueKind kind = ValueKind::Enum) {
  KeySpec k = key(std::move(section), std::move(name), kind, std::move(help));
  k.allowed = table.names();
  k.valueAliases = table.aliases();
  k.caseInsensitive = table.match() == NameMatch::Lenient;
  return k;
}

KeySpec& env(KeySpec& k, Strings names) {
  k.environment = std::move(names);
  return k;
}

void addTopLevel(std::vector<KeySpec>& t) {
  {
    auto k = enumKey("", "compute_environment", {"LOCAL_MACHINE", "AMAZON_SAGEMAKER"},
                     "where the job runs; Fathom runs LOCAL_MACHINE configs");
    k.defaultValue = std::string("LOCAL_MACHINE");
    t.push_back(k);
  }
  {
    auto k = tableKey("", "distributed_type", kDistributedTypes, "the distributed mode (required in a file)");
    k.defaultValue = std::string("NO");
    t.push_back(k);
  }
  {
    auto k = tableKey("", "mixed_precision", kMixedPrecisions, "mixed precision mode");
    k.defaultValue = std::string("no");
    t.push_back(env(k, {"ACCELERATE_MIXED_PRECISION"}));
  }
  {
    auto k = key("", "use_cpu", ValueKind::Bool, "run on the CPU even when accelerators exist");
    k.defaultValue = false;
    t.push_back(env(k, {"ACCELERATE_USE_CPU"}));
  }
  {
    auto k = key("", "debug", ValueKind::Bool, "check collective shapes across processes (slower)");
    k.defaultValue = false;
    t.push_back(env(k, {"ACCELERATE_DEBUG_MODE"}));
  }
  {
    auto k = intKey("", "num_processes", -1, "total processes across all machines (-1: not set)", kMaxProcesses);
    k.defaultValue = std::int64_t{-1};
    t.push_back(k);
  }
  {
    auto k = intKey("", "machine_rank", 0, "rank of this machine, 0..num_machines-1", kMaxMachines - 1);
    k.defaultValue = std::int64_t{0};
    t.push_back(k);
  }
  {
    auto k = intKey("", "num_machines", 1, "number of machines", kMaxMachines);
    k.defaultValue = std::int64_t{1};
    t.push_back(k);
  }
  t.push_back(key("", "gpu_ids", ValueKind::String, "`all` or a comma-separated list of device ids"));
  t.push_back(key("", "main_process_ip", ValueKind::String, "address of the machine with rank 0"));
  {
    auto k = intKey("", "main_process_port", 0, "rendezvous port (0: pick a free one; launch default 29500)");
    k.maximum = 65535;
    t.push_back(k);
  }
  {
    auto k = enumKey("", "rdzv_backend", {"static", "c10d", "etcd", "etcd-v2"}, "torchrun rendezvous backend");
    k.defaultValue = std::string("static");
    t.push_back(k);
  }
  {
    auto k = key("", "same_network", ValueKind::Bool, "machines share a network (MASTER_ADDR vs rdzv endpoint)");
    k.defaultValue = false;
    t.push_back(k);
  }
  {
    auto k = key("", "main_training_function", ValueKind::String, "function launched in notebooks/TPU pods");
    k.defaultValue = std::string("main");
    t.push_back(k);
  }
  {
    auto k = key("", "enable_cpu_affinity", ValueKind::Bool, "pin each process to the CPUs near its GPU");
    k.defaultValue = false;
    t.push_back(env(k, {"ACCELERATE_CPU_AFFINITY"}));
  }
  {
    auto k = key("", "downcast_bf16", ValueKind::Bool, "TPU: cast float and double to bf16");
    k.defaultValue = false;
    t.push_back(env(k, {"ACCELERATE_DOWNCAST_BF16"}));
  }
  t.push_back(key("", "tpu_name", ValueKind::String, "TPU pod name"));
  t.push_back(key("", "tpu_zone", ValueKind::String, "TPU pod zone"));
  {
    auto k = key("", "tpu_use_cluster", ValueKind::Bool, "TPU pod: run on every VM");
    k.defaultValue = false;
    t.push_back(k);
  }
  {
    auto k = key("", "tpu_use_sudo", ValueKind::Bool, "TPU pod: run setup commands with sudo");
    k.defaultValue = false;
    t.push_back(k);
  }
  t.push_back(key("", "command_file", ValueKind::String, "TPU pod: file of setup commands"));
  t.push_back(key("", "commands", ValueKind::StringList, "TPU pod: setup commands"));
  t.push_back(key("", "tpu_vm", ValueKind::StringList, "TPU pod: VM names"));
  t.push_back(key("", "tpu_env", ValueKind::StringList, "TPU pod: environment variables"));
  {
    // Not a ClusterConfig key: an Accelerator argument, a launch flag and ACCELERATE_GRADIENT_ACCUMULATION_STEPS.
    auto k = intKey("", "gradient_accumulation_steps", 1, "micro-batches per optimizer step");
    k.inFile = false;
    k.defaultValue = std::int64_t{1};
    t.push_back(env(k, {"ACCELERATE_GRADIENT_ACCUMULATION_STEPS"}));
  }
}

void addDeepSpeed(std::vector<KeySpec>& t) {
  const std::string s = "deepspeed_config";
  {
    auto k = key(s, "deepspeed_config_file", ValueKind::String, "DeepSpeed JSON config (drives the rest), or `none`");
    t.push_back(env(k, {"ACCELERATE_DEEPSPEED_CONFIG_FILE"}));
  }
  {
    auto k = key(s, "zero_stage", ValueKind::Int, "ZeRO stage 0..3");
    k.allowed = kZeroStages.names();
    t.push_back(env(k, {"ACCELERATE_DEEPSPEED_ZERO_STAGE"}));
  }
  for (const char* what : {"optimizer", "param"}) {
    auto dev =
        tableKey(s, std::string("offload_") + what + "_device", kOffloadDevices,
                 std::string("where ZeRO offloads ") + what + (std::string(what) == "param" ? "eters" : " states"));
    t.push_back(env(dev, {"ACCELERATE_DEEPSPEED_OFFLOAD_" + upper(what) + "_DEVICE"}));
    auto path = key(s, std::string("offload_") + what + "_nvme_path", ValueKind::String, "NVMe path for offload");
    t.push_back(env(path, {"ACCELERATE_DEEPSPEED_OFFLOAD_" + upper(what) + "_NVME_PATH"}));
  }
  {
    auto k = intKey(s, "gradient_accumulation_steps", 1, "DeepSpeed gradient accumulation steps");
    t.push_back(k);
  }
  {
    auto k = key(s, "gradient_clipping", ValueKind::Float, "DeepSpeed gradient clipping");
    t.push_back(env(k, {"ACCELERATE_GRADIENT_CLIPPING"}));
  }
  {
    auto k = key(s, "zero3_init_flag", ValueKind::Bool, "build huge models with deepspeed.zero.Init (ZeRO-3)");
    t.push_back(env(k, {"ACCELERATE_DEEPSPEED_ZERO3_INIT"}));
  }
  {
    auto k = key(s, "zero3_save_16bit_model", ValueKind::Bool, "save 16-bit weights under ZeRO-3");
    t.push_back(env(k, {"ACCELERATE_DEEPSPEED_ZERO3_SAVE_16BIT_MODEL"}));
  }
  {
    auto k = key(s, "deepspeed_moe_layer_cls_names", ValueKind::String, "comma-separated MoE layer classes");
    t.push_back(env(k, {"ACCELERATE_DEEPSPEED_MOE_LAYER_CLS_NAMES"}));
  }
  t.push_back(enumKey(s, "deepspeed_multinode_launcher",
                      {"pdsh", "standard", "openmpi", "mvapich", "mpich", "nossh", "slurm"}, "multi-node launcher"));
  t.push_back(key(s, "deepspeed_hostfile", ValueKind::String, "DeepSpeed hostfile"));
  t.push_back(key(s, "deepspeed_exclusion_filter", ValueKind::String, "hosts to exclude"));
  t.push_back(key(s, "deepspeed_inclusion_filter", ValueKind::String, "hosts to include"));
}

void addFsdp(std::vector<KeySpec>& t) {
  const std::string s = "fsdp_config";
  auto fsdpEnv = [](KeySpec& k) -> KeySpec& { return env(k, {"FSDP_" + upper(k.name.substr(5))}); };
  {
    auto k = key(s, "fsdp_version", ValueKind::Int, "FSDP 1 or 2");
    k.allowed = {"1", "2"};
    t.push_back(fsdpEnv(k));
  }
  {
    auto k = tableKey(s, "fsdp_sharding_strategy", kFsdpShardingStrategies,
                      "FSDP1 sharding strategy (legacy; FSDP2 uses reshard)");
    t.push_back(fsdpEnv(k));
  }
  {
    auto k = tableKey(s, "fsdp_reshard_after_forward", kFsdpShardingStrategies,
                      "FSDP2: bool; FSDP1: a sharding strategy", ValueKind::BoolOrEnum);
    t.push_back(fsdpEnv(k));
  }
  {
    auto k = key(s, "fsdp_offload_params", ValueKind::Bool, "offload parameters and gradients to the CPU");
    t.push_back(fsdpEnv(k));
  }
  {
    auto k = tableKey(s, "fsdp_auto_wrap_policy", kFsdpWrapPolicies, "how modules are wrapped");
    t.push_back(fsdpEnv(k));
  }
  {
    auto k = key(s, "fsdp_transformer_layer_cls_to_wrap", ValueKind::String, "comma-separated block classes");
    t.push_back(env(k, {"FSDP_TRANSFORMER_CLS_TO_WRAP"}));
  }
  {
    auto k = intKey(s, "fsdp_min_num_params", 0, "SIZE_BASED_WRAP threshold (default 1e8)",
                    std::numeric_limits<std::int64_t>::max());
    t.push_back(fsdpEnv(k));
  }
  {
    auto k = tableKey(s, "fsdp_backward_prefetch", kFsdpBackwardPrefetches, "FSDP1 backward prefetch");
    t.push_back(fsdpEnv(k));
  }
  {
    auto k = tableKey(s, "fsdp_state_dict_type", kFsdpStateDictTypes, "checkpoint layout");
    t.push_back(fsdpEnv(k));
  }
  for (const char* name : {"fsdp_forward_prefetch", "fsdp_use_orig_params", "fsdp_cpu_ram_efficient_loading",
                           "fsdp_sync_module_states", "fsdp_activation_checkpointing"}) {
    auto k = key(s, name, ValueKind::Bool, "");
    k.help = std::string(name) == "fsdp_forward_prefetch"            ? "prefetch the next all-gather in forward"
             : std::string(name) == "fsdp_use_orig_params"           ? "allow mixed requires_grad (FSDP1)"
             : std::string(name) == "fsdp_cpu_ram_efficient_loading" ? "only rank 0 loads weights (needs sync)"
             : std::string(name) == "fsdp_sync_module_states"        ? "broadcast rank 0's parameters"
                                                                     : "recompute activations in backward";
    t.push_back(fsdpEnv(k));
  }
  {
    auto k = key(s, "fsdp_ignored_modules", ValueKind::String, "modules FSDP leaves alone");
    t.push_back(fsdpEnv(k));
  }
}

void addOthers(std::vector<KeySpec>& t) {
  {
    const std::string s = "megatron_lm_config";
    auto m = [&](std::string name, ValueKind kind, std::string help) {
      auto k = key(s, name, kind, std::move(help));
      if (kind == ValueKind::Int) {
        k.minimum = 1;
      }
      k.environment = {upper(name)};
      t.push_back(k);
    };
    m("megatron_lm_tp_degree", ValueKind::Int, "tensor-parallel degree");
    m("megatron_lm_pp_degree", ValueKind::Int, "pipeline-parallel degree");
    m("megatron_lm_num_micro_batches", ValueKind::Int, "micro-batches when pp_degree > 1");
    m("megatron_lm_sequence_parallelism", ValueKind::Bool, "sequence parallelism (tp_degree > 1)");
    m("megatron_lm_recompute_activations", ValueKind::Bool, "selective activation recomputation");
    m("megatron_lm_use_distributed_optimizer", ValueKind::Bool, "shard optimizer state across DP ranks");
    m("megatron_lm_gradient_clipping", ValueKind::Float, "global L2 clip (0 disables)");
  }
  {
    const std::string s = "dynamo_config";
    auto backend = tableKey(s, "dynamo_backend", kDynamoBackends, "torch.compile backend (not in LibTorch C++)");
    t.push_back(env(backend, {"ACCELERATE_DYNAMO_BACKEND"}));
    auto mode = enumKey(s, "dynamo_mode", {"default", "reduce-overhead", "max-autotune"}, "torch.compile mode");
    t.push_back(env(mode, {"ACCELERATE_DYNAMO_MODE"}));
    for (const char* name : {"dynamo_use_fullgraph", "dynamo_use_dynamic", "dynamo_use_regional_compilation"}) {
      auto k = key(s, name, ValueKind::Bool, std::string("torch.compile ") + (name + 10));
      t.push_back(env(k, {"ACCELERATE_" + upper(name)}));
    }
  }
  {
    const std::string s = "fp8_config";
    auto f = [&](KeySpec k) {
      k.environment = {"ACCELERATE_FP8_" + upper(k.name)};
      t.push_back(k);
    };
    f(enumKey(s, "backend", {"AO", "TE", "MSAMP"}, "FP8 backend", true));
    f(key(s, "use_autocast_during_eval", ValueKind::Bool, "TE: FP8 autocast in eval"));
    f(intKey(s, "margin", 0, "TE: scaling margin"));
    f(intKey(s, "interval", 1, "TE: scaling-factor update interval"));
    f(enumKey(s, "fp8_format", {"HYBRID", "E4M3", "E5M2"}, "TE: FP8 format", true));
    f(intKey(s, "amax_history_len", 1, "TE: amax history length"));
    f(enumKey(s, "amax_compute_algo", {"max", "most_recent"}, "TE: amax algorithm", true));
    {
      auto k = key(s, "override_linear_precision", ValueKind::BoolList, "TE: fprop, dgrad, wgrad in higher precision");
      k.listSize = 3;
      f(k);
    }
    f(key(s, "use_mxfp8_block_scaling", ValueKind::Bool, "TE: MXFP8 block scaling"));
    f(enumKey(s, "opt_level", {"O1", "O2"}, "MS-AMP optimisation level"));
    f(key(s, "enable_fsdp_float8_all_gather", ValueKind::Bool, "AO: FP8 all-gather under FSDP2"));
    f(key(s, "pad_inner_dim", ValueKind::Bool, "AO: pad inner dimensions to multiples of 16"));
  }
  {
    const std::string s = "parallelism_config";
    auto p = [&](KeySpec k) {
      k.environment = {upper(k.name)};
      t.push_back(k);
    };
    p(intKey(s, "parallelism_config_dp_replicate_size", 1, "replicated data-parallel size"));
    p(intKey(s, "parallelism_config_dp_shard_size", 1, "sharded data-parallel size (FSDP2)"));
    p(intKey(s, "parallelism_config_tp_size", 1, "tensor-parallel size"));
    p(intKey(s, "parallelism_config_cp_size", 1, "context-parallel size"));
    p(enumKey(s, "parallelism_config_cp_comm_strategy", {"allgather", "alltoall"}, "context-parallel exchange"));
    p(key(s, "parallelism_config_cp_backend", ValueKind::String, "context-parallel backend (torch)"));
    p(intKey(s, "parallelism_config_sp_size", 1, "sequence-parallel size"));
    p(key(s, "parallelism_config_sp_backend", ValueKind::String, "sequence-parallel backend (deepspeed)"));
    p(intKey(s, "parallelism_config_sp_seq_length", 1, "sequence-parallel sequence length"));
    p(key(s, "parallelism_config_sp_seq_length_is_variable", ValueKind::Bool, "variable sequence length"));
    p(key(s, "parallelism_config_sp_attn_implementation", ValueKind::String, "sequence-parallel attention"));
  }
  {
    const std::string s = "mpirun_config";
    t.push_back(key(s, "mpirun_hostfile", ValueKind::String, "MPI hostfile (MULTI_CPU)"));
    t.push_back(intKey(s, "mpirun_ccl", 1, "oneCCL worker threads"));
  }
}

void addFathom(std::vector<KeySpec>& t) {
  {
    t.push_back(
        tableKey("fathom", "trackers", kTrackers, "experiment trackers (Accelerate's log_with)", ValueKind::EnumList));
  }
  t.push_back(key("fathom", "project_dir", ValueKind::String, "project directory (checkpoints, logs)"));
  t.push_back(key("fathom", "logging_dir", ValueKind::String, "tracker output directory (default project_dir)"));
  t.push_back(key("fathom", "workspace", ValueKind::String, "SQLite workspace file (fathom.sqlite)"));
  t.push_back(
      key("fathom", "run_name", ValueKind::String, "name of the run `fathom launch` records (default <program>-<id>)"));
  // The launcher's run monitor (docs/launch.md, "Hang and straggler detection"; config::MonitorSpec holds the
  // defaults): numbers >= 0, checked here wherever a value enters, so a file's mistake names its line.
  t.push_back(floatKey("fathom", "hang_timeout", 0.0,
                       detail::concat("seconds without progress, ranks disagreeing on the collective wavefront, before "
                                      "`fathom launch` reports a hang (default ",
                                      MonitorSpec::kDefaultHangTimeoutSeconds, "; 0 disables)")));
  t.push_back(floatKey("fathom", "straggler_threshold", 0.0,
                       detail::concat("percent by which a rank's own time per step may exceed the others' median "
                                      "before it is flagged as a straggler (default ",
                                      MonitorSpec::kDefaultStragglerThresholdPercent, "; 0 disables)")));
  t.push_back(tableKey("fathom", "hang_action", kHangActions,
                       detail::concat("on a hang, `fathom launch` reports it or also stops the group (default ",
                                      kHangActions.toString(MonitorSpec::kDefaultHangAction), ")")));
  t.push_back(key("fathom", "hosts", ValueKind::StringList, "machines for a multi-node launch, rank order"));
  t.push_back(key("fathom", "hostfile", ValueKind::String, "file with one host per line"));
  t.push_back(tableKey("fathom", "launcher", kLaunchers, "how agents start on the hosts"));
  t.push_back(key("fathom", "ssh_user", ValueKind::String, "user for ssh launches"));
  t.push_back(key("fathom", "ssh_config", ValueKind::String, "ssh configuration file for ssh launches (ssh -F)"));
  t.push_back(key("fathom", "slurm_partition", ValueKind::String, "SLURM partition of the job a slurm launch submits"));
  t.push_back(key("fathom", "slurm_time", ValueKind::String, "time limit of that job, as sbatch --time takes it"));
  t.push_back(key("fathom", "slurm_account", ValueKind::String, "account that job is charged to"));
  const std::string p = "fathom.profiler";
  t.push_back(key(p, "enabled", ValueKind::Bool, "profile the run"));
  t.push_back(tableKey(p, "activities", kProfilerActivities, "what to record", ValueKind::EnumList));
  for (const char* name : {"record_shapes", "profile_memory", "with_stack", "with_flops", "with_modules"}) {
    t.push_back(key(p, name, ValueKind::Bool, "as ProfileKwargs"));
  }
  for (const char* name :
       {"schedule_skip_first", "schedule_wait", "schedule_warmup", "schedule_active", "schedule_repeat"}) {
    t.push_back(intKey(p, name, 0, "profiler schedule (torch.profiler.schedule)"));
  }
  t.push_back(key(p, "output_trace_dir", ValueKind::String, "where Chrome traces are written"));
  // What the Studio launches: `fathom launch --config_file F` + these words (PROGRAM ARGS...).
  t.push_back(key("fathom", "command", ValueKind::StringList, "program and arguments the Studio launches"));
  // The planner's inputs that Accelerate's keys do not carry, spelled as `fathom plan`'s flags: `fathom plan
  // --config_file F` reads this section (core/plan/plan_file.cpp); strategy, processes, machines, precision and
  // offload come from the Accelerate keys above.
  const std::string pl = "fathom.planner";
  t.push_back(key(pl, "model", ValueKind::String, "built-in model to plan for (as `fathom plan --model`)"));
  t.push_back(key(pl, "hf_config", ValueKind::String, "Hugging Face config.json (relative to the file)"));
  t.push_back(key(pl, "params", ValueKind::Float, "model size as a bare parameter count (7.5e9)"));
  {
    auto k = enumKey(pl, "arch", {"gpt", "llama", "bert", "t5"}, "transformer family of the dimensions", true);
    k.valueAliases = {{"gpt2", "gpt"}, {"mistral", "llama"}, {"mixtral", "llama"}};
    t.push_back(k);
  }
  t.push_back(intKey(pl, "layers", 1, "transformer blocks (t5: encoder blocks)", plan::kMaxLayers));
  t.push_back(intKey(pl, "decoder_layers", 0, "t5: decoder blocks (0: as layers)", plan::kMaxLayers));
  t.push_back(intKey(pl, "hidden", 1, "hidden size h", plan::kMaxWidth));
  t.push_back(intKey(pl, "heads", 1, "attention heads", plan::kMaxHeads));
  t.push_back(intKey(pl, "kv_heads", 0, "key/value heads (0: heads)", plan::kMaxHeads));
  t.push_back(intKey(pl, "head_dim", 0, "per-head width (0: hidden / heads)", plan::kMaxWidth));
  t.push_back(intKey(pl, "ffn_hidden", 0, "MLP inner width (0: derived)", plan::kMaxWidth));
  t.push_back(intKey(pl, "vocab", 1, "vocabulary size", plan::kMaxWidth));
  t.push_back(intKey(pl, "max_positions", 0, "learned position rows, gpt/bert (0: 2048 / 512)", plan::kMaxWidth));
  t.push_back(key(pl, "tied_embeddings", ValueKind::Bool, "output layer shares the input embedding"));
  t.push_back(intKey(pl, "num_experts", 0, "MoE experts per layer (llama family)", plan::kMaxExperts));
  t.push_back(intKey(pl, "experts_per_token", 0, "MoE top-k", plan::kMaxExperts));
  t.push_back(key(pl, "hardware", ValueKind::String, "hardware preset or YAML/JSON file (default h100-sxm-80gb)"));
  t.push_back(intKey(pl, "gpus_per_node", 1, "accelerators per machine (default: the preset's)"));
  t.push_back(intKey(pl, "micro_batch", 1, "sequences per micro-batch per process"));
  t.push_back(intKey(pl, "seq", 1, "tokens per sequence (default 2048)", plan::kMaxWidth));
  t.push_back(intKey(pl, "gradient_accumulation_steps", 1, "micro-batches per optimizer step"));
  t.push_back(tableKey(pl, "master_weights", plan::kMasterWeights, "where the fp32 weights live"));
  t.push_back(tableKey(pl, "optimizer", plan::kOptimizers, "optimizer whose state is planned"));
  t.push_back(tableKey(pl, "recompute", plan::kRecomputes, "activation recomputation"));
  t.push_back(key(pl, "flash_attention", ValueKind::Bool, "fused attention (no s² activations stored)"));
  t.push_back(tableKey(pl, "bytes_convention", plan::kBytesConventions, "model-state bytes convention"));
  t.push_back(tableKey(pl, "grad_sync", plan::kGradSyncs, "gradient reduction under accumulation"));
}

std::vector<KeySpec> buildTable() {
  std::vector<KeySpec> t;
  addTopLevel(t);
  addDeepSpeed(t);
  addFsdp(t);
  addOthers(t);
  addFathom(t);
  return t;
}

}  // namespace

std::string_view describe(ValueKind kind) {
  switch (kind) {
  case ValueKind::Bool: return "a boolean";
  case ValueKind::Int: return "an integer";
  case ValueKind::Float: return "a number";
  case ValueKind::String: return "a string";
  case ValueKind::Enum: return "one of the allowed values";
  case ValueKind::StringList: return "a list of strings";
  case ValueKind::EnumList: return "a list of allowed values";
  case ValueKind::BoolList: return "a list of booleans";
  case ValueKind::BoolOrEnum: return "a boolean or one of the allowed values";
  }
  return "a value";
}

const std::vector<KeySpec>& allKeys() {
  static const std::vector<KeySpec> table = buildTable();
  return table;
}

const std::vector<SectionSpec>& allSections() {
  static const std::vector<SectionSpec> sections = {
      {"", "Accelerate's ClusterConfig"},
      {"deepspeed_config", "DeepSpeed plugin"},
      {"fsdp_config", "FullyShardedDataParallel plugin"},
      {"megatron_lm_config", "Megatron-LM plugin"},
      {"dynamo_config", "torch.compile"},
      {"fp8_config", "FP8 recipe"},
      {"parallelism_config", "N-D parallelism (FSDP2)"},
      {"mpirun_config", "mpirun (MULTI_CPU)"},
      {"fathom", "what Accelerate lacks: trackers, hosts, workspace"},
      {"fathom.profiler", "profiler"},
      {"fathom.planner", "planner inputs"},
  };
  return sections;
}

const KeySpec* findKey(std::string_view path) {
  for (const auto& k : allKeys()) {
    if (k.path() == path) {
      return &k;
    }
  }
  return nullptr;
}

const KeySpec* findKeyInSection(std::string_view section, std::string_view name) {
  for (const auto& k : allKeys()) {
    if (k.section == section && k.name == name) {
      return &k;
    }
  }
  // Legacy spellings. launch.py prefixes fsdp_config keys lacking "fsdp" with "fsdp_".
  if (section == "fsdp_config" && name.find("fsdp") == std::string_view::npos) {
    return findKeyInSection(section, "fsdp_" + std::string(name));
  }
  if (section == "fp8_config") {
    // The questionnaire (cluster.py) writes these; launch.py and TERecipeKwargs read the short names.
    if (name == "amax_history_length") {
      return findKeyInSection(section, "amax_history_len");
    }
    if (name == "amax_compute_algorithm") {
      return findKeyInSection(section, "amax_compute_algo");
    }
    if (name == "optimization_level") {
      return findKeyInSection(section, "opt_level");
    }
  }
  return nullptr;
}

bool isSection(std::string_view section) {
  for (const auto& s : allSections()) {
    if (s.name == section) {
      return true;
    }
  }
  return false;
}

std::vector<std::string> allowedKeysIn(std::string_view section) {
  std::set<std::string> names;
  for (const auto& k : allKeys()) {
    if (k.section == section && k.inFile) {
      names.insert(k.name);
    }
  }
  const std::string prefix = section.empty() ? "" : std::string(section) + ".";
  for (const auto& s : allSections()) {
    if (!s.name.empty() && s.name.rfind(prefix, 0) == 0 && s.name.find('.', prefix.size()) == std::string::npos) {
      names.insert(s.name.substr(prefix.size()));
    }
  }
  return {names.begin(), names.end()};
}

std::string fathomEnvironmentName(const KeySpec& key) {
  std::string path = key.path();
  if (path.rfind("fathom.", 0) == 0) {
    path = path.substr(7);
  }
  std::string out = "FATHOM_";
  for (char c : path) {
    if (c == '.') {
      out += "__";
    } else if (c == '-') {
      out += '_';
    } else {
      out += char(std::toupper(static_cast<unsigned char>(c)));
    }
  }
  return out;
}

std::optional<bool> parseBool(std::string_view text) {
  const std::string v = lower(text);
  if (v == "y" || v == "yes" || v == "t" || v == "true" || v == "on" || v == "1") {
    return true;
  }
  if (v == "n" || v == "no" || v == "f" || v == "false" || v == "off" || v == "0") {
    return false;
  }
  return std::nullopt;
}

std::optional<LaunchFlagTarget> configKeyForLaunchFlag(std::string_view flag) {
  std::string f(flag);
  while (!f.empty() && f.front() == '-') {
    f.erase(f.begin());
  }
  std::replace(f.begin(), f.end(), '-', '_');
  if (f == "cpu") {
    return LaunchFlagTarget{"use_cpu", "true"};
  }
  static const std::vector<std::pair<std::string, std::string>> modes = {{"multi_gpu", "MULTI_GPU"},
                                                                         {"use_deepspeed", "DEEPSPEED"},
                                                                         {"use_fsdp", "FSDP"},
                                                                         {"use_megatron_lm", "MEGATRON_LM"},
                                                                         {"tpu", "XLA"}};
  for (const auto& [name, value] : modes) {
    if (f == name) {
      return LaunchFlagTarget{"distributed_type", value};
    }
  }
  if (f == "fp8_backend") {
    return LaunchFlagTarget{"fp8_config.backend", std::nullopt};
  }
  for (const auto& k : allKeys()) {
    if (k.section.rfind("fathom", 0) == 0) {
      continue;
    }
    if (launchFlagForKey(k.path()) == "--" + f) {
      return LaunchFlagTarget{k.path(), std::nullopt};
    }
  }
  return std::nullopt;
}

std::string launchFlagForKey(std::string_view path) {
  const KeySpec* k = findKey(path);
  if (k == nullptr) {
    return "--" + std::string(path);
  }
  if (k->section == "fp8_config") {
    return "--fp8_" + k->name;
  }
  if (k->section == "deepspeed_config" && k->name == "gradient_accumulation_steps") {
    return "--gradient_accumulation_steps";
  }
  if (k->path() == "use_cpu") {
    return "--cpu";
  }
  return "--" + k->name;
}

}  // namespace fathom::config
