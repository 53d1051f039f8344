// SPDX-License-Identifier: Apache-2.0
#include "wizard/wizard_run.h"

#include <fathom/plan/plan_file.h>

#include <QCoreApplication>
#include <QFileInfo>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace fathom::views {
namespace {

struct WizardRunText {
  Q_DECLARE_TR_FUNCTIONS(WizardRun)
};

using config::AccelerateConfig;
using config::DistributedType;
using config::PlannerSpec;
using config::RunSpec;

/// The value of `--flag value` or `--flag=value` among the words of `fathom train` (underscores or dashes).
std::optional<std::string> flagValue(const std::vector<std::string>& words, std::string_view flag) {
  std::string dashed(flag);
  std::replace(dashed.begin(), dashed.end(), '_', '-');
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    if ((w == flag || w == dashed) && i + 1 < words.size()) {
      return words[i + 1];
    }
    for (const std::string& name : {std::string(flag), dashed}) {
      if (w.rfind(name + "=", 0) == 0) {
        return w.substr(name.size() + 1);
      }
    }
  }
  return std::nullopt;
}

std::optional<int> intFlag(const std::vector<std::string>& words, std::string_view flag) {
  const auto text = flagValue(words, flag);
  bool ok = false;
  const int value = text ? QString::fromStdString(*text).toInt(&ok) : 0;
  return ok ? std::optional<int>(value) : std::nullopt;
}

bool isFathomTrain(const std::vector<std::string>& command) {
  return command.size() >= 2 && QFileInfo(QString::fromStdString(command[0])).fileName() == u"fathom"_s &&
         command[1] == "train";
}

/// The planner's model keys, all unset.
void clearPlannerModel(PlannerSpec& q) {
  q.model.reset();
  q.hfConfig.reset();
  q.params.reset();
  q.arch.reset();
  for (auto* dim : {&q.layers, &q.decoderLayers, &q.hidden, &q.heads, &q.kvHeads, &q.headDim, &q.ffnHidden, &q.vocab,
                    &q.maxPositions, &q.numExperts, &q.expertsPerToken}) {
    dim->reset();
  }
  q.tiedEmbeddings.reset();
}

std::optional<std::int64_t> positive(std::int64_t v) {
  return v > 0 ? std::optional<std::int64_t>(v) : std::nullopt;
}

/// The planner's model keys of a model source (the spellings of `fathom plan`'s flags).
void setPlannerModel(PlannerSpec& q, const ModelSource& m) {
  clearPlannerModel(q);
  switch (m.kind) {
  case ModelSource::Kind::Builtin: {
    const models::ModelShape shape = m.builtin.shape();
    if (!m.builtin.hasOverrides()) {
      q.model = m.builtin.name;
    } else if (m.builtin.isGpt()) {
      // A customised gpt as transformer dimensions (models::toPlanDims: tied embeddings, learned positions).
      const plan::TransformerDims d = models::toPlanDims(shape.gpt);
      q.arch = plan::Arch::Gpt;
      q.layers = d.layers;
      q.hidden = d.hidden;
      q.heads = d.heads;
      q.vocab = d.vocab;
      q.maxPositions = d.maxPositions;
    } else {
      // The mlp is a parameter-count model.
      q.params = static_cast<double>(models::mlpParameterCount(shape.mlp));
    }
    return;
  }
  case ModelSource::Kind::Dimensions: {
    const plan::TransformerDims& d = m.dims;
    q.arch = d.arch;
    q.layers = d.layers;
    q.decoderLayers = positive(d.decoderLayers);
    q.hidden = d.hidden;
    q.heads = d.heads;
    q.kvHeads = positive(d.kvHeads);
    q.headDim = positive(d.headDim);
    q.ffnHidden = positive(d.ffnHidden);
    q.vocab = d.vocab;
    q.maxPositions = positive(d.maxPositions);
    q.tiedEmbeddings = d.tiedEmbeddings;
    q.numExperts = positive(d.numExperts);
    q.expertsPerToken = positive(d.expertsPerToken);
    return;
  }
  case ModelSource::Kind::HfConfig:
    if (!m.hfConfigPath.isEmpty()) {
      q.hfConfig = m.hfConfigPath.toStdString();
    }
    return;
  case ModelSource::Kind::Parameters:
    if (m.parameters > 0) {
      q.params = m.parameters;
    }
    return;
  }
}

ModelSource plannerModelFrom(const PlannerSpec& q) {
  ModelSource m;
  if (q.hfConfig) {
    m.kind = ModelSource::Kind::HfConfig;
    m.hfConfigPath = QString::fromStdString(*q.hfConfig);
  } else if (q.arch) {
    m.kind = ModelSource::Kind::Dimensions;
    plan::TransformerDims& d = m.dims;
    d.arch = *q.arch;
    d.layers = q.layers.value_or(0);
    d.decoderLayers = q.decoderLayers.value_or(0);
    d.hidden = q.hidden.value_or(0);
    d.heads = q.heads.value_or(0);
    d.kvHeads = q.kvHeads.value_or(0);
    d.headDim = q.headDim.value_or(0);
    d.ffnHidden = q.ffnHidden.value_or(0);
    d.vocab = q.vocab.value_or(0);
    d.maxPositions = q.maxPositions.value_or(0);
    d.tiedEmbeddings = q.tiedEmbeddings.value_or(d.arch != plan::Arch::Llama);
    d.numExperts = q.numExperts.value_or(0);
    d.expertsPerToken = q.expertsPerToken.value_or(0);
  } else if (q.params) {
    m.kind = ModelSource::Kind::Parameters;
    m.parameters = *q.params;
  } else if (q.model) {
    m.kind = ModelSource::Kind::Builtin;
    m.builtin.name = *q.model;
  } else {
    m.kind = ModelSource::Kind::Parameters;
  }
  return m;
}

}  // namespace

RunSpec WizardRun::defaultSpec() {
  RunSpec s;
  s.numProcesses = 1;
  s.fathom.trackers = {config::Tracker::Sqlite};
  s.fathom.planner.hardware = "h100-sxm-80gb";
  s.fathom.planner.microBatch = 8;
  s.fathom.planner.gradientAccumulationSteps = 1;
  s.fathom.planner.optimizer = plan::Optimizer::AdamW;
  return s;
}

WizardRun::Paradigm WizardRun::paradigm() const {
  switch (spec.distributedType) {
  case DistributedType::No: return Paradigm::Single;
  case DistributedType::Fsdp: return Paradigm::Fsdp;
  case DistributedType::DeepSpeed: return Paradigm::DeepSpeed;
  default: return Paradigm::Ddp;
  }
}

void WizardRun::setParadigm(Paradigm p) {
  switch (p) {
  case Paradigm::Single: spec.distributedType = DistributedType::No; break;
  case Paradigm::Ddp: spec.distributedType = spec.useCpu ? DistributedType::MultiCpu : DistributedType::MultiGpu; break;
  case Paradigm::Fsdp: spec.distributedType = DistributedType::Fsdp; break;
  case Paradigm::DeepSpeed: spec.distributedType = DistributedType::DeepSpeed; break;
  }
}

int WizardRun::processes() const {
  return paradigm() == Paradigm::Single ? 1 : std::max(1, spec.numProcesses.value_or(1));
}

int WizardRun::microBatch() const {
  return spec.fathom.planner.microBatch.value_or(8);
}

int WizardRun::gradientAccumulation() const {
  return spec.fathom.planner.gradientAccumulationSteps.value_or(1);
}

QStringList WizardRun::command() const {
  if (program == Program::UserProgram) {
    QStringList words;
    for (const std::string& w : spec.fathom.command) {
      words << QString::fromStdString(w);
    }
    return words;
  }
  QStringList words{u"fathom"_s, u"train"_s};
  for (const std::string& w : builtin.trainArguments()) {
    words << QString::fromStdString(w);
  }
  words << u"--steps"_s << QString::number(steps) << u"--batch_size"_s << QString::number(microBatch());
  if (gradientAccumulation() > 1) {
    words << u"--gradient_accumulation_steps"_s << QString::number(gradientAccumulation());
  }
  const plan::Optimizer optimizer = spec.fathom.planner.optimizer.value_or(plan::Optimizer::AdamW);
  words << u"--optimizer"_s << QString::fromUtf8(plan::kOptimizers.toString(optimizer)) << u"--log_every"_s
        << QString::number(logEvery);
  return words;
}

QString WizardRun::programPath() const {
  return spec.fathom.command.empty() ? QString() : QString::fromStdString(spec.fathom.command.front());
}

QStringList WizardRun::programArguments() const {
  QStringList words;
  for (std::size_t i = 1; i < spec.fathom.command.size(); ++i) {
    words << QString::fromStdString(spec.fathom.command[i]);
  }
  return words;
}

void WizardRun::setProgram(const QString& path, const QStringList& arguments) {
  spec.fathom.command.clear();
  if (path.isEmpty()) {
    return;
  }
  spec.fathom.command.push_back(path.toStdString());
  for (const QString& a : arguments) {
    spec.fathom.command.push_back(a.toStdString());
  }
}

RunSpec WizardRun::toRunSpec() const {
  RunSpec s = spec;
  const Paradigm p = paradigm();
  if (p == Paradigm::Ddp) {
    s.distributedType = s.useCpu ? DistributedType::MultiCpu : DistributedType::MultiGpu;
  }
  s.numProcesses = processes();
  const bool remote = target == Target::RemoteHosts;
  if (remote) {
    s.numMachines = std::max(1, s.numMachines);
    s.machineRank = 0;
    if (s.fathom.launcher == config::Launcher::Slurm) {
      // The allocation names the nodes and rank 0's address; the SSH settings mean nothing to srun.
      s.mainProcessIp.reset();
      s.fathom.hosts.clear();
      s.fathom.sshUser.reset();
      s.fathom.sshConfig.reset();
    } else {
      s.fathom.slurmPartition.reset();
      s.fathom.slurmTime.reset();
      s.fathom.slurmAccount.reset();
    }
  } else {
    s.numMachines = 1;
    s.machineRank = 0;
    s.mainProcessIp.reset();
    s.fathom.hosts.clear();
    s.fathom.launcher.reset();
    s.fathom.sshUser.reset();
    s.fathom.sshConfig.reset();
    s.fathom.slurmPartition.reset();
    s.fathom.slurmTime.reset();
    s.fathom.slurmAccount.reset();
  }
  if (!s.fathom.profiler.enabled.value_or(false)) {
    s.fathom.profiler = {};  // the profiler's settings are written only for a profiled run
  }
  if (p != Paradigm::Fsdp) {
    s.fsdp = {};
  }
  if (p != Paradigm::DeepSpeed) {
    s.deepspeed = {};
  } else if (!s.deepspeed.configFile) {
    // Accelerate passes deepspeed_config's accumulation to the program: the batch page's.
    s.deepspeed.gradientAccumulationSteps = gradientAccumulation();
  }
  const QStringList words = command();
  s.fathom.command.clear();
  for (const QString& w : words) {
    s.fathom.command.push_back(w.toStdString());
  }
  if (program == Program::Builtin) {
    ModelSource m;
    m.builtin = builtin;
    setPlannerModel(s.fathom.planner, m);
  } else {
    setPlannerModel(s.fathom.planner, plannerModel);
  }
  return s;
}

AccelerateConfig WizardRun::toConfig(const AccelerateConfig& base) const {
  const RunSpec s = toRunSpec();
  AccelerateConfig shaped = base;
  // The sections of the paradigms not chosen go, keys the spec does not know included, as they always did.
  std::vector<std::string> dropped;
  for (const auto& [path, value] : shaped.values()) {
    const bool fsdp = path.rfind("fsdp_config.", 0) == 0 && s.distributedType != DistributedType::Fsdp;
    const bool deepspeed = path.rfind("deepspeed_config.", 0) == 0 && s.distributedType != DistributedType::DeepSpeed;
    if (fsdp || deepspeed) {
      dropped.push_back(path);
    }
  }
  for (const std::string& path : dropped) {
    shaped.erase(path);
  }
  // The keys the wizard has always written, defaults or not (config::toConfig() writes a default where the base
  // has the key; it replaces these placeholders).
  for (const char* key : {"num_processes", "num_machines", "mixed_precision"}) {
    if (!shaped.contains(key)) {
      shaped.set(key, key == std::string_view("mixed_precision") ? config::ConfigValue(std::string("no"))
                                                                 : config::ConfigValue(std::int64_t{1}));
    }
  }
  if (target == Target::RemoteHosts && !shaped.contains("machine_rank")) {
    shaped.set("machine_rank", std::int64_t{0});
  }
  return config::toConfig(s, shaped);
}

WizardRun WizardRun::fromSpec(const RunSpec& spec, QStringList* notes) {
  auto note = [notes](const QString& text) {
    if (notes != nullptr) {
      *notes << text;
    }
  };
  WizardRun w;
  w.spec = spec;
  RunSpec& s = w.spec;
  if (s.distributedType == DistributedType::MultiCpu) {
    s.useCpu = true;
  }
  if (w.paradigm() == Paradigm::Ddp && s.distributedType != DistributedType::MultiGpu &&
      s.distributedType != DistributedType::MultiCpu) {
    note(WizardRunText::tr("distributed_type %1 is edited as data parallel (DDP) and saved as %2.")
             .arg(QString::fromUtf8(config::kDistributedTypes.toString(s.distributedType)),
                  s.useCpu ? u"MULTI_CPU"_s : u"MULTI_GPU"_s));
  }
  if (s.deepspeed.configFile &&
      QString::fromStdString(*s.deepspeed.configFile).compare(u"none"_s, Qt::CaseInsensitive) == 0) {
    s.deepspeed.configFile.reset();  // Accelerate's questionnaire writes `none` for "no file"
  }
  w.target = s.numMachines > 1 || !s.fathom.hosts.empty() ? Target::RemoteHosts : Target::ThisMachine;
  for (const config::Tracker t : s.fathom.trackers) {
    if (!config::kTrackers.isSupported(t)) {
      const auto& entry = config::kTrackers.entry(t);
      note(WizardRunText::tr("Tracker %1 is not one Fathom runs (%2); `fathom train` refuses it.")
               .arg(QString::fromUtf8(entry.name), QString::fromUtf8(entry.help)));
    }
  }

  // Model and program: `fathom train ...` is the built-in trainer; anything else is the user's program.
  PlannerSpec& q = s.fathom.planner;
  const std::vector<std::string> words = s.fathom.command;
  if (isFathomTrain(words)) {
    w.program = Program::Builtin;
    const std::vector<std::string> rest(words.begin() + 2, words.end());
    // The model of `fathom train`'s words: core's one reader of them (models/builtin_model.h).
    if (const auto builtin = models::modelRequestFromArguments(rest)) {
      w.builtin = builtin->withoutPresetValues();
    }
    w.steps = intFlag(words, "--steps").value_or(w.steps);
    w.logEvery = intFlag(words, "--log_every").value_or(w.logEvery);
    // The planner's keys mirror the trainer's flags and win where both are given.
    if (!q.microBatch) {
      q.microBatch = intFlag(words, "--batch_size");
    }
    if (!q.gradientAccumulationSteps) {
      q.gradientAccumulationSteps = intFlag(words, "--gradient_accumulation_steps");
    }
    if (const auto optimizer = flagValue(words, "--optimizer"); optimizer && !q.optimizer) {
      q.optimizer = plan::kOptimizers.find(*optimizer);
    }
    s.fathom.command.clear();  // made again from the wizard's choices (toRunSpec())
  } else if (!words.empty()) {
    w.program = Program::UserProgram;
  }
  const bool plannerModelGiven = q.model || q.hfConfig || q.arch || q.params;
  w.plannerModel = plannerModelFrom(q);
  if (words.empty() && w.plannerModel.kind == ModelSource::Kind::Builtin) {
    w.program = Program::Builtin;
    w.builtin = w.plannerModel.builtin;
  } else if (words.empty() && plannerModelGiven) {
    w.program = Program::UserProgram;
  } else if (words.empty()) {
    // An Accelerate file says nothing about the program or its model: propose the built-in trainer.
    w.program = Program::Builtin;
    note(WizardRunText::tr("The file names no program; the wizard proposes the built-in gpt-tiny (page Model and "
                           "data)."));
  }
  // What the wizard always plans with, where the file is silent.
  const RunSpec defaults = defaultSpec();
  if (!q.hardware) {
    q.hardware = defaults.fathom.planner.hardware;
  }
  if (!q.microBatch) {
    q.microBatch = defaults.fathom.planner.microBatch;
  }
  if (!q.gradientAccumulationSteps) {
    q.gradientAccumulationSteps =
        s.deepspeed.gradientAccumulationSteps.value_or(*defaults.fathom.planner.gradientAccumulationSteps);
  }
  if (!q.optimizer) {
    q.optimizer = defaults.fathom.planner.optimizer;
  }
  return w;
}

WizardRun WizardRun::fromConfig(const AccelerateConfig& config, QStringList* notes) {
  return fromSpec(config::runSpecFromConfig(config), notes);
}

PlanRequest WizardRun::planRequest() const {
  PlanRequest r;
  r.plan = plan::planFromRunSpec(toRunSpec()).plan;
  if (program == Program::Builtin) {
    r.model.kind = ModelSource::Kind::Builtin;
    r.model.builtin = builtin;
  } else {
    r.model = plannerModel;
  }
  r.hardware.preset = QString::fromStdString(spec.fathom.planner.hardware.value_or("h100-sxm-80gb"));
  return r;
}

}  // namespace fathom::views
