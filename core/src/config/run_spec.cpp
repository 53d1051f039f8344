// SPDX-License-Identifier: Apache-2.0
// RunSpec from a configuration: the typed reading of every key Fathom acts on. toConfig() is in run_spec_writer.cpp.
#include <fathom/config/run_spec.h>

#include <fathom/common/error.h>
#include <fathom/config/config_schema.h>

#include <charconv>
#include <cstdlib>
#include <limits>

namespace fathom::config {
namespace {

/// Reads typed values out of a configuration whose values already passed the schema (so an enumeration holds a
/// canonical name and parse() cannot fail); `spec` supplies origins for the checks the schema cannot make.
class Reader {
public:
  Reader(const AccelerateConfig& config, const RunSpec& spec) : m_config(config), m_spec(spec) {}

  std::optional<bool> flag(std::string_view path) const { return m_config.getBool(path); }
  std::optional<std::string> text(std::string_view path) const { return m_config.getString(path); }
  std::optional<double> number(std::string_view path) const { return m_config.getDouble(path); }
  std::optional<std::int64_t> integer(std::string_view path) const { return m_config.getInt(path); }

  /// An Int key that must fit an int (counts, sizes, ports).
  std::optional<int> smallInteger(std::string_view path) const {
    const auto value = integer(path);
    if (!value) {
      return std::nullopt;
    }
    FATHOM_CHECK(*value >= std::numeric_limits<int>::min() && *value <= std::numeric_limits<int>::max(), ConfigError,
                 m_spec.originOf(path), ": key '", path, "': ", *value, " is out of range");
    return static_cast<int>(*value);
  }

  template <typename E, std::size_t N>
  std::optional<E> choice(std::string_view path, const NameTable<E, N>& table) const {
    const auto name = text(path);
    return name ? std::optional<E>(table.parse(*name)) : std::nullopt;
  }

  template <typename E, std::size_t N>
  std::vector<E> choices(std::string_view path, const NameTable<E, N>& table) const {
    std::vector<E> out;
    for (const std::string& name : strings(path)) {
      out.push_back(table.parse(name));
    }
    return out;
  }

  std::vector<std::string> strings(std::string_view path) const {
    const ConfigValue* value = m_config.find(path);
    return value != nullptr && std::holds_alternative<std::vector<std::string>>(*value)
               ? std::get<std::vector<std::string>>(*value)
               : std::vector<std::string>{};
  }

  const ConfigValue* value(std::string_view path) const { return m_config.find(path); }

private:
  const AccelerateConfig& m_config;
  const RunSpec& m_spec;
};

std::vector<int> parseGpuIds(const std::string& text, const std::string& origin) {
  std::vector<int> ids;
  std::string trimmed;
  for (char c : text) {
    if (c != ' ' && c != '\t') {
      trimmed += c;
    }
  }
  if (trimmed == "all" || trimmed.empty()) {
    return ids;
  }
  std::size_t start = 0;
  while (start <= trimmed.size()) {
    const std::size_t comma = std::min(trimmed.find(',', start), trimmed.size());
    int id = -1;
    const char* first = trimmed.data() + start;
    const char* last = trimmed.data() + comma;
    const auto [end, ec] = std::from_chars(first, last, id);
    FATHOM_CHECK(ec == std::errc() && end == last && first != last && id >= 0, ConfigError, origin,
                 ": key 'gpu_ids': '", text, "' is not `all` or a comma-separated list of device numbers (e.g. 0,1)");
    ids.push_back(id);
    start = comma + 1;
  }
  return ids;
}

void readTopLevel(const Reader& r, RunSpec& s) {
  s.distributedType = r.choice("distributed_type", kDistributedTypes).value_or(DistributedType::No);
  if (const auto n = r.smallInteger("num_processes")) {
    // -1 is Accelerate's "not set" (the launcher then runs one process); anything else below 1 is a mistake.
    FATHOM_CHECK(*n >= 1 || *n == -1, ConfigError, "num_processes must be >= 1, got ", *n, " (",
                 s.originOf("num_processes"), ")");
    s.numProcesses = *n == -1 ? std::nullopt : std::optional<int>(*n);
  } else {
    s.numProcesses = s.distributedType == DistributedType::No ? std::optional<int>(1) : std::nullopt;
  }
  s.numMachines = r.smallInteger("num_machines").value_or(1);
  s.machineRank = r.smallInteger("machine_rank").value_or(0);
  s.mainProcessIp = r.text("main_process_ip");
  s.mainProcessPort = r.smallInteger("main_process_port");
  s.useCpu = r.flag("use_cpu").value_or(false);
  s.debug = r.flag("debug").value_or(false);
  if (const auto ids = r.text("gpu_ids")) {
    s.gpuIds = parseGpuIds(*ids, s.originOf("gpu_ids"));
  }
  s.mixedPrecision = r.choice("mixed_precision", kMixedPrecisions).value_or(MixedPrecision::No);
  s.dynamoBackend = r.choice("dynamo_config.dynamo_backend", kDynamoBackends).value_or(DynamoBackend::No);
  if (const auto steps = r.smallInteger("gradient_accumulation_steps");
      steps && s.sourceOf("gradient_accumulation_steps") != ValueSource::Default) {
    s.gradientAccumulationSteps = steps;
  }
}

void readFsdp(const Reader& r, FsdpSpec& f) {
  const std::string p = "fsdp_config.";
  f.version = r.smallInteger(p + "fsdp_version");
  f.shardingStrategy = r.choice(p + "fsdp_sharding_strategy", kFsdpShardingStrategies);
  if (const ConfigValue* reshard = r.value(p + "fsdp_reshard_after_forward")) {
    if (const auto* b = std::get_if<bool>(reshard)) {
      f.reshardAfterForward = *b;
    } else {
      f.reshardAfterForward = kFsdpShardingStrategies.parse(std::get<std::string>(*reshard));
    }
  }
  f.offloadParams = r.flag(p + "fsdp_offload_params");
  f.autoWrapPolicy = r.choice(p + "fsdp_auto_wrap_policy", kFsdpWrapPolicies);
  f.transformerLayerClsToWrap = r.text(p + "fsdp_transformer_layer_cls_to_wrap");
  f.minNumParams = r.integer(p + "fsdp_min_num_params");
  f.backwardPrefetch = r.choice(p + "fsdp_backward_prefetch", kFsdpBackwardPrefetches);
  f.stateDictType = r.choice(p + "fsdp_state_dict_type", kFsdpStateDictTypes);
  f.forwardPrefetch = r.flag(p + "fsdp_forward_prefetch");
  f.useOrigParams = r.flag(p + "fsdp_use_orig_params");
  f.cpuRamEfficientLoading = r.flag(p + "fsdp_cpu_ram_efficient_loading");
  f.syncModuleStates = r.flag(p + "fsdp_sync_module_states");
  f.activationCheckpointing = r.flag(p + "fsdp_activation_checkpointing");
}

void readDeepSpeed(const Reader& r, DeepSpeedSpec& d) {
  const std::string p = "deepspeed_config.";
  d.configFile = r.text(p + "deepspeed_config_file");
  if (const auto stage = r.integer(p + "zero_stage")) {
    d.zeroStage = kZeroStages.parse(std::to_string(*stage));
  }
  d.offloadOptimizerDevice = r.choice(p + "offload_optimizer_device", kOffloadDevices);
  d.offloadParamDevice = r.choice(p + "offload_param_device", kOffloadDevices);
  d.gradientAccumulationSteps = r.smallInteger(p + "gradient_accumulation_steps");
  d.gradientClipping = r.number(p + "gradient_clipping");
  d.zero3InitFlag = r.flag(p + "zero3_init_flag");
  d.zero3Save16bitModel = r.flag(p + "zero3_save_16bit_model");
}

void readProfiler(const Reader& r, ProfilerSpec& q) {
  const std::string p = "fathom.profiler.";
  q.enabled = r.flag(p + "enabled");
  q.activities = r.choices(p + "activities", kProfilerActivities);
  q.recordShapes = r.flag(p + "record_shapes");
  q.profileMemory = r.flag(p + "profile_memory");
  q.withStack = r.flag(p + "with_stack");
  q.withFlops = r.flag(p + "with_flops");
  q.withModules = r.flag(p + "with_modules");
  q.scheduleSkipFirst = r.smallInteger(p + "schedule_skip_first");
  q.scheduleWait = r.smallInteger(p + "schedule_wait");
  q.scheduleWarmup = r.smallInteger(p + "schedule_warmup");
  q.scheduleActive = r.smallInteger(p + "schedule_active");
  q.scheduleRepeat = r.smallInteger(p + "schedule_repeat");
  q.outputTraceDir = r.text(p + "output_trace_dir");
}

void readPlanner(const Reader& r, PlannerSpec& q) {
  const std::string p = "fathom.planner.";
  q.model = r.text(p + "model");
  q.hfConfig = r.text(p + "hf_config");
  q.params = r.number(p + "params");
  if (const auto arch = r.text(p + "arch")) {
    q.arch = plan::parseArch(*arch);
  }
  q.layers = r.integer(p + "layers");
  q.decoderLayers = r.integer(p + "decoder_layers");
  q.hidden = r.integer(p + "hidden");
  q.heads = r.integer(p + "heads");
  q.kvHeads = r.integer(p + "kv_heads");
  q.headDim = r.integer(p + "head_dim");
  q.ffnHidden = r.integer(p + "ffn_hidden");
  q.vocab = r.integer(p + "vocab");
  q.maxPositions = r.integer(p + "max_positions");
  q.numExperts = r.integer(p + "num_experts");
  q.expertsPerToken = r.integer(p + "experts_per_token");
  q.tiedEmbeddings = r.flag(p + "tied_embeddings");
  q.hardware = r.text(p + "hardware");
  q.gpusPerNode = r.smallInteger(p + "gpus_per_node");
  q.microBatch = r.smallInteger(p + "micro_batch");
  q.seq = r.integer(p + "seq");
  q.gradientAccumulationSteps = r.smallInteger(p + "gradient_accumulation_steps");
  q.masterWeights = r.choice(p + "master_weights", plan::kMasterWeights);
  q.optimizer = r.choice(p + "optimizer", plan::kOptimizers);
  q.recompute = r.choice(p + "recompute", plan::kRecomputes);
  q.flashAttention = r.flag(p + "flash_attention");
  q.bytesConvention = r.choice(p + "bytes_convention", plan::kBytesConventions);
  q.gradSync = r.choice(p + "grad_sync", plan::kGradSyncs);
}

void readFathom(const Reader& r, FathomSpec& f) {
  f.command = r.strings("fathom.command");
  f.workspace = r.text("fathom.workspace");
  f.trackers = r.choices("fathom.trackers", kTrackers);
  f.projectDir = r.text("fathom.project_dir");
  f.loggingDir = r.text("fathom.logging_dir");
  f.hosts = r.strings("fathom.hosts");
  f.hostfile = r.text("fathom.hostfile");
  f.launcher = r.choice("fathom.launcher", kLaunchers);
  f.sshUser = r.text("fathom.ssh_user");
  readProfiler(r, f.profiler);
  readPlanner(r, f.planner);
}

void read(const AccelerateConfig& config, RunSpec& spec) {
  const Reader r(config, spec);
  readTopLevel(r, spec);
  readFsdp(r, spec.fsdp);
  readDeepSpeed(r, spec.deepspeed);
  readFathom(r, spec.fathom);
  if (spec.dynamoBackend != DynamoBackend::No) {
    spec.notes.push_back(detail::concat("dynamo_config.dynamo_backend ", kDynamoBackends.toString(spec.dynamoBackend),
                                        " (", spec.originOf("dynamo_config.dynamo_backend"),
                                        ") is ignored: LibTorch's C++ API has no torch.compile, so Fathom runs the "
                                        "model eagerly"));
  }
}

}  // namespace

FsdpShardingStrategy FsdpSpec::effectiveShardingStrategy() const {
  const FsdpShardingStrategy strategy = shardingStrategy.value_or(FsdpShardingStrategy::FullShard);
  if (reshardAfterForward && std::holds_alternative<bool>(*reshardAfterForward) &&
      !std::get<bool>(*reshardAfterForward) && strategy == FsdpShardingStrategy::FullShard) {
    return FsdpShardingStrategy::ShardGradOp;
  }
  return strategy;
}

std::string RunSpec::originOf(std::string_view path) const {
  const auto it = provenance.find(path);
  return it == provenance.end() ? std::string(path) : it->second.origin;
}

ValueSource RunSpec::sourceOf(std::string_view path) const {
  const auto it = provenance.find(path);
  return it == provenance.end() ? ValueSource::Code : it->second.source;
}

bool RunSpec::operator==(const RunSpec& o) const {
  return distributedType == o.distributedType && numProcesses == o.numProcesses && numMachines == o.numMachines &&
         machineRank == o.machineRank && mainProcessIp == o.mainProcessIp && mainProcessPort == o.mainProcessPort &&
         useCpu == o.useCpu && debug == o.debug && gpuIds == o.gpuIds && mixedPrecision == o.mixedPrecision &&
         dynamoBackend == o.dynamoBackend && gradientAccumulationSteps == o.gradientAccumulationSteps &&
         fsdp == o.fsdp && deepspeed == o.deepspeed && fathom == o.fathom;
}

RunSpec runSpecFromConfig(const EffectiveConfig& effective) {
  RunSpec spec;
  for (const auto& [path, value] : effective.values) {
    spec.provenance.emplace(path, value);
  }
  spec.notes = effective.notes;
  if (effective.configFile) {
    spec.fileDirectory = effective.configFile->parent_path();
  }
  read(effective.config, spec);
  return spec;
}

RunSpec runSpecFromConfig(const AccelerateConfig& config) {
  RunSpec spec;
  read(config, spec);
  return spec;
}

FathomSpec workerSettingsFromEnvironment(std::optional<std::map<std::string, std::string>> environment) {
  ResolveInputs inputs;
  inputs.useDefaultConfigFile = false;
  inputs.environment.emplace();
  for (const KeySpec& key : allKeys()) {
    const std::string path = key.path();
    const bool worker = path == "fathom.trackers" || path == "fathom.project_dir" || path == "fathom.logging_dir" ||
                        key.section == "fathom.profiler";
    if (!worker) {
      continue;
    }
    for (const std::string& name : environmentNamesFor(path)) {
      if (environment) {
        if (auto it = environment->find(name); it != environment->end()) {
          inputs.environment->insert(*it);
        }
      } else if (const char* value = std::getenv(name.c_str())) {
        inputs.environment->emplace(name, value);
      }
    }
  }
  return runSpecFromConfig(resolveConfig(inputs)).fathom;
}

std::string gpuIdsText(const std::vector<int>& ids) {
  if (ids.empty()) {
    return "all";
  }
  std::string out;
  for (int id : ids) {
    out += out.empty() ? "" : ",";
    out += std::to_string(id);
  }
  return out;
}

}  // namespace fathom::config
