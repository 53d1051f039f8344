// SPDX-License-Identifier: Apache-2.0
#include <fathom/plan/plan_file.h>

#include <fathom/common/checked_number.h>
#include <fathom/common/error.h>
#include <fathom/common/terminal_text.h>
#include <fathom/config/config_reader.h>
#include <fathom/plan/plan_json.h>

#include <nlohmann/json.hpp>

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string_view>
#include <vector>

namespace fathom::plan {
namespace {

class Fields {
public:
  Fields(const YAML::Node& node, const std::string& origin) : m_node(node), m_origin(origin) {}

  template <typename T> bool get(const char* key, T& out) const {
    const YAML::Node v = m_node[key];
    if (!v || v.IsNull()) {
      return false;
    }
    try {
      out = v.as<T>();
    } catch (const YAML::Exception&) {
      throw ConfigError(detail::concat(m_origin, ": bad value for '", key, "': '", v.Scalar(), "'"));
    }
    return true;
  }
  std::string text(const char* key) const {
    std::string s;
    get(key, s);
    return s;
  }

private:
  const YAML::Node& m_node;
  const std::string& m_origin;
};

/// The keys of a Fathom plan besides the plan's own (planKeys()) and the transformer dimensions (dimsKeys()): where
/// the model and the device come from.
constexpr std::string_view kSourceKeys[] = {"params", "hf_config", "model", "hardware"};

/// The text of a map's key; ConfigError naming `origin` for a key that is a list or a map (YAML's `? [a, b]: 1`).
std::string keyText(const YAML::Node& key, const std::string& origin) {
  FATHOM_CHECK(key.IsScalar(), ConfigError, origin, ":", key.Mark().line + 1,
               ": a key must be a name, not a list or a map");
  return key.Scalar();
}

/// A YAML map as JSON, every scalar as text (plan_json.h reads numbers and booleans from text as from JSON).
nlohmann::json yamlToJson(const YAML::Node& node, const std::string& origin) {
  switch (node.Type()) {
  case YAML::NodeType::Map: {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& kv : node) {
      out[keyText(kv.first, origin)] = yamlToJson(kv.second, origin);
    }
    return out;
  }
  case YAML::NodeType::Sequence: {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& item : node) {
      out.push_back(yamlToJson(item, origin));
    }
    return out;
  }
  case YAML::NodeType::Scalar: return node.Scalar();
  default: return nullptr;
  }
}

bool isKnownKey(const std::string& key) {
  auto in = [&key](const auto& keys) { return std::find(std::begin(keys), std::end(keys), key) != std::end(keys); };
  static const std::vector<std::string_view> plan = planKeys();
  static const std::vector<std::string_view> dims = dimsKeys();
  return in(kSourceKeys) || in(plan) || in(dims);
}

/// A parameter count as plan inputs hold it; ConfigError naming `origin` for anything below 1.
std::int64_t parameterCount(double params, const std::string& origin) {
  FATHOM_CHECK(params >= 1, ConfigError, origin, ": params must be a positive count, got ", params);
  return checkedNarrow<std::int64_t>(std::round(params), detail::concat(origin, ": params"), 1);
}

/// hf_config made absolute against the directory of the file that named it.
std::string fileRelative(const std::string& value, const std::filesystem::path& baseDir) {
  const std::filesystem::path path(value);
  return path.is_absolute() || baseDir.empty() ? path.string() : (baseDir / path).string();
}

/// hardware: a file path (not a preset name) is relative to the file that named it, like hf_config.
std::string hardwareRelative(const std::string& value, const std::filesystem::path& baseDir) {
  const std::filesystem::path hw(value);
  const auto ext = hw.extension();
  const bool isPath = value.find('/') != std::string::npos || ext == ".yaml" || ext == ".yml" || ext == ".json";
  return isPath ? fileRelative(value, baseDir) : value;
}

void readFathomKeys(const YAML::Node& node, const std::string& origin, const std::filesystem::path& baseDir,
                    PlanInputs& in) {
  FATHOM_CHECK(node.IsMap(), ConfigError, origin, ": a plan file must be a YAML map");
  for (const auto& kv : node) {
    const std::string key = keyText(kv.first, origin);
    FATHOM_CHECK(isKnownKey(key), ConfigError, origin, ": unknown key '", terminalSafe(key), "'");
  }
  const Fields f(node, origin);
  if (double params = 0; f.get("params", params)) {
    in.params = parameterCount(params, origin);
  }
  const nlohmann::json keys = yamlToJson(node, origin);
  if (!f.text("arch").empty()) {
    in.dims = dimsFromJson(keys, origin);
  }
  if (std::string hf = f.text("hf_config"); !hf.empty()) {
    in.hfConfig = fileRelative(hf, baseDir);
  }
  f.get("model", in.model);
  if (f.get("hardware", in.hardware)) {
    in.hardware = hardwareRelative(in.hardware, baseDir);
  }
  in.plan = planFromJson(keys, in.plan, origin);
}

/// `target` = `value` when the configuration gives one; the plan's default stays otherwise.
template <typename T, typename U> void setIfGiven(T& target, const std::optional<U>& value) {
  if (value) {
    target = *value;
  }
}

/// The directory a relative path at `path` is resolved against: the file's, when the value came from it.
std::filesystem::path baseFor(const config::RunSpec& spec, std::string_view path) {
  const config::ValueSource source = spec.sourceOf(path);
  const bool fromFile =
      source == config::ValueSource::ConfigFile || (source == config::ValueSource::Code && spec.provenance.empty());
  return fromFile ? spec.fileDirectory : std::filesystem::path();
}

void applyPlanner(const config::RunSpec& spec, PlanInputs& in) {
  const config::PlannerSpec& q = spec.fathom.planner;
  Plan& p = in.plan;
  if (q.params) {
    in.params = parameterCount(*q.params, spec.originOf("fathom.planner.params"));
  }
  if (q.arch) {
    TransformerDims d;
    d.arch = *q.arch;
    setIfGiven(d.layers, q.layers);
    setIfGiven(d.decoderLayers, q.decoderLayers);
    setIfGiven(d.hidden, q.hidden);
    setIfGiven(d.heads, q.heads);
    setIfGiven(d.kvHeads, q.kvHeads);
    setIfGiven(d.headDim, q.headDim);
    setIfGiven(d.ffnHidden, q.ffnHidden);
    setIfGiven(d.vocab, q.vocab);
    setIfGiven(d.maxPositions, q.maxPositions);
    d.tiedEmbeddings = d.arch != Arch::Llama;
    setIfGiven(d.tiedEmbeddings, q.tiedEmbeddings);
    setIfGiven(d.numExperts, q.numExperts);
    setIfGiven(d.expertsPerToken, q.expertsPerToken);
    in.dims = d;
  }
  if (q.hfConfig) {
    in.hfConfig = fileRelative(*q.hfConfig, baseFor(spec, "fathom.planner.hf_config"));
  }
  in.model = q.model.value_or("");
  if (q.hardware) {
    in.hardware = hardwareRelative(*q.hardware, baseFor(spec, "fathom.planner.hardware"));
  }
  setIfGiven(p.gpusPerNode, q.gpusPerNode);
  setIfGiven(p.microBatch, q.microBatch);
  setIfGiven(p.seqLen, q.seq);
  setIfGiven(p.masterWeights, q.masterWeights);
  setIfGiven(p.optimizer, q.optimizer);
  setIfGiven(p.recompute, q.recompute);
  setIfGiven(p.flashAttention, q.flashAttention);
  setIfGiven(p.bytes, q.bytesConvention);
  setIfGiven(p.gradSync, q.gradSync);
}

}  // namespace

PlanInputs planFromRunSpec(const config::RunSpec& spec) {
  using config::DistributedType;
  PlanInputs in;
  Plan& p = in.plan;
  const int processes = spec.numProcesses.value_or(1);
  FATHOM_CHECK(spec.numMachines >= 1, ConfigError, spec.originOf("num_machines"), ": num_machines must be >= 1, got ",
               spec.numMachines);
  p.numGpus = processes;
  // A configuration's num_processes (or a given num_machines) places the run on its machines; a world size from a
  // flag or the environment alone is laid out by the hardware preset's GPUs per node, as `fathom plan` always did.
  using config::ValueSource;
  const bool placed = spec.sourceOf("num_machines") != ValueSource::Default ||
                      spec.sourceOf("num_processes") == ValueSource::ConfigFile ||
                      spec.sourceOf("num_processes") == ValueSource::Code;
  if (placed) {
    p.gpusPerNode = std::max(1, processes / spec.numMachines);
  }
  p.precision = spec.mixedPrecision;
  // Accelerate's mixed precision is torch.autocast over fp32 parameters, except under DeepSpeed (fp32 master
  // copy) and FSDP (MixedPrecision policy over fp32 shards, modelled by the FSDP layout).
  p.masterWeights = MasterWeights::Autocast;
  if (spec.distributedType == DistributedType::Fsdp) {
    const config::FsdpSpec& f = spec.fsdp;
    p.strategy = Strategy::Fsdp;
    p.masterWeights = MasterWeights::Fp32Copy;
    p.fsdpSharding = f.effectiveShardingStrategy();
    config::kFsdpShardingStrategies.requireSupported(p.fsdpSharding,
                                                     "fsdp_config.fsdp_sharding_strategy (" +
                                                         spec.originOf("fsdp_config.fsdp_sharding_strategy") + ")");
    p.fsdpWrap = f.autoWrapPolicy.value_or(p.fsdpWrap);
    p.fsdpMinNumParams = f.minNumParams.value_or(p.fsdpMinNumParams);
    p.offloadParams = p.offloadOptimizer = f.offloadParams.value_or(false);
  } else if (spec.distributedType == DistributedType::DeepSpeed) {
    const config::DeepSpeedSpec& d = spec.deepspeed;
    p.masterWeights = MasterWeights::Fp32Copy;
    p.bytes = BytesConvention::DeepSpeed;
    const Strategy stages[] = {Strategy::Ddp, Strategy::Zero1, Strategy::Zero2, Strategy::Zero3};
    p.strategy = stages[static_cast<int>(d.zeroStage.value_or(config::ZeroStage::Gradients))];
    p.offloadOptimizer = d.offloadOptimizerDevice.value_or(config::OffloadDevice::None) != config::OffloadDevice::None;
    p.offloadParams = d.offloadParamDevice.value_or(config::OffloadDevice::None) != config::OffloadDevice::None;
  } else {
    p.strategy = Strategy::Ddp;  // NO, MULTI_GPU, MULTI_CPU
  }
  applyPlanner(spec, in);
  // The accumulation the workers run with (launch::launchOptionsFromRunSpec): the launcher's variable wins over the
  // program's own setting, which fathom.planner mirrors.
  if (spec.gradientAccumulationSteps) {
    p.gradAccum = *spec.gradientAccumulationSteps;
  } else if (spec.distributedType == DistributedType::DeepSpeed && spec.deepspeed.gradientAccumulationSteps) {
    p.gradAccum = *spec.deepspeed.gradientAccumulationSteps;
  } else {
    p.gradAccum = spec.fathom.planner.gradientAccumulationSteps.value_or(p.gradAccum);
  }
  return in;
}

PlanInputs parsePlanText(const std::string& text, const std::string& origin, const std::filesystem::path& baseDir) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw ConfigError(detail::concat(origin, ": not valid YAML: ", e.what()));
  }
  FATHOM_CHECK(root.IsMap(), ConfigError, origin, ": a plan file must be a YAML map");
  if (root["distributed_type"]) {
    config::RunSpec spec = config::runSpecFromConfig(config::parseConfig(text, origin).config);
    spec.fileDirectory = baseDir;
    return planFromRunSpec(spec);
  }
  PlanInputs in;
  in.plan.precision = Precision::Fp32;  // Accelerate's default mixed_precision, `no`
  readFathomKeys(root, origin, baseDir, in);
  return in;
}

bool isConfigurationFile(const std::filesystem::path& path) {
  std::ifstream file(path);
  if (!file.good()) {
    return true;
  }
  std::ostringstream text;
  text << file.rdbuf();
  try {
    const YAML::Node root = YAML::Load(text.str());
    return !root.IsMap() || static_cast<bool>(root["distributed_type"]);
  } catch (const YAML::Exception&) {
    return true;
  }
}

PlanInputs loadPlanFile(const std::filesystem::path& path) {
  std::ifstream file(path);
  FATHOM_CHECK(file.good(), ConfigError, "cannot read plan file '", path.string(), "'");
  std::ostringstream text;
  text << file.rdbuf();
  return parsePlanText(text.str(), path.string(), path.parent_path());
}

}  // namespace fathom::plan
