// SPDX-License-Identifier: Apache-2.0
#include <fathom/plan/plan_file.h>

#include <fathom/common/error.h>

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

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

const char* const kPlanKeys[] = {"params",
                                 "arch",
                                 "layers",
                                 "decoder_layers",
                                 "hidden",
                                 "heads",
                                 "kv_heads",
                                 "head_dim",
                                 "ffn_hidden",
                                 "vocab",
                                 "max_positions",
                                 "tied_embeddings",
                                 "num_experts",
                                 "experts_per_token",
                                 "hf_config",
                                 "model",
                                 "hardware",
                                 "num_gpus",
                                 "num_processes",
                                 "gpus_per_node",
                                 "strategy",
                                 "fsdp_sharding_strategy",
                                 "offload_optimizer",
                                 "offload_params",
                                 "tp",
                                 "pp",
                                 "sequence_parallel",
                                 "micro_batch",
                                 "gradient_accumulation_steps",
                                 "seq",
                                 "precision",
                                 "mixed_precision",
                                 "master_weights",
                                 "optimizer",
                                 "recompute",
                                 "flash_attention",
                                 "bytes_convention",
                                 "grad_sync",
                                 "fsdp_auto_wrap_policy",
                                 "fsdp_min_num_params",
                                 "zero_bucket_size"};

void readFathomKeys(const YAML::Node& node, const std::string& origin, const std::filesystem::path& baseDir,
                    PlanInputs& in, bool strict) {
  FATHOM_CHECK(node.IsMap(), ConfigError, origin, ": a plan file must be a YAML map");
  if (strict) {
    for (const auto& kv : node) {
      const std::string key = kv.first.as<std::string>();
      bool known = false;
      for (const char* k : kPlanKeys) {
        known = known || key == k;
      }
      FATHOM_CHECK(known, ConfigError, origin, ": unknown key '", key, "'");
    }
  }
  const Fields f(node, origin);
  Plan& p = in.plan;
  if (double params = 0; f.get("params", params)) {
    FATHOM_CHECK(params >= 1 && params < 9e18, ConfigError, origin, ": params must be a positive count, got ", params);
    in.params = static_cast<std::int64_t>(std::llround(params));
  }
  if (std::string arch = f.text("arch"); !arch.empty()) {
    TransformerDims d;
    d.arch = parseArch(arch);
    f.get("layers", d.layers);
    f.get("decoder_layers", d.decoderLayers);
    f.get("hidden", d.hidden);
    f.get("heads", d.heads);
    f.get("kv_heads", d.kvHeads);
    f.get("head_dim", d.headDim);
    f.get("ffn_hidden", d.ffnHidden);
    f.get("vocab", d.vocab);
    f.get("max_positions", d.maxPositions);
    d.tiedEmbeddings = d.arch != Arch::Llama;
    f.get("tied_embeddings", d.tiedEmbeddings);
    f.get("num_experts", d.numExperts);
    f.get("experts_per_token", d.expertsPerToken);
    in.dims = d;
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
  f.get("num_processes", p.numGpus);
  f.get("num_gpus", p.numGpus);
  f.get("gpus_per_node", p.gpusPerNode);
  if (auto s = f.text("strategy"); !s.empty()) {
    p.strategy = parseStrategy(s);
  }
  if (auto s = f.text("fsdp_sharding_strategy"); !s.empty()) {
    p.fsdpSharding = parseFsdpSharding(s);
  }
  f.get("offload_optimizer", p.offloadOptimizer);
  f.get("offload_params", p.offloadParams);
  f.get("tp", p.tp);
  f.get("pp", p.pp);
  f.get("sequence_parallel", p.sequenceParallel);
  f.get("micro_batch", p.microBatch);
  f.get("gradient_accumulation_steps", p.gradAccum);
  f.get("seq", p.seqLen);
  if (auto s = f.text("mixed_precision"); !s.empty()) {
    p.precision = parsePrecision(s);
  }
  if (auto s = f.text("precision"); !s.empty()) {
    p.precision = parsePrecision(s);
  }
  if (auto s = f.text("master_weights"); !s.empty()) {
    p.masterWeights = parseMasterWeights(s);
  }
  if (auto s = f.text("optimizer"); !s.empty()) {
    p.optimizer = parseOptimizer(s);
  }
  if (auto s = f.text("recompute"); !s.empty()) {
    p.recompute = parseRecompute(s);
  }
  f.get("flash_attention", p.flashAttention);
  if (auto s = f.text("bytes_convention"); !s.empty()) {
    p.bytes = parseBytesConvention(s);
  }
  if (auto s = f.text("grad_sync"); !s.empty()) {
    p.gradSync = parseGradSync(s);
  }
  if (auto s = f.text("fsdp_auto_wrap_policy"); !s.empty()) {
    p.fsdpWrap = parseFsdpWrap(s);
  }
  f.get("fsdp_min_num_params", p.fsdpMinNumParams);
  f.get("zero_bucket_size", p.zeroBucketElements);
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
