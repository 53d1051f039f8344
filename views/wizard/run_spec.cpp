// SPDX-License-Identifier: Apache-2.0
#include "wizard/run_spec.h"

#include <fathom/config/config_writer.h>
#include <fathom/plan/plan_file.h>

#include <QCoreApplication>
#include <QFileInfo>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace fathom::views {
namespace {

struct RunSpecText {
  Q_DECLARE_TR_FUNCTIONS(RunSpec)
};

using config::AccelerateConfig;

const char* const kManagedTopLevel[] = {"distributed_type", "num_processes",     "num_machines",    "machine_rank",
                                        "main_process_ip",  "main_process_port", "mixed_precision", "use_cpu"};
const char* const kManagedDeepSpeed[] = {"zero_stage",      "offload_optimizer_device",    "offload_param_device",
                                         "zero3_init_flag", "gradient_accumulation_steps", "gradient_clipping"};
const char* const kManagedFathom[] = {"fathom.command", "fathom.trackers", "fathom.project_dir", "fathom.workspace",
                                      "fathom.hosts",   "fathom.launcher", "fathom.ssh_user"};

bool startsWith(const std::string& s, std::string_view prefix) {
  return s.rfind(prefix, 0) == 0;
}

std::string str(const QString& s) {
  return s.toStdString();
}

std::vector<std::string> strings(const QStringList& list) {
  std::vector<std::string> out;
  for (const QString& s : list) {
    out.push_back(s.toStdString());
  }
  return out;
}

QStringList qstrings(const std::vector<std::string>& list) {
  QStringList out;
  for (const std::string& s : list) {
    out << QString::fromStdString(s);
  }
  return out;
}

QString qget(const AccelerateConfig& c, std::string_view path, const QString& fallback = {}) {
  const auto v = c.getString(path);
  return v ? QString::fromStdString(*v) : fallback;
}

QStringList qlist(const AccelerateConfig& c, std::string_view path) {
  const config::ConfigValue* v = c.find(path);
  return v && std::holds_alternative<std::vector<std::string>>(*v) ? qstrings(std::get<std::vector<std::string>>(*v))
                                                                   : QStringList();
}

int iget(const AccelerateConfig& c, std::string_view path, int fallback) {
  return static_cast<int>(c.getInt(path).value_or(fallback));
}

bool bget(const AccelerateConfig& c, std::string_view path, bool fallback) {
  return c.getBool(path).value_or(fallback);
}

/// The value of `--flag value` or `--flag=value` in a command (underscores or dashes).
std::optional<QString> flagValue(const QStringList& words, const QString& flag) {
  QString dashed = flag;
  dashed.replace(u'_', u'-');
  for (qsizetype i = 0; i < words.size(); ++i) {
    const QString& w = words.at(i);
    if ((w == flag || w == dashed) && i + 1 < words.size()) {
      return words.at(i + 1);
    }
    if (w.startsWith(flag + u'=') || w.startsWith(dashed + u'=')) {
      return w.mid(w.indexOf(u'=') + 1);
    }
  }
  return std::nullopt;
}

bool isFathomTrain(const QStringList& command) {
  return command.size() >= 2 && QFileInfo(command.at(0)).fileName() == u"fathom"_s && command.at(1) == u"train"_s;
}

/// The planner keys of a model source (the spellings of `fathom plan`'s flags).
void setPlannerModel(AccelerateConfig& c, const ModelSource& m) {
  const std::string pl = "fathom.planner.";
  switch (m.kind) {
  case ModelSource::Kind::Builtin: {
    const models::ModelShape shape = m.builtin.shape();
    if (!m.builtin.hasOverrides()) {
      c.set(pl + "model", m.builtin.name);
    } else if (m.builtin.isGpt()) {
      // A customised gpt as transformer dimensions (models::toPlanDims: tied embeddings, learned positions).
      const plan::TransformerDims d = models::toPlanDims(shape.gpt);
      c.set(pl + "arch", std::string("gpt"));
      c.set(pl + "layers", d.layers);
      c.set(pl + "hidden", d.hidden);
      c.set(pl + "heads", d.heads);
      c.set(pl + "vocab", d.vocab);
      c.set(pl + "max_positions", d.maxPositions);
    } else {
      // The mlp is a parameter-count model.
      c.set(pl + "params", static_cast<double>(models::mlpParameterCount(shape.mlp)));
    }
    return;
  }
  case ModelSource::Kind::Dimensions: {
    const plan::TransformerDims& d = m.dims;
    c.set(pl + "arch", std::string(plan::archName(d.arch)));
    c.set(pl + "layers", d.layers);
    if (d.decoderLayers > 0)
      c.set(pl + "decoder_layers", d.decoderLayers);
    c.set(pl + "hidden", d.hidden);
    c.set(pl + "heads", d.heads);
    if (d.kvHeads > 0)
      c.set(pl + "kv_heads", d.kvHeads);
    if (d.headDim > 0)
      c.set(pl + "head_dim", d.headDim);
    if (d.ffnHidden > 0)
      c.set(pl + "ffn_hidden", d.ffnHidden);
    c.set(pl + "vocab", d.vocab);
    if (d.maxPositions > 0)
      c.set(pl + "max_positions", d.maxPositions);
    c.set(pl + "tied_embeddings", d.tiedEmbeddings);
    if (d.numExperts > 0)
      c.set(pl + "num_experts", d.numExperts);
    if (d.expertsPerToken > 0)
      c.set(pl + "experts_per_token", d.expertsPerToken);
    return;
  }
  case ModelSource::Kind::HfConfig:
    if (!m.hfConfigPath.isEmpty()) {
      c.set(pl + "hf_config", str(m.hfConfigPath));
    }
    return;
  case ModelSource::Kind::Parameters:
    if (m.parameters > 0) {
      c.set(pl + "params", m.parameters);
    }
    return;
  }
}

ModelSource plannerModelFrom(const AccelerateConfig& c) {
  ModelSource m;
  if (const auto hf = c.getString("fathom.planner.hf_config")) {
    m.kind = ModelSource::Kind::HfConfig;
    m.hfConfigPath = QString::fromStdString(*hf);
  } else if (const auto arch = c.getString("fathom.planner.arch")) {
    m.kind = ModelSource::Kind::Dimensions;
    plan::TransformerDims& d = m.dims;
    d.arch = plan::parseArch(*arch);
    d.layers = c.getInt("fathom.planner.layers").value_or(0);
    d.decoderLayers = c.getInt("fathom.planner.decoder_layers").value_or(0);
    d.hidden = c.getInt("fathom.planner.hidden").value_or(0);
    d.heads = c.getInt("fathom.planner.heads").value_or(0);
    d.kvHeads = c.getInt("fathom.planner.kv_heads").value_or(0);
    d.headDim = c.getInt("fathom.planner.head_dim").value_or(0);
    d.ffnHidden = c.getInt("fathom.planner.ffn_hidden").value_or(0);
    d.vocab = c.getInt("fathom.planner.vocab").value_or(0);
    d.maxPositions = c.getInt("fathom.planner.max_positions").value_or(0);
    d.tiedEmbeddings = c.getBool("fathom.planner.tied_embeddings").value_or(d.arch != plan::Arch::Llama);
    d.numExperts = c.getInt("fathom.planner.num_experts").value_or(0);
    d.expertsPerToken = c.getInt("fathom.planner.experts_per_token").value_or(0);
  } else if (const auto params = c.getDouble("fathom.planner.params")) {
    m.kind = ModelSource::Kind::Parameters;
    m.parameters = *params;
  } else if (const auto model = c.getString("fathom.planner.model")) {
    m.kind = ModelSource::Kind::Builtin;
    m.builtin.name = *model;
  } else {
    m.kind = ModelSource::Kind::Parameters;
  }
  return m;
}

}  // namespace

AccelerateConfig RunSpec::toConfig(const AccelerateConfig& base) const {
  AccelerateConfig c = base;
  std::vector<std::string> erase;
  for (const auto& [path, value] : c.values()) {
    const bool managed =
        std::any_of(std::begin(kManagedTopLevel), std::end(kManagedTopLevel),
                    [&](const char* k) { return path == k; }) ||
        std::any_of(std::begin(kManagedFathom), std::end(kManagedFathom), [&](const char* k) { return path == k; }) ||
        startsWith(path, "fsdp_config.") || startsWith(path, "fathom.profiler.") ||
        startsWith(path, "fathom.planner.") ||
        (startsWith(path, "deepspeed_config.") &&
         (paradigm != Paradigm::DeepSpeed || path == "deepspeed_config.deepspeed_config_file" ||
          std::any_of(std::begin(kManagedDeepSpeed), std::end(kManagedDeepSpeed),
                      [&](const char* k) { return path == std::string("deepspeed_config.") + k; })));
    if (managed) {
      erase.push_back(path);
    }
  }
  for (const std::string& path : erase) {
    c.erase(path);
  }

  const bool remote = target == Target::RemoteHosts;
  switch (paradigm) {
  case Paradigm::Single: c.set("distributed_type", std::string("NO")); break;
  case Paradigm::Ddp: c.set("distributed_type", std::string(useCpu ? "MULTI_CPU" : "MULTI_GPU")); break;
  case Paradigm::Fsdp: c.set("distributed_type", std::string("FSDP")); break;
  case Paradigm::DeepSpeed: c.set("distributed_type", std::string("DEEPSPEED")); break;
  }
  c.set("num_processes", std::int64_t{paradigm == Paradigm::Single ? 1 : std::max(1, numProcesses)});
  c.set("num_machines", std::int64_t{remote ? std::max(1, numMachines) : 1});
  if (remote) {
    c.set("machine_rank", std::int64_t{0});
    if (!mainProcessIp.isEmpty()) {
      c.set("main_process_ip", str(mainProcessIp));
    }
  }
  if (mainProcessPort > 0) {
    c.set("main_process_port", std::int64_t{mainProcessPort});
  }
  c.set("mixed_precision", str(mixedPrecision));
  if (useCpu) {
    c.set("use_cpu", true);
  }

  if (paradigm == Paradigm::Fsdp) {
    const std::string s = "fsdp_config.";
    if (fsdpVersion > 0) {
      c.set(s + "fsdp_version", std::int64_t{fsdpVersion});
    }
    c.set(s + "fsdp_sharding_strategy", str(fsdpShardingStrategy));
    c.set(s + "fsdp_auto_wrap_policy", str(fsdpAutoWrapPolicy));
    if (fsdpAutoWrapPolicy == u"SIZE_BASED_WRAP"_s) {
      c.set(s + "fsdp_min_num_params", std::int64_t{fsdpMinNumParams});
    }
    if (fsdpAutoWrapPolicy == u"TRANSFORMER_BASED_WRAP"_s && !fsdpTransformerLayerClsToWrap.isEmpty()) {
      c.set(s + "fsdp_transformer_layer_cls_to_wrap", str(fsdpTransformerLayerClsToWrap));
    }
    c.set(s + "fsdp_backward_prefetch", str(fsdpBackwardPrefetch));
    c.set(s + "fsdp_state_dict_type", str(fsdpStateDictType));
    c.set(s + "fsdp_offload_params", fsdpOffloadParams);
    c.set(s + "fsdp_forward_prefetch", fsdpForwardPrefetch);
    c.set(s + "fsdp_activation_checkpointing", fsdpActivationCheckpointing);
    c.set(s + "fsdp_cpu_ram_efficient_loading", fsdpCpuRamEfficientLoading);
    c.set(s + "fsdp_sync_module_states", fsdpSyncModuleStates);
    c.set(s + "fsdp_use_orig_params", fsdpUseOrigParams);
  }
  if (paradigm == Paradigm::DeepSpeed) {
    const std::string s = "deepspeed_config.";
    if (!deepspeedConfigFile.isEmpty()) {
      // DeepSpeed's JSON decides stage, offload and accumulation; zero.Init is still Accelerate's question.
      c.set(s + "deepspeed_config_file", str(deepspeedConfigFile));
      c.set(s + "zero3_init_flag", zero3InitFlag);
    } else {
      c.set(s + "zero_stage", std::int64_t{zeroStage});
      c.set(s + "offload_optimizer_device", str(offloadOptimizerDevice));
      c.set(s + "offload_param_device", str(zeroStage == 3 ? offloadParamDevice : u"none"_s));
      if (zeroStage == 3) {
        c.set(s + "zero3_init_flag", zero3InitFlag);
      }
      c.set(s + "gradient_accumulation_steps", std::int64_t{gradientAccumulation});
      if (gradientClipping > 0) {
        c.set(s + "gradient_clipping", gradientClipping);
      }
    }
  }

  const QStringList words = command();
  if (!words.isEmpty()) {
    c.set("fathom.command", strings(words));
  }
  if (!trackers.isEmpty()) {
    c.set("fathom.trackers", strings(trackers));
  }
  if (!projectDir.isEmpty()) {
    c.set("fathom.project_dir", str(projectDir));
  }
  if (!workspace.isEmpty()) {
    c.set("fathom.workspace", str(workspace));
  }
  if (remote) {
    if (!hosts.isEmpty()) {
      c.set("fathom.hosts", strings(hosts));
    }
    c.set("fathom.launcher", str(launcher));
    if (!sshUser.isEmpty()) {
      c.set("fathom.ssh_user", str(sshUser));
    }
  }
  if (profilerEnabled) {
    const std::string p = "fathom.profiler.";
    c.set(p + "enabled", true);
    c.set(p + "activities", strings(profilerActivities));
    c.set(p + "schedule_wait", std::int64_t{scheduleWait});
    c.set(p + "schedule_warmup", std::int64_t{scheduleWarmup});
    c.set(p + "schedule_active", std::int64_t{scheduleActive});
    c.set(p + "schedule_repeat", std::int64_t{scheduleRepeat});
    c.set(p + "record_shapes", recordShapes);
    c.set(p + "profile_memory", profileMemory);
    c.set(p + "with_stack", withStack);
    if (!traceDir.isEmpty()) {
      c.set(p + "output_trace_dir", str(traceDir));
    }
  }

  const std::string pl = "fathom.planner.";
  c.set(pl + "hardware", str(hardware));
  if (gpusPerNode > 0) {
    c.set(pl + "gpus_per_node", std::int64_t{gpusPerNode});
  }
  c.set(pl + "micro_batch", std::int64_t{microBatch});
  c.set(pl + "gradient_accumulation_steps", std::int64_t{gradientAccumulation});
  if (sequenceLength > 0) {
    c.set(pl + "seq", std::int64_t{sequenceLength});
  }
  c.set(pl + "optimizer", str(optimizer));
  if (program == Program::Builtin) {
    ModelSource m;
    m.builtin = builtin;
    setPlannerModel(c, m);
  } else {
    setPlannerModel(c, plannerModel);
  }
  return c;
}

QStringList RunSpec::command() const {
  if (program == Program::UserProgram) {
    return programPath.isEmpty() ? QStringList() : QStringList{programPath} + programArguments;
  }
  QStringList words{u"fathom"_s, u"train"_s};
  for (const std::string& w : builtin.trainArguments()) {
    words << QString::fromStdString(w);
  }
  words << u"--steps"_s << QString::number(steps) << u"--batch_size"_s << QString::number(microBatch);
  if (gradientAccumulation > 1) {
    words << u"--gradient_accumulation_steps"_s << QString::number(gradientAccumulation);
  }
  words << u"--optimizer"_s << optimizer << u"--log_every"_s << QString::number(logEvery);
  return words;
}

RunSpec RunSpec::fromConfig(const AccelerateConfig& c, QStringList* notes) {
  RunSpec s;
  auto note = [notes](const QString& text) {
    if (notes != nullptr) {
      *notes << text;
    }
  };
  const std::string type = c.distributedType();
  s.useCpu = c.useCpu() || type == "MULTI_CPU";
  if (type == "NO") {
    s.paradigm = Paradigm::Single;
  } else if (type == "FSDP") {
    s.paradigm = Paradigm::Fsdp;
  } else if (type == "DEEPSPEED") {
    s.paradigm = Paradigm::DeepSpeed;
  } else {
    s.paradigm = Paradigm::Ddp;
    if (type != "MULTI_GPU" && type != "MULTI_CPU") {
      note(RunSpecText::tr("distributed_type %1 is edited as data parallel (DDP) and saved as %2.")
               .arg(QString::fromStdString(type), s.useCpu ? u"MULTI_CPU"_s : u"MULTI_GPU"_s));
    }
  }
  s.numProcesses = static_cast<int>(std::max<std::int64_t>(1, c.numProcesses()));
  s.numMachines = static_cast<int>(std::max<std::int64_t>(1, c.numMachines()));
  s.mainProcessIp = QString::fromStdString(c.mainProcessIp().value_or(""));
  s.mainProcessPort = static_cast<int>(c.mainProcessPort().value_or(0));
  s.hosts = qlist(c, "fathom.hosts");
  s.target = s.numMachines > 1 || !s.hosts.isEmpty() ? Target::RemoteHosts : Target::ThisMachine;
  s.launcher = qget(c, "fathom.launcher", s.launcher);
  s.sshUser = qget(c, "fathom.ssh_user");
  s.mixedPrecision = QString::fromStdString(c.mixedPrecision());

  s.fsdpVersion = iget(c, "fsdp_config.fsdp_version", 0);
  s.fsdpShardingStrategy = qget(c, "fsdp_config.fsdp_sharding_strategy", s.fsdpShardingStrategy);
  s.fsdpAutoWrapPolicy = qget(c, "fsdp_config.fsdp_auto_wrap_policy", s.fsdpAutoWrapPolicy);
  s.fsdpTransformerLayerClsToWrap = qget(c, "fsdp_config.fsdp_transformer_layer_cls_to_wrap");
  s.fsdpMinNumParams = c.getInt("fsdp_config.fsdp_min_num_params").value_or(s.fsdpMinNumParams);
  s.fsdpBackwardPrefetch = qget(c, "fsdp_config.fsdp_backward_prefetch", s.fsdpBackwardPrefetch);
  s.fsdpStateDictType = qget(c, "fsdp_config.fsdp_state_dict_type", s.fsdpStateDictType);
  s.fsdpOffloadParams = bget(c, "fsdp_config.fsdp_offload_params", s.fsdpOffloadParams);
  s.fsdpForwardPrefetch = bget(c, "fsdp_config.fsdp_forward_prefetch", s.fsdpForwardPrefetch);
  s.fsdpActivationCheckpointing = bget(c, "fsdp_config.fsdp_activation_checkpointing", s.fsdpActivationCheckpointing);
  s.fsdpCpuRamEfficientLoading = bget(c, "fsdp_config.fsdp_cpu_ram_efficient_loading", s.fsdpCpuRamEfficientLoading);
  s.fsdpSyncModuleStates = bget(c, "fsdp_config.fsdp_sync_module_states", s.fsdpSyncModuleStates);
  s.fsdpUseOrigParams = bget(c, "fsdp_config.fsdp_use_orig_params", s.fsdpUseOrigParams);

  s.deepspeedConfigFile = qget(c, "deepspeed_config.deepspeed_config_file");
  if (s.deepspeedConfigFile.compare(u"none"_s, Qt::CaseInsensitive) == 0) {
    s.deepspeedConfigFile.clear();
  }
  s.zeroStage = iget(c, "deepspeed_config.zero_stage", s.zeroStage);
  s.offloadOptimizerDevice = qget(c, "deepspeed_config.offload_optimizer_device", s.offloadOptimizerDevice);
  s.offloadParamDevice = qget(c, "deepspeed_config.offload_param_device", s.offloadParamDevice);
  s.zero3InitFlag = bget(c, "deepspeed_config.zero3_init_flag", s.zero3InitFlag);
  s.gradientClipping = c.getDouble("deepspeed_config.gradient_clipping").value_or(0);

  // Model and program: `fathom train ...` is the built-in trainer; anything else is the user's program.
  const QStringList words = qlist(c, "fathom.command");
  if (isFathomTrain(words)) {
    s.program = Program::Builtin;
    std::vector<std::string> rest;
    for (qsizetype i = 2; i < words.size(); ++i) {
      rest.push_back(words.at(i).toStdString());
    }
    // The model of `fathom train`'s words: core's one reader of them (models/builtin_model.h).
    if (const auto builtin = models::modelRequestFromArguments(rest)) {
      s.builtin = builtin->withoutPresetValues();
    }
    s.steps = flagValue(words, u"--steps"_s).value_or(QString::number(s.steps)).toInt();
    s.logEvery = flagValue(words, u"--log_every"_s).value_or(QString::number(s.logEvery)).toInt();
    s.microBatch = flagValue(words, u"--batch_size"_s).value_or(QString::number(s.microBatch)).toInt();
    s.gradientAccumulation =
        flagValue(words, u"--gradient_accumulation_steps"_s).value_or(QString::number(s.gradientAccumulation)).toInt();
    s.optimizer = flagValue(words, u"--optimizer"_s).value_or(s.optimizer);
  } else if (!words.isEmpty()) {
    s.program = Program::UserProgram;
    s.programPath = words.front();
    s.programArguments = words.mid(1);
  }
  const bool plannerModelGiven = c.contains("fathom.planner.model") || c.contains("fathom.planner.hf_config") ||
                                 c.contains("fathom.planner.arch") || c.contains("fathom.planner.params");
  s.plannerModel = plannerModelFrom(c);
  if (words.isEmpty() && s.plannerModel.kind == ModelSource::Kind::Builtin) {
    s.program = Program::Builtin;
    s.builtin = s.plannerModel.builtin;
  } else if (words.isEmpty() && plannerModelGiven) {
    s.program = Program::UserProgram;
  } else if (words.isEmpty()) {
    // An Accelerate file says nothing about the program or its model: propose the built-in trainer.
    s.program = Program::Builtin;
    note(RunSpecText::tr("The file names no program; the wizard proposes the built-in gpt-tiny (page Model and "
                         "data)."));
  }

  s.hardware = qget(c, "fathom.planner.hardware", s.hardware);
  s.gpusPerNode = iget(c, "fathom.planner.gpus_per_node", 0);
  s.microBatch = iget(c, "fathom.planner.micro_batch", s.microBatch);
  s.gradientAccumulation = iget(c, "fathom.planner.gradient_accumulation_steps",
                                iget(c, "deepspeed_config.gradient_accumulation_steps", s.gradientAccumulation));
  s.sequenceLength = iget(c, "fathom.planner.seq", 0);
  s.optimizer = qget(c, "fathom.planner.optimizer", s.optimizer);

  s.trackers = c.contains("fathom.trackers") ? qlist(c, "fathom.trackers") : QStringList();
  s.projectDir = qget(c, "fathom.project_dir");
  s.workspace = qget(c, "fathom.workspace");
  s.profilerEnabled = bget(c, "fathom.profiler.enabled", false);
  if (c.contains("fathom.profiler.activities")) {
    s.profilerActivities = qlist(c, "fathom.profiler.activities");
  }
  s.scheduleWait = iget(c, "fathom.profiler.schedule_wait", s.scheduleWait);
  s.scheduleWarmup = iget(c, "fathom.profiler.schedule_warmup", s.scheduleWarmup);
  s.scheduleActive = iget(c, "fathom.profiler.schedule_active", s.scheduleActive);
  s.scheduleRepeat = iget(c, "fathom.profiler.schedule_repeat", s.scheduleRepeat);
  s.recordShapes = bget(c, "fathom.profiler.record_shapes", false);
  s.profileMemory = bget(c, "fathom.profiler.profile_memory", false);
  s.withStack = bget(c, "fathom.profiler.with_stack", false);
  s.traceDir = qget(c, "fathom.profiler.output_trace_dir");
  return s;
}

PlanRequest RunSpec::planRequest(const AccelerateConfig& base) const {
  PlanRequest r;
  const std::string text = config::emitConfig(toConfig(base));
  r.plan = plan::parsePlanText(text, "the wizard's configuration", ".").plan;
  if (program == Program::Builtin) {
    r.model.kind = ModelSource::Kind::Builtin;
    r.model.builtin = builtin;
  } else {
    r.model = plannerModel;
  }
  r.hardware.preset = hardware;
  return r;
}

}  // namespace fathom::views
