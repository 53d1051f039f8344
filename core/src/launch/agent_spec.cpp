// SPDX-License-Identifier: Apache-2.0
#include <fathom/common/error.h>
#include <fathom/common/json_input.h>
#include <fathom/launch/agent_spec.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <limits>
#include <type_traits>

extern char** environ;

namespace fathom::launch {
namespace {

using nlohmann::json;

template <typename T> T field(const json& object, const char* key) {
  const auto it = object.find(key);
  FATHOM_CHECK(it != object.end(), ConfigError, "agent spec: missing key \"", key, "\"");
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    const std::optional<T> value = jsonInteger<T>(*it);
    FATHOM_CHECK(value.has_value(), ConfigError, "agent spec: key \"", key, "\" must be an integer from ",
                 std::to_string(std::numeric_limits<T>::min()), " to ", std::to_string(std::numeric_limits<T>::max()),
                 ", got ", quotedJson(*it));
    return *value;
  }
  try {
    return it->get<T>();
  } catch (const json::exception& e) {
    throw ConfigError(detail::concat("agent spec: key \"", key, "\" has the wrong type: ", e.what()));
  }
}

template <typename T> std::optional<T> optionalField(const json& object, const char* key) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) {
    return std::nullopt;
  }
  return field<T>(object, key);
}

template <typename T> json optional(const std::optional<T>& value) {
  return value ? json(*value) : json(nullptr);
}

}  // namespace

std::string toJson(const AgentSpec& spec) {
  const LaunchOptions& o = spec.options;
  json j;
  j["command"] = o.command;
  j["num_processes"] = o.numProcesses;
  j["num_machines"] = o.numMachines;
  j["machine_rank"] = o.machineRank;
  j["main_process_ip"] = o.mainProcessIp;
  j["main_process_port"] = o.mainProcessPort;
  j["mixed_precision"] = std::string(toString(o.mixedPrecision));
  j["gradient_accumulation_steps"] = optional(o.gradientAccumulationSteps);
  j["cpu"] = o.cpu;
  j["use_fsdp"] = o.useFsdp;
  j["use_deepspeed"] = o.useDeepSpeed;
  j["use_megatron_lm"] = o.useMegatronLm;
  j["fsdp"] = o.fsdp;
  j["zero_stage"] = optional(o.zeroStage);
  j["offload_optimizer_device"] = optional(o.offloadOptimizerDevice);
  j["offload_param_device"] = optional(o.offloadParamDevice);
  j["num_cpu_threads_per_process"] = optional(o.numCpuThreadsPerProcess);
  j["monitor_interval_ms"] = o.monitorInterval.count();
  j["tee"] = o.tee ? json(static_cast<int>(*o.tee)) : json(nullptr);
  j["log_dir"] = o.logDir.string();
  j["quiet"] = o.quiet;
  j["debug"] = o.debug;
  j["gpu_ids"] = o.gpuIds;
  j["fathom_variables"] = o.fathomVariables;
  j["terminate_grace_period_ms"] = o.terminateGracePeriod.count();
  j["tail_lines"] = o.tailLines;
  j["working_directory"] = spec.workingDirectory;
  j["environment"] = spec.environment;
  j["fathom_version"] = spec.fathomVersion;
  j["tunnel_socket"] = spec.tunnelSocket;
  return j.dump();
}

AgentSpec agentSpecFromJson(std::string_view text) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    throw ConfigError(detail::concat("agent spec: not JSON: ", e.what()));
  }
  FATHOM_CHECK(j.is_object(), ConfigError, "agent spec: expected a JSON object");
  AgentSpec spec;
  LaunchOptions& o = spec.options;
  o.command = field<std::vector<std::string>>(j, "command");
  o.numProcesses = field<int>(j, "num_processes");
  o.numMachines = field<int>(j, "num_machines");
  o.machineRank = field<int>(j, "machine_rank");
  o.mainProcessIp = field<std::string>(j, "main_process_ip");
  o.mainProcessPort = field<std::uint16_t>(j, "main_process_port");
  const auto precision = mixedPrecisionFromString(field<std::string>(j, "mixed_precision"));
  FATHOM_CHECK(precision.has_value(), ConfigError, "agent spec: unknown mixed_precision");
  o.mixedPrecision = *precision;
  o.gradientAccumulationSteps = optionalField<int>(j, "gradient_accumulation_steps");
  o.cpu = field<bool>(j, "cpu");
  o.useFsdp = field<bool>(j, "use_fsdp");
  o.useDeepSpeed = field<bool>(j, "use_deepspeed");
  o.useMegatronLm = field<bool>(j, "use_megatron_lm");
  o.fsdp = field<std::map<std::string, std::string>>(j, "fsdp");
  o.zeroStage = optionalField<int>(j, "zero_stage");
  o.offloadOptimizerDevice = optionalField<std::string>(j, "offload_optimizer_device");
  o.offloadParamDevice = optionalField<std::string>(j, "offload_param_device");
  o.numCpuThreadsPerProcess = optionalField<int>(j, "num_cpu_threads_per_process");
  o.monitorInterval = std::chrono::milliseconds(field<long long>(j, "monitor_interval_ms"));
  if (const auto tee = optionalField<int>(j, "tee")) {
    FATHOM_CHECK(*tee >= 0 && *tee <= 3, ConfigError, "agent spec: tee must be 0..3, got ", *tee);
    o.tee = static_cast<TeeStreams>(*tee);
  }
  o.logDir = field<std::string>(j, "log_dir");
  o.quiet = field<bool>(j, "quiet");
  o.debug = field<bool>(j, "debug");
  o.gpuIds = field<std::string>(j, "gpu_ids");
  o.fathomVariables = field<std::vector<std::pair<std::string, std::string>>>(j, "fathom_variables");
  o.terminateGracePeriod = std::chrono::milliseconds(field<long long>(j, "terminate_grace_period_ms"));
  o.tailLines = field<int>(j, "tail_lines");
  spec.workingDirectory = field<std::string>(j, "working_directory");
  spec.environment = field<std::vector<std::pair<std::string, std::string>>>(j, "environment");
  spec.fathomVersion = field<std::string>(j, "fathom_version");
  spec.tunnelSocket = field<std::string>(j, "tunnel_socket");
  validate(o);
  return spec;
}

std::optional<std::string> agentSpecVersion(std::string_view text) {
  const json j = json::parse(text, nullptr, false);
  if (!j.is_object()) {
    return std::nullopt;
  }
  const auto it = j.find("fathom_version");
  return it != j.end() && it->is_string() ? std::optional<std::string>(it->get<std::string>()) : std::nullopt;
}

std::vector<std::pair<std::string, std::string>> forwardedEnvironment() {
  static constexpr std::array kPrefixes{"FATHOM_", "NCCL_", "GLOO_", "TORCH_"};
  std::vector<std::pair<std::string, std::string>> result;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const auto equals = text.find('=');
    if (equals == std::string_view::npos) {
      continue;
    }
    const std::string_view name = text.substr(0, equals);
    const bool forwarded = name == "OMP_NUM_THREADS" || std::any_of(kPrefixes.begin(), kPrefixes.end(),
                                                                    [&](auto p) { return name.rfind(p, 0) == 0; });
    if (forwarded) {
      result.emplace_back(std::string(name), std::string(text.substr(equals + 1)));
    }
  }
  std::sort(result.begin(), result.end());
  return result;
}

}  // namespace fathom::launch
