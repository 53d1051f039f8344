// SPDX-License-Identifier: Apache-2.0
// Question texts follow accelerate/commands/config/cluster.py so that answers scripted for `accelerate config`
// read the same here.
#include "config_questionnaire.h"

#include <fathom/common/error.h>
#include <fathom/config/config_schema.h>

#include <istream>
#include <ostream>

namespace fathom::cli {
namespace {

std::string trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) {
    return {};
  }
  return s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1);
}

struct MachineType {
  const char* label;
  const char* distributedType;
};

const std::vector<MachineType> kMachineTypes = {{"No distributed training", "NO"},
                                                {"multi-CPU", "MULTI_CPU"},
                                                {"multi-XPU", "MULTI_XPU"},
                                                {"multi-GPU", "MULTI_GPU"},
                                                {"multi-NPU", "MULTI_NPU"},
                                                {"multi-MLU", "MULTI_MLU"},
                                                {"multi-SDAA", "MULTI_SDAA"},
                                                {"multi-MUSA", "MULTI_MUSA"},
                                                {"multi-HPU", "MULTI_HPU"},
                                                {"multi-NEURON", "MULTI_NEURON"},
                                                {"TPU", "XLA"}};

}  // namespace

ConfigQuestionnaire::ConfigQuestionnaire(std::istream& in, std::ostream& out) : m_in(in), m_out(out) {}

std::string ConfigQuestionnaire::ask(const std::string& question, const std::string& defaultAnswer) {
  m_out << question << (defaultAnswer.empty() ? "" : " [" + defaultAnswer + "]") << ": " << std::flush;
  std::string line;
  if (!std::getline(m_in, line)) {
    m_out << "(end of input: " << (defaultAnswer.empty() ? "no answer" : defaultAnswer) << ")\n";
    return defaultAnswer;
  }
  line = trim(line);
  return line.empty() ? defaultAnswer : line;
}

bool ConfigQuestionnaire::askYesNo(const std::string& question, bool defaultAnswer) {
  for (;;) {
    const std::string answer = ask(question + (defaultAnswer ? " [YES/no]" : " [yes/NO]"), "");
    if (answer.empty()) {
      return defaultAnswer;
    }
    if (auto b = config::parseBool(answer)) {
      return *b;
    }
    m_out << "Please enter yes or no.\n";
  }
}

std::int64_t ConfigQuestionnaire::askInt(const std::string& question, std::int64_t defaultAnswer,
                                         std::int64_t minimum) {
  for (;;) {
    const std::string answer = ask(question, std::to_string(defaultAnswer));
    try {
      std::size_t used = 0;
      const long long v = std::stoll(answer, &used);
      if (used == answer.size() && v >= minimum) {
        return v;
      }
    } catch (const std::exception&) {
    }
    m_out << "Please enter an integer >= " << minimum << ".\n";
  }
}

std::size_t ConfigQuestionnaire::askChoice(const std::string& question, const std::vector<std::string>& options,
                                           std::size_t defaultIndex) {
  m_out << question << '\n';
  for (std::size_t i = 0; i < options.size(); ++i) {
    m_out << "  [" << i << "] " << options[i] << '\n';
  }
  for (;;) {
    const std::string answer = ask("Your choice (name or number)", std::to_string(defaultIndex));
    // A name first ("2" is FSDP version 2, not the option numbered 2), then a number.
    for (std::size_t i = 0; i < options.size(); ++i) {
      if (answer == options[i]) {
        return i;
      }
    }
    for (std::size_t i = 0; i < options.size(); ++i) {
      if (answer == std::to_string(i)) {
        return i;
      }
    }
    m_out << "Please choose one of 0.." << options.size() - 1 << " or a name listed above.\n";
  }
}

void ConfigQuestionnaire::askKey(const std::string& question, const std::string& path,
                                 const std::string& defaultAnswer) {
  for (;;) {
    const std::string answer = ask(question, defaultAnswer);
    if (answer.empty()) {
      return;  // no default and nothing typed: leave unset
    }
    try {
      m_config.setText(path, answer, "answer");
      return;
    } catch (const ConfigError& e) {
      m_out << e.what() << '\n';
      if (answer == defaultAnswer) {
        return;  // never loop on a default the schema rejects
      }
    }
  }
}

void ConfigQuestionnaire::askMultiNode() {
  const auto machines =
      askInt("How many different machines will you use (use more than 1 for multi-node training)?", 1, 1);
  m_config.set("num_machines", machines);
  if (machines > 1) {
    askKey("What is the rank of this machine?", "machine_rank", "0");
    askKey("What is the IP address of the machine that will host the main process?", "main_process_ip", "");
    askKey("What is the port you will use to communicate with the main process?", "main_process_port", "29500");
    m_config.set("same_network", askYesNo("Are all the machines on the same local network? Answer `no` if nodes are "
                                          "on the cloud and/or on different network hosts",
                                          true));
    askKey("What rendezvous backend will you use? ('static', 'c10d', ...)", "rdzv_backend", "static");
  }
  m_config.set("debug", askYesNo("Should distributed operations be checked while running for errors? This can avoid "
                                 "timeout issues but will be slower.",
                                 false));
}

void ConfigQuestionnaire::askDynamo() {
  if (!askYesNo("Do you wish to optimize your script with torch dynamo?", false)) {
    return;
  }
  const std::vector<std::string> backends = {"eager",           "aot_eager",  "inductor", "aot_ts_nvfuser",
                                             "nvprims_nvfuser", "cudagraphs", "ofi",      "fx2trt",
                                             "onnxrt",          "tensorrt",   "tvm"};
  m_config.set("dynamo_config.dynamo_backend",
               backends[askChoice("Which dynamo backend would you like to use?", backends, 2)]);
  if (askYesNo("Do you want to customize the defaults sent to torch.compile?", false)) {
    const std::vector<std::string> modes = {"default", "reduce-overhead", "max-autotune"};
    m_config.set("dynamo_config.dynamo_mode", modes[askChoice("Which mode do you want to use?", modes, 0)]);
    m_config.set("dynamo_config.dynamo_use_fullgraph",
                 askYesNo("Do you want the fullgraph mode or it is ok to break model into several subgraphs?", false));
    m_config.set("dynamo_config.dynamo_use_dynamic", askYesNo("Do you want to enable dynamic shape tracing?", false));
  }
}

bool ConfigQuestionnaire::askDeepSpeed() {
  if (!askYesNo("Do you want to use DeepSpeed?", false)) {
    return false;
  }
  m_config.set("distributed_type", std::string("DEEPSPEED"));
  if (askYesNo("Do you want to specify a json file to a DeepSpeed config?", false)) {
    askKey("Please enter the path to the json DeepSpeed config file", "deepspeed_config.deepspeed_config_file", "none");
    return true;
  }
  const std::vector<std::string> stages = {"0", "1", "2", "3"};
  const auto stage = askChoice("What should be your DeepSpeed's ZeRO optimization stage?", stages, 2);
  m_config.set("deepspeed_config.zero_stage", std::int64_t(stage));
  const std::vector<std::string> devices = {"none", "cpu", "nvme"};
  if (stage >= 2) {
    m_config.set("deepspeed_config.offload_optimizer_device",
                 devices[askChoice("Where to offload optimizer states?", devices, 0)]);
  }
  if (stage == 3) {
    m_config.set("deepspeed_config.offload_param_device",
                 devices[askChoice("Where to offload parameters?", devices, 0)]);
  }
  askKey("How many gradient accumulation steps you're passing in your script?",
         "deepspeed_config.gradient_accumulation_steps", "1");
  if (askYesNo("Do you want to use gradient clipping?", false)) {
    askKey("What is the gradient clipping value?", "deepspeed_config.gradient_clipping", "1.0");
  }
  if (stage == 3) {
    m_config.set("deepspeed_config.zero3_init_flag",
                 askYesNo("Do you want to enable `deepspeed.zero.Init` when using ZeRO Stage-3 for constructing "
                          "massive models?",
                          false));
    m_config.set("deepspeed_config.zero3_save_16bit_model",
                 askYesNo("Do you want to save 16-bit model weights when using ZeRO Stage-3?", false));
  }
  return false;
}

bool ConfigQuestionnaire::askFsdp() {
  if (!askYesNo("Do you want to use FullyShardedDataParallel?", false)) {
    return false;
  }
  m_config.set("distributed_type", std::string("FSDP"));
  const auto version = askChoice("What should be your FSDP version?", {"1", "2"}, 1) + 1;
  m_config.set("fsdp_config.fsdp_version", std::int64_t(version));
  const std::vector<std::string> strategies = {"FULL_SHARD", "SHARD_GRAD_OP", "NO_SHARD", "HYBRID_SHARD",
                                               "HYBRID_SHARD_ZERO2"};
  if (version == 2) {
    m_config.set("fsdp_config.fsdp_reshard_after_forward",
                 askYesNo("Do you want to enable resharding after forward?", true));
  } else {
    m_config.set("fsdp_config.fsdp_reshard_after_forward",
                 strategies[askChoice("What should be your sharding strategy?", strategies, 0)]);
  }
  m_config.set("fsdp_config.fsdp_offload_params",
               askYesNo("Do you want to offload parameters and gradients to CPU?", false));
  const std::vector<std::string> policies = {"TRANSFORMER_BASED_WRAP", "SIZE_BASED_WRAP", "NO_WRAP"};
  const auto policy = askChoice("What should be your auto wrap policy?", policies, 0);
  m_config.set("fsdp_config.fsdp_auto_wrap_policy", policies[policy]);
  if (policy == 0) {
    askKey("Specify the comma-separated list of transformer layer class names (case-sensitive) to wrap, e.g. "
           "`BertLayer`, `GPTJBlock`, `T5Block` (empty: the model's _no_split_modules)",
           "fsdp_config.fsdp_transformer_layer_cls_to_wrap", "");
  } else if (policy == 1) {
    askKey("What should be your FSDP's minimum number of parameters for Default Auto Wrapping?",
           "fsdp_config.fsdp_min_num_params", "100000000");
  }
  if (version == 1) {
    const std::vector<std::string> prefetch = {"BACKWARD_PRE", "BACKWARD_POST", "NO_PREFETCH"};
    m_config.set("fsdp_config.fsdp_backward_prefetch",
                 prefetch[askChoice("What should be your FSDP's backward prefetch policy?", prefetch, 0)]);
  }
  const std::vector<std::string> stateDicts =
      version == 1 ? std::vector<std::string>{"FULL_STATE_DICT", "LOCAL_STATE_DICT", "SHARDED_STATE_DICT"}
                   : std::vector<std::string>{"SHARDED_STATE_DICT", "FULL_STATE_DICT"};
  m_config.set("fsdp_config.fsdp_state_dict_type",
               stateDicts[askChoice("What should be your FSDP's state dict type?", stateDicts, 0)]);
  if (version == 1) {
    m_config.set("fsdp_config.fsdp_forward_prefetch",
                 askYesNo("Do you want to enable FSDP's forward prefetch policy?", false));
    m_config.set("fsdp_config.fsdp_use_orig_params",
                 askYesNo("Do you want to enable FSDP's `use_orig_params` feature?", true));
  }
  const bool ramEfficient = askYesNo("Do you want to enable CPU RAM efficient model loading? Only applicable for "
                                     "Transformers models.",
                                     true);
  m_config.set("fsdp_config.fsdp_cpu_ram_efficient_loading", ramEfficient);
  m_config.set("fsdp_config.fsdp_sync_module_states", ramEfficient ? true
                                                                   : askYesNo("Do you want each individually "
                                                                              "wrapped FSDP unit to broadcast "
                                                                              "module parameters from rank 0 "
                                                                              "at the start?",
                                                                              true));
  m_config.set("fsdp_config.fsdp_activation_checkpointing", askYesNo("Do you want to enable FSDP activation "
                                                                     "checkpointing?",
                                                                     false));
  return true;
}

void ConfigQuestionnaire::askMegatron() {
  if (!askYesNo("Do you want to use Megatron-LM ?", false)) {
    return;
  }
  m_config.set("distributed_type", std::string("MEGATRON_LM"));
  const auto tp = askInt("What is the Tensor Parallelism degree/size?", 1, 1);
  m_config.set("megatron_lm_config.megatron_lm_tp_degree", tp);
  if (tp > 1) {
    m_config.set("megatron_lm_config.megatron_lm_sequence_parallelism",
                 askYesNo("Do you want to enable Sequence Parallelism?", true));
  }
  const auto pp = askInt("What is the Pipeline Parallelism degree/size?", 1, 1);
  m_config.set("megatron_lm_config.megatron_lm_pp_degree", pp);
  if (pp > 1) {
    askKey("What is the number of micro-batches?", "megatron_lm_config.megatron_lm_num_micro_batches", "1");
  }
  m_config.set("megatron_lm_config.megatron_lm_recompute_activations",
               askYesNo("Do you want to enable selective activation recomputation?", true));
  m_config.set("megatron_lm_config.megatron_lm_use_distributed_optimizer",
               askYesNo("Do you want to use distributed optimizer which shards optimizer state and gradients across "
                        "data parallel ranks?",
                        true));
  askKey("What is the gradient clipping value based on global L2 Norm (0 to disable)?",
         "megatron_lm_config.megatron_lm_gradient_clipping", "1.0");
}

void ConfigQuestionnaire::askMixedPrecision(bool deepspeedJson) {
  if (deepspeedJson) {
    return;  // cluster.py: the DeepSpeed json config decides (mixed_precision stays None)
  }
  const std::vector<std::string> precisions = {"no", "fp16", "bf16", "fp8"};
  const auto choice = askChoice("Do you wish to use mixed precision?", precisions, 0);
  m_config.set("mixed_precision", precisions[choice]);
  if (choice == 3) {
    const std::vector<std::string> backends = {"TE", "MSAMP", "AO"};
    m_config.set("fp8_config.backend", backends[askChoice("Which FP8 backend do you want to use?", backends, 0)]);
  }
}

config::AccelerateConfig ConfigQuestionnaire::run() {
  m_config = {};
  m_config.set("compute_environment", std::string("LOCAL_MACHINE"));
  std::vector<std::string> labels;
  for (const auto& m : kMachineTypes) {
    labels.emplace_back(m.label);
  }
  const MachineType machine = kMachineTypes[askChoice("Which type of machine are you using?", labels, 0)];
  const std::string type = machine.distributedType;
  m_config.set("distributed_type", type);
  const bool multi = type != "NO" && type != "XLA";
  if (multi) {
    askMultiNode();
  }
  if (type == "NO") {
    m_config.set("use_cpu", askYesNo("Do you want to run your training on CPU only (even if a GPU / Apple Silicon / "
                                     "Ascend NPU device is available)?",
                                     false));
  } else if (type == "MULTI_CPU") {
    m_config.set("use_cpu", true);
    if (askYesNo("Do you want fathom to launch mpirun?", false)) {
      askKey("Please enter the path to the hostfile to use with mpirun", "mpirun_config.mpirun_hostfile", "~/hostfile");
    }
  }
  askDynamo();
  bool deepspeedJson = false;
  if (multi && type != "MULTI_CPU") {
    deepspeedJson = askDeepSpeed();
    if (m_config.distributedType() == type && !askFsdp() && type == "MULTI_GPU") {
      askMegatron();
    }
  }
  if (multi) {
    const bool accelerators = type != "MULTI_CPU";
    askKey(accelerators ? "How many GPU(s) should be used for distributed training?"
                        : "How many processes should be used for distributed training?",
           "num_processes", "1");
    if (accelerators) {
      askKey("What GPU(s) (by id) should be used for training on this machine as a comma-separated list?", "gpu_ids",
             "all");
    }
    if (type == "MULTI_GPU" || m_config.distributedType() != type) {
      m_config.set(
          "enable_cpu_affinity",
          askYesNo("Would you like to enable numa efficiency? (Currently only supported on NVIDIA hardware).", false));
    }
  } else {
    m_config.set("num_processes", std::int64_t{1});
  }
  askMixedPrecision(deepspeedJson);
  // Fathom's own section: what Accelerate passes as log_with in code.
  askKey("Which experiment trackers should runs log to? (comma-separated: sqlite, tensorboard, wandb, mlflow, ...; "
         "empty for none)",
         "fathom.trackers", "");
  m_config.fillAccelerateDefaults();
  return m_config;
}

}  // namespace fathom::cli
