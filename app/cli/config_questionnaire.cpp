// SPDX-License-Identifier: Apache-2.0
// Question texts follow accelerate/commands/config/cluster.py so that answers scripted for `accelerate config`
// read the same here (for the questions Fathom asks; see the class comment for those it leaves out).
#include "config_questionnaire.h"

#include <fathom/common/checked_number.h>
#include <fathom/common/error.h>
#include <fathom/config/config_schema.h>
#include <fathom/config/input_limits.h>

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

using Options = std::vector<std::pair<std::string, std::string>>;

/// The values of `table` Fathom runs that `keep` accepts, as (name, help) options.
template <typename E, std::size_t N, typename Keep>
std::pair<Options, std::vector<E>> offered(const NameTable<E, N>& table, Keep keep) {
  Options options;
  std::vector<E> values;
  for (const auto& entry : table.entries()) {
    if (entry.supported && keep(entry.value)) {
      options.emplace_back(entry.name, entry.help);
      values.push_back(entry.value);
    }
  }
  return {options, values};
}

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

std::int64_t ConfigQuestionnaire::askInt(const std::string& question, std::int64_t defaultAnswer, std::int64_t minimum,
                                         std::int64_t maximum) {
  for (;;) {
    const std::string answer = ask(question, std::to_string(defaultAnswer));
    try {
      std::size_t used = 0;
      const long long v = std::stoll(answer, &used);
      if (used == answer.size() && v >= minimum && v <= maximum) {
        return v;
      }
    } catch (const std::exception&) {
    }
    m_out << "Please enter an integer from " << minimum << " to " << maximum << ".\n";
  }
}

std::size_t ConfigQuestionnaire::askChoice(const std::string& question, const Options& options,
                                           std::size_t defaultIndex) {
  m_out << question << '\n';
  for (std::size_t i = 0; i < options.size(); ++i) {
    m_out << "  [" << i << "] " << options[i].first
          << (options[i].second.empty() ? "" : "  (" + options[i].second + ")") << '\n';
  }
  for (;;) {
    const std::string answer = ask("Your choice (name or number)", std::to_string(defaultIndex));
    // A name first ("2" is FSDP version 2, not the option numbered 2), then a number.
    for (std::size_t i = 0; i < options.size(); ++i) {
      if (answer == options[i].first) {
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

template <typename E, std::size_t N>
E ConfigQuestionnaire::askValue(const std::string& question, const NameTable<E, N>& table, E defaultValue) {
  const auto [options, values] = offered(table, [](E) { return true; });
  std::size_t defaultIndex = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    defaultIndex = values[i] == defaultValue ? i : defaultIndex;
  }
  return values[askChoice(question, options, defaultIndex)];
}

std::optional<config::RunSpec> ConfigQuestionnaire::askKey(const std::string& question, const std::string& path,
                                                           const std::string& defaultAnswer,
                                                           const std::function<void(const config::RunSpec&)>& check) {
  for (;;) {
    const std::string answer = ask(question, defaultAnswer);
    if (answer.empty()) {
      return std::nullopt;  // no default and nothing typed: leave unset
    }
    try {
      config::AccelerateConfig scratch;
      scratch.setText(path, answer, "answer");
      const config::RunSpec one = config::runSpecFromConfig(scratch);
      if (check) {
        check(one);
      }
      return one;
    } catch (const ConfigError& e) {
      m_out << e.what() << '\n';
      if (answer == defaultAnswer) {
        return std::nullopt;  // never loop on a default that is refused
      }
    }
  }
}

void ConfigQuestionnaire::askMultiNode() {
  // Asked within the key's range, so the narrowing below cannot fail (4294967298 machines used to become 2).
  m_spec.numMachines =
      checkedNarrow<int>(askInt("How many different machines will you use (use more than 1 for multi-node training)?",
                                1, 1, config::kMaxMachines),
                         "num_machines");
  if (m_spec.numMachines > 1) {
    if (const auto a = askKey("What is the rank of this machine?", "machine_rank", "0")) {
      m_spec.machineRank = a->machineRank;
    }
    if (const auto a =
            askKey("What is the IP address of the machine that will host the main process?", "main_process_ip", "")) {
      m_spec.mainProcessIp = a->mainProcessIp;
    }
    if (const auto a = askKey("What is the port you will use to communicate with the main process?",
                              "main_process_port", "29500")) {
      m_spec.mainProcessPort = a->mainProcessPort;
    }
  }
  m_spec.debug = askYesNo("Should distributed operations be checked while running for errors? This can avoid timeout "
                          "issues but will be slower.",
                          false);
}

bool ConfigQuestionnaire::askDeepSpeed() {
  if (!askYesNo("Do you want to use DeepSpeed?", false)) {
    return false;
  }
  config::DeepSpeedSpec& d = m_spec.deepspeed;
  m_spec.distributedType = config::DistributedType::DeepSpeed;
  const config::ZeroStage stage = askValue("What should be your DeepSpeed's ZeRO optimization stage?",
                                           config::kZeroStages, config::ZeroStage::Gradients);
  d.zeroStage = stage;
  d.offloadOptimizerDevice =
      askValue("Where to offload optimizer states?", config::kOffloadDevices, config::OffloadDevice::None);
  if (stage == config::ZeroStage::Parameters) {
    d.offloadParamDevice =
        askValue("Where to offload parameters?", config::kOffloadDevices, config::OffloadDevice::None);
  }
  if (const auto a = askKey("How many gradient accumulation steps you're passing in your script?",
                            "deepspeed_config.gradient_accumulation_steps", "1")) {
    d.gradientAccumulationSteps = a->deepspeed.gradientAccumulationSteps;
  }
  return true;
}

bool ConfigQuestionnaire::askFsdp() {
  if (!askYesNo("Do you want to use FullyShardedDataParallel?", false)) {
    return false;
  }
  config::FsdpSpec& f = m_spec.fsdp;
  m_spec.distributedType = config::DistributedType::Fsdp;
  const int version = static_cast<int>(askChoice("What should be your FSDP version?", {{"1", ""}, {"2", ""}}, 1)) + 1;
  f.version = version;
  if (version == 2) {
    f.reshardAfterForward = askYesNo("Do you want to enable resharding after forward?", true);
  } else {
    // Written as fsdp_sharding_strategy, the key `fathom launch` passes on (FSDP_SHARDING_STRATEGY).
    f.shardingStrategy = askValue("What should be your sharding strategy?", config::kFsdpShardingStrategies,
                                  config::FsdpShardingStrategy::FullShard);
  }
  f.offloadParams = askYesNo("Do you want to offload parameters and gradients to CPU?", false);
  const config::FsdpWrapPolicy policy = askValue("What should be your auto wrap policy?", config::kFsdpWrapPolicies,
                                                 config::FsdpWrapPolicy::TransformerBased);
  f.autoWrapPolicy = policy;
  if (policy == config::FsdpWrapPolicy::TransformerBased) {
    if (const auto a = askKey("Specify the comma-separated list of transformer layer class names (case-sensitive) to "
                              "wrap, e.g. `BertLayer`, `GPTJBlock`, `T5Block` (empty: the model's own block type)",
                              "fsdp_config.fsdp_transformer_layer_cls_to_wrap", "")) {
      f.transformerLayerClsToWrap = a->fsdp.transformerLayerClsToWrap;
    }
  } else if (policy == config::FsdpWrapPolicy::SizeBased) {
    if (const auto a = askKey("What should be your FSDP's minimum number of parameters for Default Auto Wrapping?",
                              "fsdp_config.fsdp_min_num_params", "100000000")) {
      f.minNumParams = a->fsdp.minNumParams;
    }
  }
  if (version == 1) {
    f.backwardPrefetch = askValue("What should be your FSDP's backward prefetch policy?",
                                  config::kFsdpBackwardPrefetches, config::FsdpBackwardPrefetch::BackwardPre);
  }
  f.stateDictType =
      askValue("What should be your FSDP's state dict type?", config::kFsdpStateDictTypes,
               version == 1 ? config::FsdpStateDictType::FullStateDict : config::FsdpStateDictType::ShardedStateDict);
  if (version == 1) {
    f.forwardPrefetch = askYesNo("Do you want to enable FSDP's forward prefetch policy?", false);
  }
  f.syncModuleStates = askYesNo("Do you want each individually wrapped FSDP unit to broadcast module parameters from "
                                "rank 0 at the start?",
                                true);
  return true;
}

void ConfigQuestionnaire::askMixedPrecision() {
  m_spec.mixedPrecision =
      askValue("Do you wish to use mixed precision?", config::kMixedPrecisions, config::MixedPrecision::No);
}

config::RunSpec ConfigQuestionnaire::run() {
  m_spec = {};
  using config::DistributedType;
  // The machine; FSDP and DeepSpeed are asked for below, as Accelerate does.
  const auto [machines, types] = offered(config::kDistributedTypes, [](DistributedType t) {
    return t != DistributedType::Fsdp && t != DistributedType::DeepSpeed;
  });
  const DistributedType type = types[askChoice("Which type of machine are you using?", machines, 0)];
  m_spec.distributedType = type;
  const bool multi = type != DistributedType::No;
  if (multi) {
    askMultiNode();
  }
  if (type == DistributedType::No) {
    m_spec.useCpu = askYesNo("Do you want to run your training on CPU only (even if a GPU is available)?", false);
  } else if (type == DistributedType::MultiCpu) {
    m_spec.useCpu = true;
  }
  if (type == DistributedType::MultiGpu && !askDeepSpeed()) {
    askFsdp();
  }
  if (multi) {
    const bool accelerators = type != DistributedType::MultiCpu;
    if (const auto a = askKey(accelerators ? "How many GPU(s) should be used for distributed training?"
                                           : "How many processes should be used for distributed training?",
                              "num_processes", "1")) {
      m_spec.numProcesses = a->numProcesses;
    }
    if (accelerators) {
      if (const auto a = askKey("What GPU(s) (by id) should be used for training on this machine as a comma-separated "
                                "list? (CUDA_VISIBLE_DEVICES of every process)",
                                "gpu_ids", "all")) {
        m_spec.gpuIds = a->gpuIds;
      }
    }
  } else {
    m_spec.numProcesses = 1;
  }
  askMixedPrecision();
  // Fathom's own section: what Accelerate passes as log_with in code. Only the trackers Fathom implements.
  if (const auto a = askKey("Which experiment trackers should runs log to? (comma-separated: " +
                                decltype(config::kTrackers)::joined(config::kTrackers.supportedNames(), ", ") +
                                "; empty for none)",
                            "fathom.trackers", "", [](const config::RunSpec& one) {
                              for (config::Tracker t : one.fathom.trackers) {
                                config::kTrackers.requireSupported(t, "answer");
                              }
                            })) {
    m_spec.fathom.trackers = a->fathom.trackers;
  }
  return m_spec;
}

}  // namespace fathom::cli
