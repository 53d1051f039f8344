// SPDX-License-Identifier: Apache-2.0
#include <fathom/launch/launch_config.h>

#include <fathom/common/error.h>
#include <fathom/config/config_schema.h>
#include <fathom/config/config_writer.h>

#include <variant>

namespace fathom::launch {
namespace {

std::string boolText(bool b) {
  return b ? "true" : "false";
}

/// The --fsdp_* values the spec sets, as the launcher passes them (booleans lower-case, enums by name).
std::map<std::string, std::string> fsdpValues(const config::FsdpSpec& f) {
  std::map<std::string, std::string> out;
  auto flag = [&out](const char* key, const std::optional<bool>& value) {
    if (value) {
      out[key] = boolText(*value);
    }
  };
  if (f.version) {
    out["fsdp_version"] = std::to_string(*f.version);
  }
  if (f.shardingStrategy) {
    out["fsdp_sharding_strategy"] = config::kFsdpShardingStrategies.toString(*f.shardingStrategy);
  }
  if (f.reshardAfterForward) {
    const auto* b = std::get_if<bool>(&*f.reshardAfterForward);
    out["fsdp_reshard_after_forward"] = b != nullptr
                                            ? boolText(*b)
                                            : std::string(config::kFsdpShardingStrategies.toString(
                                                  std::get<config::FsdpShardingStrategy>(*f.reshardAfterForward)));
  }
  flag("fsdp_offload_params", f.offloadParams);
  if (f.minNumParams) {
    out["fsdp_min_num_params"] = std::to_string(*f.minNumParams);
  }
  if (f.autoWrapPolicy) {
    out["fsdp_auto_wrap_policy"] = config::kFsdpWrapPolicies.toString(*f.autoWrapPolicy);
  }
  if (f.transformerLayerClsToWrap) {
    out["fsdp_transformer_layer_cls_to_wrap"] = *f.transformerLayerClsToWrap;
  }
  if (f.backwardPrefetch) {
    out["fsdp_backward_prefetch"] = config::kFsdpBackwardPrefetches.toString(*f.backwardPrefetch);
  }
  if (f.stateDictType) {
    out["fsdp_state_dict_type"] = config::kFsdpStateDictTypes.toString(*f.stateDictType);
  }
  flag("fsdp_forward_prefetch", f.forwardPrefetch);
  flag("fsdp_use_orig_params", f.useOrigParams);
  flag("fsdp_cpu_ram_efficient_loading", f.cpuRamEfficientLoading);
  flag("fsdp_sync_module_states", f.syncModuleStates);
  flag("fsdp_activation_checkpointing", f.activationCheckpointing);
  return out;
}

/// The `fathom` section's settings for `fathom train`, as the FATHOM_* variables resolveConfig() reads.
std::vector<std::pair<std::string, std::string>> fathomVariables(const config::RunSpec& spec) {
  std::vector<std::pair<std::string, std::string>> out;
  auto add = [&out](const char* path, std::string value) {
    out.emplace_back(config::fathomEnvironmentName(*config::findKey(path)), std::move(value));
  };
  const config::FathomSpec& f = spec.fathom;
  if (!f.trackers.empty()) {
    std::string names;
    for (config::Tracker t : f.trackers) {
      config::kTrackers.requireSupported(t, "fathom.trackers (" + spec.originOf("fathom.trackers") + ")");
      names += names.empty() ? "" : ",";
      names += config::kTrackers.toString(t);
    }
    add("fathom.trackers", names);
  }
  if (f.projectDir) {
    add("fathom.project_dir", *f.projectDir);
  }
  if (f.loggingDir) {
    add("fathom.logging_dir", *f.loggingDir);
  }
  const config::ProfilerSpec& p = f.profiler;
  auto flag = [&add](const char* path, const std::optional<bool>& value) {
    if (value) {
      add(path, boolText(*value));
    }
  };
  auto count = [&add](const char* path, const std::optional<int>& value) {
    if (value) {
      add(path, std::to_string(*value));
    }
  };
  flag("fathom.profiler.enabled", p.enabled);
  if (!p.activities.empty()) {
    std::string names;
    for (config::ProfilerActivity a : p.activities) {
      names += names.empty() ? "" : ",";
      names += config::kProfilerActivities.toString(a);
    }
    add("fathom.profiler.activities", names);
  }
  flag("fathom.profiler.record_shapes", p.recordShapes);
  flag("fathom.profiler.profile_memory", p.profileMemory);
  flag("fathom.profiler.with_stack", p.withStack);
  flag("fathom.profiler.with_flops", p.withFlops);
  flag("fathom.profiler.with_modules", p.withModules);
  count("fathom.profiler.schedule_skip_first", p.scheduleSkipFirst);
  count("fathom.profiler.schedule_wait", p.scheduleWait);
  count("fathom.profiler.schedule_warmup", p.scheduleWarmup);
  count("fathom.profiler.schedule_active", p.scheduleActive);
  count("fathom.profiler.schedule_repeat", p.scheduleRepeat);
  if (p.outputTraceDir) {
    add("fathom.profiler.output_trace_dir", *p.outputTraceDir);
  }
  return out;
}

}  // namespace

LaunchOptions launchOptionsFromRunSpec(const config::RunSpec& spec) {
  using config::DistributedType;
  LaunchOptions o;
  o.numProcesses = spec.numProcesses.value_or(1);
  o.numMachines = spec.numMachines;
  o.machineRank = spec.machineRank;
  o.mainProcessIp = spec.mainProcessIp.value_or("");
  if (spec.mainProcessPort) {
    FATHOM_CHECK(*spec.mainProcessPort >= 0 && *spec.mainProcessPort <= 65535, ConfigError,
                 "main_process_port must be a port number, got ", *spec.mainProcessPort);
    o.mainProcessPort = static_cast<std::uint16_t>(*spec.mainProcessPort);
  }
  o.mixedPrecision = spec.mixedPrecision;
  o.cpu = spec.useCpu;
  o.debug = spec.debug;
  o.gpuIds = spec.gpuIds && !spec.gpuIds->empty() ? config::gpuIdsText(*spec.gpuIds) : std::string();
  FATHOM_CHECK(spec.dynamoBackend == config::DynamoBackend::No ||
                   spec.sourceOf("dynamo_config.dynamo_backend") != config::ValueSource::CommandLine,
               ConfigError, "--dynamo_backend ", config::kDynamoBackends.toString(spec.dynamoBackend),
               ": LibTorch's C++ API has no torch.compile, so Fathom runs every model eagerly; leave the flag out (or "
               "pass --dynamo_backend no)");

  const DistributedType type = spec.distributedType;
  FATHOM_CHECK(
      type == DistributedType::No || type == DistributedType::MultiCpu || type == DistributedType::MultiGpu ||
          type == DistributedType::Fsdp || type == DistributedType::DeepSpeed || type == DistributedType::MegatronLm,
      ConfigError, "distributed_type ", config::kDistributedTypes.toString(type),
      " is not supported by fathom launch (supported: NO, MULTI_CPU, MULTI_GPU, FSDP, DEEPSPEED, MEGATRON_LM)");
  // As accelerate launch: with use_cpu the simple launcher runs, whatever the distributed type says.
  o.useFsdp = !o.cpu && type == DistributedType::Fsdp;
  o.useDeepSpeed = !o.cpu && type == DistributedType::DeepSpeed;
  o.useMegatronLm = !o.cpu && type == DistributedType::MegatronLm;
  o.fsdp = fsdpValues(spec.fsdp);
  const config::DeepSpeedSpec& ds = spec.deepspeed;
  if (ds.zeroStage) {
    o.zeroStage = static_cast<int>(*ds.zeroStage);
  }
  if (ds.offloadOptimizerDevice) {
    o.offloadOptimizerDevice = config::kOffloadDevices.toString(*ds.offloadOptimizerDevice);
  }
  if (ds.offloadParamDevice) {
    o.offloadParamDevice = config::kOffloadDevices.toString(*ds.offloadParamDevice);
  }
  if (spec.gradientAccumulationSteps) {
    o.gradientAccumulationSteps = spec.gradientAccumulationSteps;
  } else if (ds.gradientAccumulationSteps && o.useDeepSpeed) {
    o.gradientAccumulationSteps = ds.gradientAccumulationSteps;
  }
  o.fathomVariables = fathomVariables(spec);
  o.runSpec = recordedRunSpec(spec);
  return o;
}

std::string recordedRunSpec(const config::RunSpec& spec) {
  return config::emitConfig(config::toConfig(spec, {}, config::DefaultKeys::Write));
}

void setMultiNodeTopology(LaunchOptions& options, config::RunSpec spec, int machines) {
  spec.numMachines = machines;
  spec.machineRank = 0;
  spec.numProcesses = options.numProcesses;
  options.runSpec = recordedRunSpec(spec);
}

std::vector<HostSlots> hostsFromRunSpec(const config::RunSpec& spec) {
  const config::FathomSpec& f = spec.fathom;
  if (f.hosts.empty()) {
    return f.hostfile ? readHostfile(*f.hostfile) : std::vector<HostSlots>{};
  }
  std::vector<HostSlots> hosts;
  for (const std::string& name : f.hosts) {
    const bool withUser = f.sshUser && !f.sshUser->empty() && name.find('@') == std::string::npos;
    HostSlots host{withUser ? *f.sshUser + "@" + name : name, 0};
    validateHostName(host.host, "fathom.hosts");
    hosts.push_back(std::move(host));
  }
  return hosts;
}

}  // namespace fathom::launch
