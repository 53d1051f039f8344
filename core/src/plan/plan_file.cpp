// SPDX-License-Identifier: Apache-2.0
#include <fathom/plan/plan_file.h>

#include <fathom/common/error.h>
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

/// A YAML map as JSON, every scalar as text (plan_json.h reads numbers and booleans from text as from JSON).
nlohmann::json yamlToJson(const YAML::Node& node) {
  switch (node.Type()) {
  case YAML::NodeType::Map: {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& kv : node) {
      out[kv.first.as<std::string>()] = yamlToJson(kv.second);
    }
    return out;
  }
  case YAML::NodeType::Sequence: {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& item : node) {
      out.push_back(yamlToJson(item));
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

void readFathomKeys(const YAML::Node& node, const std::string& origin, const std::filesystem::path& baseDir,
                    PlanInputs& in, bool strict) {
  FATHOM_CHECK(node.IsMap(), ConfigError, origin, ": a plan file must be a YAML map");
  if (strict) {
    for (const auto& kv : node) {
      const std::string key = kv.first.as<std::string>();
      FATHOM_CHECK(isKnownKey(key), ConfigError, origin, ": unknown key '", key, "'");
    }
  }
  const Fields f(node, origin);
  if (double params = 0; f.get("params", params)) {
    FATHOM_CHECK(params >= 1 && params < 9e18, ConfigError, origin, ": params must be a positive count, got ", params);
    in.params = static_cast<std::int64_t>(std::llround(params));
  }
  const nlohmann::json keys = yamlToJson(node);
  if (!f.text("arch").empty()) {
    in.dims = dimsFromJson(keys, origin);
  }
  if (std::string hf = f.text("hf_config"); !hf.empty()) {
    const std::filesystem::path path(hf);
    in.hfConfig = path.is_absolute() ? path.string() : (baseDir / path).string();
  }
  f.get("model", in.model);
  if (f.get("hardware", in.hardware)) {
    // A file path (not a preset name) is relative to the plan file, like hf_config.
    const std::filesystem::path hw(in.hardware);
    const auto ext = hw.extension();
    const bool isPath = in.hardware.find('/') != std::string::npos || ext == ".yaml" || ext == ".yml" || ext == ".json";
    if (isPath && hw.is_relative()) {
      in.hardware = (baseDir / hw).string();
    }
  }
  in.plan = planFromJson(keys, in.plan, origin);
}

// Accelerate's default_config.yaml: the same keys `accelerate config` writes.
void readAccelerateKeys(const YAML::Node& root, const std::string& origin, PlanInputs& in) {
  const Fields f(root, origin);
  Plan& p = in.plan;
  const std::string type = f.text("distributed_type");
  int processes = 1;
  int machines = 1;
  f.get("num_processes", processes);
  f.get("num_machines", machines);
  FATHOM_CHECK(machines >= 1, ConfigError, origin, ": num_machines must be >= 1, got ", machines);
  p.numGpus = processes;
  p.gpusPerNode = std::max(1, processes / machines);
  if (auto s = f.text("mixed_precision"); !s.empty()) {
    p.precision = parsePrecision(s);
  }
  // Accelerate's mixed precision is torch.autocast over fp32 parameters, except under DeepSpeed (fp32 master
  // copy) and FSDP (MixedPrecision policy over fp32 shards, modelled by the FSDP layout).
  p.masterWeights = MasterWeights::Autocast;
  if (type == "FSDP") {
    p.strategy = Strategy::Fsdp;
    p.masterWeights = MasterWeights::Fp32Copy;
    if (const YAML::Node fsdp = root["fsdp_config"]; fsdp && fsdp.IsMap()) {
      const Fields ff(fsdp, origin);
      if (auto s = ff.text("fsdp_sharding_strategy"); !s.empty()) {
        p.fsdpSharding = parseFsdpSharding(s);
      }
      if (auto s = ff.text("fsdp_auto_wrap_policy"); !s.empty()) {
        p.fsdpWrap = parseFsdpWrap(s);
      }
      ff.get("fsdp_min_num_params", p.fsdpMinNumParams);
      bool offload = false;
      ff.get("fsdp_offload_params", offload);
      p.offloadParams = p.offloadOptimizer = offload;
    }
  } else if (type == "DEEPSPEED") {
    p.masterWeights = MasterWeights::Fp32Copy;
    p.bytes = BytesConvention::DeepSpeed;
    p.strategy = Strategy::Zero2;
    if (const YAML::Node ds = root["deepspeed_config"]; ds && ds.IsMap()) {
      const Fields df(ds, origin);
      int stage = 2;
      df.get("zero_stage", stage);
      FATHOM_CHECK(stage >= 0 && stage <= 3, ConfigError, origin, ": zero_stage must be 0-3, got ", stage);
      const Strategy stages[] = {Strategy::Ddp, Strategy::Zero1, Strategy::Zero2, Strategy::Zero3};
      p.strategy = stages[stage];
      df.get("gradient_accumulation_steps", p.gradAccum);
      const std::string opt = df.text("offload_optimizer_device");
      const std::string par = df.text("offload_param_device");
      p.offloadOptimizer = !opt.empty() && opt != "none";
      p.offloadParams = !par.empty() && par != "none";
    }
  } else {
    p.strategy = Strategy::Ddp;  // NO, MULTI_GPU, MULTI_CPU
  }
}

}  // namespace

PlanInputs parsePlanText(const std::string& text, const std::string& origin, const std::filesystem::path& baseDir) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw ConfigError(detail::concat(origin, ": not valid YAML: ", e.what()));
  }
  FATHOM_CHECK(root.IsMap(), ConfigError, origin, ": a plan file must be a YAML map");
  PlanInputs in;
  if (root["distributed_type"]) {
    readAccelerateKeys(root, origin, in);
    if (const YAML::Node fathom = root["fathom"]; fathom && fathom.IsMap() && fathom["planner"]) {
      readFathomKeys(fathom["planner"], origin + " (fathom.planner)", baseDir, in, true);
    }
  } else {
    readFathomKeys(root, origin, baseDir, in, true);
  }
  return in;
}

PlanInputs loadPlanFile(const std::filesystem::path& path) {
  std::ifstream file(path);
  FATHOM_CHECK(file.good(), ConfigError, "cannot read plan file '", path.string(), "'");
  std::ostringstream text;
  text << file.rdbuf();
  return parsePlanText(text.str(), path.string(), path.parent_path());
}

}  // namespace fathom::plan
