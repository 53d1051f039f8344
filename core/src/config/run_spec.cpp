// SPDX-License-Identifier: Apache-2.0
// RunSpec <-> configuration. Every key the spec has a field for is bound once (fields() below) and that one binding
// both reads the key into the field and writes the field back, so reading and writing cannot drift apart.
#include <fathom/config/run_spec.h>

#include <fathom/common/checked_number.h>
#include <fathom/common/error.h>
#include <fathom/config/config_schema.h>

#include <charconv>
#include <cstdlib>
#include <functional>
#include <limits>
#include <type_traits>

namespace fathom::config {
namespace {

/// One key of the file and the RunSpec field that holds it. read() runs on a configuration that passed the schema
/// (so the ConfigValue has the key's type and an enumeration its canonical name); write() sets the key from the
/// field, or erases it when the field is unset.
struct Field {
  std::string path;
  std::function<void(const ConfigValue&, RunSpec&)> read;
  std::function<void(AccelerateConfig&, const RunSpec&)> write;
};

void setKey(AccelerateConfig& c, const std::string& path, const ConfigValue& value) {
  c.set(path, value, "the run specification");
}

/// An Int key held as int (counts, sizes, ports). The schema bounds every Int key to int's range unless it says
/// otherwise, so this only fails for a configuration built in code; it names the key and its origin all the same.
int narrow(const ConfigValue& value, const RunSpec& s, const std::string& path) {
  return checkedNarrow<int>(std::get<std::int64_t>(value), detail::concat(s.originOf(path), ": key '", path, "'"));
}

/// A field of a type the configuration stores as is: std::optional of bool, int, int64, double or string, or a
/// list of strings. `access` returns the field of a (const or not) RunSpec.
template <typename Access> Field field(std::string path, Access access) {
  using Member = std::remove_cvref_t<decltype(access(std::declval<RunSpec&>()))>;
  Field f{path, {}, {}};
  f.read = [path, access](const ConfigValue& v, RunSpec& s) {
    if constexpr (std::is_same_v<Member, std::optional<int>>) {
      access(s) = narrow(v, s, path);
    } else if constexpr (std::is_same_v<Member, std::vector<std::string>>) {
      access(s) = std::get<Member>(v);
    } else {
      access(s) = std::get<typename Member::value_type>(v);
    }
  };
  f.write = [path, access](AccelerateConfig& c, const RunSpec& s) {
    const Member& m = access(s);
    if constexpr (std::is_same_v<Member, std::vector<std::string>>) {
      m.empty() ? void(c.erase(path)) : setKey(c, path, m);
    } else if constexpr (std::is_same_v<Member, std::optional<int>>) {
      m ? setKey(c, path, std::int64_t{*m}) : void(c.erase(path));
    } else {
      m ? setKey(c, path, *m) : void(c.erase(path));
    }
  };
  return f;
}

/// A std::optional field whose value the file spells differently: `decode` turns the key's ConfigValue into the
/// field's value, `encode` the reverse.
template <typename Access, typename Decode, typename Encode>
Field converted(std::string path, Access access, Decode decode, Encode encode) {
  Field f{path, {}, {}};
  f.read = [access, decode](const ConfigValue& v, RunSpec& s) { access(s) = decode(v); };
  f.write = [path, access, encode](AccelerateConfig& c, const RunSpec& s) {
    const auto& m = access(s);
    m ? setKey(c, path, encode(*m)) : void(c.erase(path));
  };
  return f;
}

/// A field that is one value of `table`.
template <typename Access, typename E, std::size_t N>
Field choice(std::string path, Access access, const NameTable<E, N>& table) {
  return converted(
      std::move(path), access, [&table](const ConfigValue& v) { return table.parse(std::get<std::string>(v)); },
      [&table](E value) { return ConfigValue(std::string(table.toString(value))); });
}

/// A field that is a list of values of `table`.
template <typename Access, typename E, std::size_t N>
Field choices(std::string path, Access access, const NameTable<E, N>& table) {
  Field f{path, {}, {}};
  f.read = [access, &table](const ConfigValue& v, RunSpec& s) {
    for (const std::string& name : std::get<std::vector<std::string>>(v)) {
      access(s).push_back(table.parse(name));
    }
  };
  f.write = [path, access, &table](AccelerateConfig& c, const RunSpec& s) {
    std::vector<std::string> names;
    for (E value : access(s)) {
      names.emplace_back(table.toString(value));
    }
    names.empty() ? void(c.erase(path)) : setKey(c, path, names);
  };
  return f;
}

/// fsdp_reshard_after_forward: FSDP2's bool or, as Accelerate's questionnaire writes it for FSDP1, a strategy.
std::variant<bool, FsdpShardingStrategy> decodeReshard(const ConfigValue& v) {
  if (const auto* b = std::get_if<bool>(&v)) {
    return *b;
  }
  return kFsdpShardingStrategies.parse(std::get<std::string>(v));
}

ConfigValue encodeReshard(const std::variant<bool, FsdpShardingStrategy>& r) {
  if (const auto* b = std::get_if<bool>(&r)) {
    return *b;
  }
  return std::string(kFsdpShardingStrategies.toString(std::get<FsdpShardingStrategy>(r)));
}

/// zero_stage: an integer in the file, a ZeroStage in the spec.
ZeroStage decodeZeroStage(const ConfigValue& v) {
  return kZeroStages.parse(std::to_string(std::get<std::int64_t>(v)));
}

ConfigValue encodeZeroStage(ZeroStage stage) {
  return std::int64_t{static_cast<int>(stage)};
}

/// fathom.planner.arch: the model's family (plan::parseArch, plan::archName).
plan::Arch decodeArch(const ConfigValue& v) {
  return plan::parseArch(std::get<std::string>(v));
}

ConfigValue encodeArch(plan::Arch arch) {
  return std::string(plan::archName(arch));
}

/// Every key with a std::optional or list field: sub-dicts, the fathom section, and the top-level keys without a
/// default. The top-level keys with one are read and written by readTopLevel() / writeTopLevel().
const std::vector<Field>& fields() {
  static const std::vector<Field> all = [] {
    const std::string fs = "fsdp_config.";
    const std::string ds = "deepspeed_config.";
    const std::string pr = "fathom.profiler.";
    const std::string pl = "fathom.planner.";
#define FATHOM_FIELD(member)                                                                                           \
  [](auto& s) -> auto& {                                                                                               \
    return s.member;                                                                                                   \
  }
    return std::vector<Field>{
        field("main_process_ip", FATHOM_FIELD(mainProcessIp)),
        field("main_process_port", FATHOM_FIELD(mainProcessPort)),
        // fsdp_config
        field(fs + "fsdp_version", FATHOM_FIELD(fsdp.version)),
        choice(fs + "fsdp_sharding_strategy", FATHOM_FIELD(fsdp.shardingStrategy), kFsdpShardingStrategies),
        converted(fs + "fsdp_reshard_after_forward", FATHOM_FIELD(fsdp.reshardAfterForward), decodeReshard,
                  encodeReshard),
        field(fs + "fsdp_offload_params", FATHOM_FIELD(fsdp.offloadParams)),
        choice(fs + "fsdp_auto_wrap_policy", FATHOM_FIELD(fsdp.autoWrapPolicy), kFsdpWrapPolicies),
        field(fs + "fsdp_transformer_layer_cls_to_wrap", FATHOM_FIELD(fsdp.transformerLayerClsToWrap)),
        field(fs + "fsdp_min_num_params", FATHOM_FIELD(fsdp.minNumParams)),
        choice(fs + "fsdp_backward_prefetch", FATHOM_FIELD(fsdp.backwardPrefetch), kFsdpBackwardPrefetches),
        choice(fs + "fsdp_state_dict_type", FATHOM_FIELD(fsdp.stateDictType), kFsdpStateDictTypes),
        field(fs + "fsdp_forward_prefetch", FATHOM_FIELD(fsdp.forwardPrefetch)),
        field(fs + "fsdp_use_orig_params", FATHOM_FIELD(fsdp.useOrigParams)),
        field(fs + "fsdp_cpu_ram_efficient_loading", FATHOM_FIELD(fsdp.cpuRamEfficientLoading)),
        field(fs + "fsdp_sync_module_states", FATHOM_FIELD(fsdp.syncModuleStates)),
        field(fs + "fsdp_activation_checkpointing", FATHOM_FIELD(fsdp.activationCheckpointing)),
        // deepspeed_config
        field(ds + "deepspeed_config_file", FATHOM_FIELD(deepspeed.configFile)),
        converted(ds + "zero_stage", FATHOM_FIELD(deepspeed.zeroStage), decodeZeroStage, encodeZeroStage),
        choice(ds + "offload_optimizer_device", FATHOM_FIELD(deepspeed.offloadOptimizerDevice), kOffloadDevices),
        choice(ds + "offload_param_device", FATHOM_FIELD(deepspeed.offloadParamDevice), kOffloadDevices),
        field(ds + "gradient_accumulation_steps", FATHOM_FIELD(deepspeed.gradientAccumulationSteps)),
        field(ds + "gradient_clipping", FATHOM_FIELD(deepspeed.gradientClipping)),
        field(ds + "zero3_init_flag", FATHOM_FIELD(deepspeed.zero3InitFlag)),
        field(ds + "zero3_save_16bit_model", FATHOM_FIELD(deepspeed.zero3Save16bitModel)),
        // fathom
        field("fathom.command", FATHOM_FIELD(fathom.command)),
        field("fathom.workspace", FATHOM_FIELD(fathom.workspace)),
        choices("fathom.trackers", FATHOM_FIELD(fathom.trackers), kTrackers),
        field("fathom.project_dir", FATHOM_FIELD(fathom.projectDir)),
        field("fathom.logging_dir", FATHOM_FIELD(fathom.loggingDir)),
        field("fathom.hosts", FATHOM_FIELD(fathom.hosts)),
        field("fathom.hostfile", FATHOM_FIELD(fathom.hostfile)),
        choice("fathom.launcher", FATHOM_FIELD(fathom.launcher), kLaunchers),
        field("fathom.ssh_user", FATHOM_FIELD(fathom.sshUser)),
        field("fathom.ssh_config", FATHOM_FIELD(fathom.sshConfig)),
        field("fathom.slurm_partition", FATHOM_FIELD(fathom.slurmPartition)),
        field("fathom.slurm_time", FATHOM_FIELD(fathom.slurmTime)),
        field("fathom.slurm_account", FATHOM_FIELD(fathom.slurmAccount)),
        // the run monitor (the schema checks the numbers' range)
        field("fathom.hang_timeout", FATHOM_FIELD(fathom.monitor.hangTimeout)),
        field("fathom.straggler_threshold", FATHOM_FIELD(fathom.monitor.stragglerThreshold)),
        choice("fathom.hang_action", FATHOM_FIELD(fathom.monitor.hangAction), kHangActions),
        // fathom.profiler
        field(pr + "enabled", FATHOM_FIELD(fathom.profiler.enabled)),
        choices(pr + "activities", FATHOM_FIELD(fathom.profiler.activities), kProfilerActivities),
        field(pr + "record_shapes", FATHOM_FIELD(fathom.profiler.recordShapes)),
        field(pr + "profile_memory", FATHOM_FIELD(fathom.profiler.profileMemory)),
        field(pr + "with_stack", FATHOM_FIELD(fathom.profiler.withStack)),
        field(pr + "with_flops", FATHOM_FIELD(fathom.profiler.withFlops)),
        field(pr + "with_modules", FATHOM_FIELD(fathom.profiler.withModules)),
        field(pr + "schedule_skip_first", FATHOM_FIELD(fathom.profiler.scheduleSkipFirst)),
        field(pr + "schedule_wait", FATHOM_FIELD(fathom.profiler.scheduleWait)),
        field(pr + "schedule_warmup", FATHOM_FIELD(fathom.profiler.scheduleWarmup)),
        field(pr + "schedule_active", FATHOM_FIELD(fathom.profiler.scheduleActive)),
        field(pr + "schedule_repeat", FATHOM_FIELD(fathom.profiler.scheduleRepeat)),
        field(pr + "output_trace_dir", FATHOM_FIELD(fathom.profiler.outputTraceDir)),
        // fathom.planner
        field(pl + "model", FATHOM_FIELD(fathom.planner.model)),
        field(pl + "hf_config", FATHOM_FIELD(fathom.planner.hfConfig)),
        field(pl + "params", FATHOM_FIELD(fathom.planner.params)),
        converted(pl + "arch", FATHOM_FIELD(fathom.planner.arch), decodeArch, encodeArch),
        field(pl + "layers", FATHOM_FIELD(fathom.planner.layers)),
        field(pl + "decoder_layers", FATHOM_FIELD(fathom.planner.decoderLayers)),
        field(pl + "hidden", FATHOM_FIELD(fathom.planner.hidden)),
        field(pl + "heads", FATHOM_FIELD(fathom.planner.heads)),
        field(pl + "kv_heads", FATHOM_FIELD(fathom.planner.kvHeads)),
        field(pl + "head_dim", FATHOM_FIELD(fathom.planner.headDim)),
        field(pl + "ffn_hidden", FATHOM_FIELD(fathom.planner.ffnHidden)),
        field(pl + "vocab", FATHOM_FIELD(fathom.planner.vocab)),
        field(pl + "max_positions", FATHOM_FIELD(fathom.planner.maxPositions)),
        field(pl + "num_experts", FATHOM_FIELD(fathom.planner.numExperts)),
        field(pl + "experts_per_token", FATHOM_FIELD(fathom.planner.expertsPerToken)),
        field(pl + "tied_embeddings", FATHOM_FIELD(fathom.planner.tiedEmbeddings)),
        field(pl + "hardware", FATHOM_FIELD(fathom.planner.hardware)),
        field(pl + "gpus_per_node", FATHOM_FIELD(fathom.planner.gpusPerNode)),
        field(pl + "micro_batch", FATHOM_FIELD(fathom.planner.microBatch)),
        field(pl + "seq", FATHOM_FIELD(fathom.planner.seq)),
        field(pl + "gradient_accumulation_steps", FATHOM_FIELD(fathom.planner.gradientAccumulationSteps)),
        choice(pl + "master_weights", FATHOM_FIELD(fathom.planner.masterWeights), plan::kMasterWeights),
        choice(pl + "optimizer", FATHOM_FIELD(fathom.planner.optimizer), plan::kOptimizers),
        choice(pl + "recompute", FATHOM_FIELD(fathom.planner.recompute), plan::kRecomputes),
        field(pl + "flash_attention", FATHOM_FIELD(fathom.planner.flashAttention)),
        choice(pl + "bytes_convention", FATHOM_FIELD(fathom.planner.bytesConvention), plan::kBytesConventions),
        choice(pl + "grad_sync", FATHOM_FIELD(fathom.planner.gradSync), plan::kGradSyncs),
    };
#undef FATHOM_FIELD
  }();
  return all;
}

std::vector<int> parseGpuIds(const std::string& text, const std::string& origin) {
  std::vector<int> ids;
  std::string compact;
  for (char c : text) {
    if (c != ' ' && c != '\t') {
      compact += c;
    }
  }
  if (compact == "all" || compact.empty()) {
    return ids;
  }
  std::size_t start = 0;
  while (start <= compact.size()) {
    const std::size_t comma = std::min(compact.find(',', start), compact.size());
    int id = -1;
    const char* first = compact.data() + start;
    const char* last = compact.data() + comma;
    const auto [end, ec] = std::from_chars(first, last, id);
    FATHOM_CHECK(ec == std::errc() && end == last && first != last && id >= 0, ConfigError, origin,
                 ": key 'gpu_ids': '", text, "' is not `all` or a comma-separated list of device numbers (e.g. 0,1)");
    ids.push_back(id);
    start = comma + 1;
  }
  return ids;
}

/// The top-level keys with Accelerate defaults (and the rules that come with them).
void readTopLevel(const AccelerateConfig& c, RunSpec& s) {
  s.distributedType = kDistributedTypes.parse(c.distributedType());
  if (const ConfigValue* n = c.find("num_processes")) {
    // -1 is Accelerate's "not set" (the launcher then runs one process); anything else below 1 is a mistake.
    const int processes = narrow(*n, s, "num_processes");
    FATHOM_CHECK(processes >= 1 || processes == -1, ConfigError, "num_processes must be >= 1, got ", processes, " (",
                 s.originOf("num_processes"), ")");
    s.numProcesses = processes == -1 ? std::nullopt : std::optional<int>(processes);
  } else if (s.distributedType == DistributedType::No) {
    s.numProcesses = 1;  // process_config
  }
  if (const ConfigValue* v = c.find("num_machines")) {
    s.numMachines = narrow(*v, s, "num_machines");
  }
  if (const ConfigValue* v = c.find("machine_rank")) {
    s.machineRank = narrow(*v, s, "machine_rank");
  }
  s.useCpu = c.useCpu();
  s.debug = c.getBool("debug").value_or(false);
  if (const auto ids = c.getString("gpu_ids")) {
    s.gpuIds = parseGpuIds(*ids, s.originOf("gpu_ids"));
  }
  s.mixedPrecision = kMixedPrecisions.parse(c.mixedPrecision());
  if (const auto backend = c.getString("dynamo_config.dynamo_backend")) {
    s.dynamoBackend = kDynamoBackends.parse(*backend);
  }
  if (const ConfigValue* steps = c.find("gradient_accumulation_steps");
      steps != nullptr && s.sourceOf("gradient_accumulation_steps") != ValueSource::Default) {
    s.gradientAccumulationSteps = narrow(*steps, s, "gradient_accumulation_steps");
  }
}

void writeTopLevel(AccelerateConfig& c, const RunSpec& s, const AccelerateConfig& base, DefaultKeys defaults) {
  // A key holding Accelerate's default is written when the base had it, or when DefaultKeys says so.
  auto defaulted = [&](const std::string& path, const ConfigValue& value, const ConfigValue& defaultValue) {
    if (value != defaultValue || defaults == DefaultKeys::Write || base.contains(path)) {
      setKey(c, path, value);
    } else {
      c.erase(path);
    }
  };
  setKey(c, "distributed_type", std::string(kDistributedTypes.toString(s.distributedType)));
  // Accelerate's process_config: 1 for distributed_type NO, else -1 ("not set").
  defaulted("num_processes", std::int64_t{s.numProcesses.value_or(-1)},
            std::int64_t{s.distributedType == DistributedType::No ? 1 : -1});
  defaulted("num_machines", std::int64_t{s.numMachines}, std::int64_t{1});
  defaulted("machine_rank", std::int64_t{s.machineRank}, std::int64_t{0});
  defaulted("use_cpu", s.useCpu, false);
  defaulted("debug", s.debug, false);
  s.gpuIds ? setKey(c, "gpu_ids", gpuIdsText(*s.gpuIds)) : void(c.erase("gpu_ids"));
  defaulted("mixed_precision", std::string(kMixedPrecisions.toString(s.mixedPrecision)), std::string("no"));
  // dynamo_config is a sub-dict: its backend is written when it says something (or the file had it).
  if (s.dynamoBackend != DynamoBackend::No || base.contains("dynamo_config.dynamo_backend")) {
    setKey(c, "dynamo_config.dynamo_backend", std::string(kDynamoBackends.toString(s.dynamoBackend)));
  }
  // Not a file key: emitConfig() leaves it out, but a configuration built in code keeps it.
  s.gradientAccumulationSteps ? setKey(c, "gradient_accumulation_steps", std::int64_t{*s.gradientAccumulationSteps})
                              : void(c.erase("gradient_accumulation_steps"));
}

void read(const AccelerateConfig& config, RunSpec& spec) {
  readTopLevel(config, spec);
  for (const Field& f : fields()) {
    if (const ConfigValue* value = config.find(f.path)) {
      f.read(*value, spec);
    }
  }
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

AccelerateConfig toConfig(const RunSpec& spec, const AccelerateConfig& base, DefaultKeys defaults) {
  AccelerateConfig config = base;
  writeTopLevel(config, spec, base, defaults);
  for (const Field& f : fields()) {
    f.write(config, spec);
  }
  return config;
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
