// SPDX-License-Identifier: Apache-2.0
// toConfig(): a RunSpec written back as Accelerate's configuration, over the file it came from.
#include <fathom/config/run_spec.h>

namespace fathom::config {
namespace {

/// Sets or erases the keys the spec has a field for; every other key of the base stays as it is.
class Writer {
public:
  Writer(AccelerateConfig& config, const AccelerateConfig& base, DefaultKeys defaults)
      : m_config(config), m_base(base), m_defaults(defaults) {}

  void set(const std::string& path, const ConfigValue& value) { m_config.set(path, value, "the run specification"); }
  void erase(const std::string& path) { m_config.erase(path); }

  /// A top-level key with an Accelerate default: written unless it holds the default and DefaultKeys says so.
  void defaulted(const std::string& path, const ConfigValue& value, const ConfigValue& defaultValue) {
    if (value != defaultValue || m_defaults == DefaultKeys::Write || m_base.contains(path)) {
      set(path, value);
    } else {
      erase(path);
    }
  }

  template <typename T> void optional(const std::string& path, const std::optional<T>& value) {
    if (!value) {
      erase(path);
    } else if constexpr (std::is_same_v<T, int>) {
      set(path, std::int64_t{*value});
    } else {
      set(path, *value);
    }
  }

  template <typename E, std::size_t N>
  void choice(const std::string& path, const std::optional<E>& value, const NameTable<E, N>& table) {
    if (value) {
      set(path, std::string(table.toString(*value)));
    } else {
      erase(path);
    }
  }

  void strings(const std::string& path, const std::vector<std::string>& values) {
    if (values.empty()) {
      erase(path);
    } else {
      set(path, values);
    }
  }

  template <typename E, std::size_t N>
  void choices(const std::string& path, const std::vector<E>& values, const NameTable<E, N>& table) {
    std::vector<std::string> names;
    for (E value : values) {
      names.emplace_back(table.toString(value));
    }
    strings(path, names);
  }

private:
  AccelerateConfig& m_config;
  const AccelerateConfig& m_base;
  DefaultKeys m_defaults;
};

void writeTopLevel(Writer& w, const RunSpec& s, const AccelerateConfig& base) {
  w.set("distributed_type", std::string(kDistributedTypes.toString(s.distributedType)));
  // Accelerate's process_config: 1 for distributed_type NO, else -1 ("not set").
  w.defaulted("num_processes", std::int64_t{s.numProcesses.value_or(-1)},
              std::int64_t{s.distributedType == DistributedType::No ? 1 : -1});
  w.defaulted("num_machines", std::int64_t{s.numMachines}, std::int64_t{1});
  w.defaulted("machine_rank", std::int64_t{s.machineRank}, std::int64_t{0});
  w.optional("main_process_ip", s.mainProcessIp);
  w.optional("main_process_port", s.mainProcessPort);
  w.defaulted("use_cpu", s.useCpu, false);
  w.defaulted("debug", s.debug, false);
  w.optional("gpu_ids", s.gpuIds ? std::optional<std::string>(gpuIdsText(*s.gpuIds)) : std::nullopt);
  w.defaulted("mixed_precision", std::string(kMixedPrecisions.toString(s.mixedPrecision)), std::string("no"));
  // dynamo_config is a sub-dict: its backend is only written when it says something (or the file had it).
  if (s.dynamoBackend != DynamoBackend::No || base.contains("dynamo_config.dynamo_backend")) {
    w.set("dynamo_config.dynamo_backend", std::string(kDynamoBackends.toString(s.dynamoBackend)));
  }
  // Not a file key: emitConfig() leaves it out, but a configuration built in code keeps it.
  w.optional("gradient_accumulation_steps", s.gradientAccumulationSteps);
}

void writeFsdp(Writer& w, const FsdpSpec& f) {
  const std::string p = "fsdp_config.";
  w.optional(p + "fsdp_version", f.version);
  w.choice(p + "fsdp_sharding_strategy", f.shardingStrategy, kFsdpShardingStrategies);
  if (!f.reshardAfterForward) {
    w.erase(p + "fsdp_reshard_after_forward");
  } else if (const auto* b = std::get_if<bool>(&*f.reshardAfterForward)) {
    w.set(p + "fsdp_reshard_after_forward", *b);
  } else {
    w.set(p + "fsdp_reshard_after_forward",
          std::string(kFsdpShardingStrategies.toString(std::get<FsdpShardingStrategy>(*f.reshardAfterForward))));
  }
  w.optional(p + "fsdp_offload_params", f.offloadParams);
  w.choice(p + "fsdp_auto_wrap_policy", f.autoWrapPolicy, kFsdpWrapPolicies);
  w.optional(p + "fsdp_transformer_layer_cls_to_wrap", f.transformerLayerClsToWrap);
  w.optional(p + "fsdp_min_num_params", f.minNumParams);
  w.choice(p + "fsdp_backward_prefetch", f.backwardPrefetch, kFsdpBackwardPrefetches);
  w.choice(p + "fsdp_state_dict_type", f.stateDictType, kFsdpStateDictTypes);
  w.optional(p + "fsdp_forward_prefetch", f.forwardPrefetch);
  w.optional(p + "fsdp_use_orig_params", f.useOrigParams);
  w.optional(p + "fsdp_cpu_ram_efficient_loading", f.cpuRamEfficientLoading);
  w.optional(p + "fsdp_sync_module_states", f.syncModuleStates);
  w.optional(p + "fsdp_activation_checkpointing", f.activationCheckpointing);
}

void writeDeepSpeed(Writer& w, const DeepSpeedSpec& d) {
  const std::string p = "deepspeed_config.";
  w.optional(p + "deepspeed_config_file", d.configFile);
  if (d.zeroStage) {
    w.set(p + "zero_stage", std::int64_t{static_cast<int>(*d.zeroStage)});
  } else {
    w.erase(p + "zero_stage");
  }
  w.choice(p + "offload_optimizer_device", d.offloadOptimizerDevice, kOffloadDevices);
  w.choice(p + "offload_param_device", d.offloadParamDevice, kOffloadDevices);
  w.optional(p + "gradient_accumulation_steps", d.gradientAccumulationSteps);
  w.optional(p + "gradient_clipping", d.gradientClipping);
  w.optional(p + "zero3_init_flag", d.zero3InitFlag);
  w.optional(p + "zero3_save_16bit_model", d.zero3Save16bitModel);
}

void writeProfiler(Writer& w, const ProfilerSpec& q) {
  const std::string p = "fathom.profiler.";
  w.optional(p + "enabled", q.enabled);
  w.choices(p + "activities", q.activities, kProfilerActivities);
  w.optional(p + "record_shapes", q.recordShapes);
  w.optional(p + "profile_memory", q.profileMemory);
  w.optional(p + "with_stack", q.withStack);
  w.optional(p + "with_flops", q.withFlops);
  w.optional(p + "with_modules", q.withModules);
  w.optional(p + "schedule_skip_first", q.scheduleSkipFirst);
  w.optional(p + "schedule_wait", q.scheduleWait);
  w.optional(p + "schedule_warmup", q.scheduleWarmup);
  w.optional(p + "schedule_active", q.scheduleActive);
  w.optional(p + "schedule_repeat", q.scheduleRepeat);
  w.optional(p + "output_trace_dir", q.outputTraceDir);
}

void writePlanner(Writer& w, const PlannerSpec& q) {
  const std::string p = "fathom.planner.";
  w.optional(p + "model", q.model);
  w.optional(p + "hf_config", q.hfConfig);
  w.optional(p + "params", q.params);
  if (q.arch) {
    w.set(p + "arch", std::string(plan::archName(*q.arch)));
  } else {
    w.erase(p + "arch");
  }
  w.optional(p + "layers", q.layers);
  w.optional(p + "decoder_layers", q.decoderLayers);
  w.optional(p + "hidden", q.hidden);
  w.optional(p + "heads", q.heads);
  w.optional(p + "kv_heads", q.kvHeads);
  w.optional(p + "head_dim", q.headDim);
  w.optional(p + "ffn_hidden", q.ffnHidden);
  w.optional(p + "vocab", q.vocab);
  w.optional(p + "max_positions", q.maxPositions);
  w.optional(p + "num_experts", q.numExperts);
  w.optional(p + "experts_per_token", q.expertsPerToken);
  w.optional(p + "tied_embeddings", q.tiedEmbeddings);
  w.optional(p + "hardware", q.hardware);
  w.optional(p + "gpus_per_node", q.gpusPerNode);
  w.optional(p + "micro_batch", q.microBatch);
  w.optional(p + "seq", q.seq);
  w.optional(p + "gradient_accumulation_steps", q.gradientAccumulationSteps);
  w.choice(p + "master_weights", q.masterWeights, plan::kMasterWeights);
  w.choice(p + "optimizer", q.optimizer, plan::kOptimizers);
  w.choice(p + "recompute", q.recompute, plan::kRecomputes);
  w.optional(p + "flash_attention", q.flashAttention);
  w.choice(p + "bytes_convention", q.bytesConvention, plan::kBytesConventions);
  w.choice(p + "grad_sync", q.gradSync, plan::kGradSyncs);
}

void writeFathom(Writer& w, const FathomSpec& f) {
  w.strings("fathom.command", f.command);
  w.optional("fathom.workspace", f.workspace);
  w.choices("fathom.trackers", f.trackers, kTrackers);
  w.optional("fathom.project_dir", f.projectDir);
  w.optional("fathom.logging_dir", f.loggingDir);
  w.strings("fathom.hosts", f.hosts);
  w.optional("fathom.hostfile", f.hostfile);
  w.choice("fathom.launcher", f.launcher, kLaunchers);
  w.optional("fathom.ssh_user", f.sshUser);
  writeProfiler(w, f.profiler);
  writePlanner(w, f.planner);
}

}  // namespace

AccelerateConfig toConfig(const RunSpec& spec, const AccelerateConfig& base, DefaultKeys defaults) {
  AccelerateConfig config = base;
  Writer w(config, base, defaults);
  writeTopLevel(w, spec, base);
  writeFsdp(w, spec.fsdp);
  writeDeepSpeed(w, spec.deepspeed);
  writeFathom(w, spec.fathom);
  return config;
}

}  // namespace fathom::config
